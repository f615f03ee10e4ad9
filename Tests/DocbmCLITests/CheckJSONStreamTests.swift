import DocbmTestSupport
import DocumentBookmarks
import Foundation
import Testing

@testable import DocbmCLI

/// `check --json` streams its report: the same JSON, in memory that does not grow with
/// the tree.
@Suite("check --json streams")
struct CheckJSONStreamTests {
  let docbm = Capabilities.docbmExecutable

  /// The peak resident memory, in KiB, of `docbm arguments…` run alone (python3 measures
  /// its one child).
  private func peakMemory(_ arguments: [String]) -> Int? {
    let script =
      "import resource, subprocess, sys; subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    return Int(
      run("/usr/bin/python3", ["-c", script, docbm] + arguments).output.trimmingCharacters(
        in: .whitespacesAndNewlines))
  }

  @Test("the report parses, with every document, the counts and the unreadable paths")
  func report() throws {
    let scratch = try Scratch()
    let board = try scratch.file("tree/board.json", "{}")
    let made = run(docbm, ["bookmark", board.description, try scratch.file("tree/t.png").description])
    try #require(made.status == 0, "\(made.error)")
    try scratch.file(
      "tree/copy.json", "{\"b\":\"\(made.output.trimmingCharacters(in: .whitespacesAndNewlines))\"}")
    let result = run(docbm, ["check", "--json", "-r", scratch.path("tree").description])
    let report = try #require(
      try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
    let documents = try #require(report["documents"] as? [[String: Any]])
    #expect(documents.count == 3)
    #expect(Set(documents.compactMap { $0["verdict"] as? String }) == ["noBookmarks", "keyLost"])
    #expect(report["problems"] as? Int == 1)
    #expect(report["schemaVersion"] as? Int == 1)
    #expect((report["unreadable"] as? [Any])?.isEmpty == true)
  }

  @Test("memory does not grow with the number of documents reported")
  func flatMemory() throws {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else {
      print("skipped: python3 is needed to measure one child's peak memory")
      return
    }
    let scratch = try Scratch()
    for index in 0..<20_000 { try scratch.file("big/\(index % 100)/\(index).txt", "text") }
    for index in 0..<1_000 { try scratch.file("small/\(index % 10)/\(index).txt", "text") }
    let small = try #require(peakMemory(["check", "--json", "-r", scratch.path("small").description]))
    let big = try #require(peakMemory(["check", "--json", "-r", scratch.path("big").description]))
    // Kept whole, 20,000 reports (a few hundred bytes each, and their JSON) would add
    // well over 8 MiB.
    #expect(big < small + 8 * 1024, "peak \(small) KiB for 1,000 documents, \(big) KiB for 20,000")
  }

  @Test("the streamed text is the whole report rendered at once, byte for byte")
  func sameAsWholeReport() throws {
    struct Whole: Encodable {
      let documents: [DocumentCheck]
      let problems: Int
      let schemaVersion = JSONReport.schemaVersion
      let unreadable: [TreeChecker.Unreadable]
    }
    final class Written: @unchecked Sendable {
      var text = ""
    }
    let scratch = try Scratch()
    let board = try scratch.file("tree/board.json", "{}")
    let bookmark = try BookmarkService(escrow: nil).documents(anchoredOn: board).makeBookmark(
      to: try scratch.file("tree/images/t.png"))
    try scratch.file("tree/board.json", "{\"b\": \"\(bookmark.text)\", \"empty\": []}")
    try scratch.file("tree/notes/copy.json", "[\"\(bookmark.text)\"]")
    try scratch.file("tree/notes/plain.txt", "nothing")
    var checks: [DocumentCheck] = []
    _ = TreeChecker(checker: DocumentChecker(escrow: nil)).check(scratch.path("tree")) { checks.append($0) }
    #expect(checks.count == 4)
    let unreadable = [
      TreeChecker.Unreadable(path: scratch.path("tree/locked"), message: "a \"quoted\" reason")
    ]
    for (documents, problems) in [(checks, 1), ([], 0)] {
      let written = Written()
      var stream = CheckJSONStream(console: Console(output: { written.text += $0 }, error: { _ in }))
      for check in documents { stream.add(check) }
      stream.finish(problems: problems, unreadable: unreadable)
      let whole = JSONReport.render(Whole(documents: documents, problems: problems, unreadable: unreadable))
      #expect(written.text == whole + "\n", "\(documents.count) documents")
    }
  }
}
