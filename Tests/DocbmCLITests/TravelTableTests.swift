import DocbmTestSupport
import DocumentBookmarks
import Foundation
import Testing

/// docs/travel.md's table comes from a run: the script that measures it works, and what it
/// measures with the tools the suite has is what the page says.
@Suite("Which tools keep the key")
struct TravelTableTests {
  private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path

  @Test("travel-table.sh measures cp, mv, rsync and tar as docs/travel.md says, and leaves the page alone")
  func measured() throws {
    let scratch = try Scratch()
    let page = try String(contentsOfFile: "\(root)/docs/travel.md", encoding: .utf8)
    let result = run(
      "/bin/bash", ["\(root)/Benchmarks/travel-table.sh", scratch.path("table").description],
      environment: ["DOCBM": Capabilities.docbmExecutable])
    #expect(result.status == 0, "\(result.error)")
    let rows = result.output.split(separator: "\n").filter { $0.hasPrefix("| ") }
    #expect(rows.count > 10, "\(result.output)")
    #expect(!result.output.contains("| failed"), "\(result.output)")
    for (row, verdict) in [
      ("| cp | `cp -a` |", "| kept | `ok` |"), ("| cp | `cp -r` |", "| **lost** | `keyLost` |"),
      ("| rsync | `rsync -aX` |", "| kept | `ok` |"), ("| rsync | `rsync -a` |", "| **lost** | `keyLost` |"),
      ("| GNU tar | `tar --xattrs -c`, `tar --xattrs -x` |", "| kept | `ok` |"),
      ("| GNU tar | `tar -c`, `tar -x` |", "| **lost** | `keyLost` |"),
    ] {
      let line = rows.first { $0.hasPrefix(row) }
      #expect(line?.hasSuffix(verdict) == true, "\(row): \(line ?? "no row")")
      // The page says the same.
      #expect(page.contains(row + verdict.dropFirst()), "docs/travel.md: \(row)")
    }
    #expect(try String(contentsOfFile: "\(root)/docs/travel.md", encoding: .utf8) == page)
  }
}
