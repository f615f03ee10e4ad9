import DocbmTestSupport
import DocumentBookmarks
import Foundation
import Synchronization
import Testing

@testable import DocbmCLI

/// Messages as a person reads them: paths below the working folder relative to it,
/// diagnostics fitted to a terminal and kept one line in a pipe.
@Suite("Paths and diagnostics as a person reads them")
struct DisplayPathsTests {
  let docbm = Capabilities.docbmExecutable

  @Test("a path below the working folder is shown relative to it; others, and data, as they are")
  func shortening() {
    let paths = DisplayPaths(workingFolder: FilePath("/home/ana"))
    #expect(paths.shown("made on /home/ana/notes/a.json: x") == "made on notes/a.json: x")
    #expect(paths.shown("/home/ana/a.json has no key") == "a.json has no key")
    #expect(paths.shown("(/home/ana/a) and '/home/ana/b'") == "(a) and 'b'")
    // Not below it: another folder whose name starts the same, the folder inside a longer path.
    #expect(paths.shown("at /home/anabel/a and /srv/home/ana/b") == "at /home/anabel/a and /srv/home/ana/b")
    #expect(DisplayPaths(workingFolder: FilePath("/")).shown("at /etc/a") == "at /etc/a")
    #expect(DisplayPaths.asGiven.shown("at /home/ana/a") == "at /home/ana/a")
    // Two paths in one message, and text after the last.
    #expect(paths.shown("/home/ana/a to /home/ana/b.") == "a to b.")
  }

  @Test("paths are compared as the filesystem compares names: byte for byte")
  func bytes() {
    // "zoë" with a composed ë is the working folder; its decomposed spelling (e and a
    // combining diaeresis) names another folder, as the kernel sees it.
    let paths = DisplayPaths(workingFolder: FilePath("/home/zo\u{EB}"))
    #expect(paths.shown("at /home/zo\u{EB}/caf\u{E9}.md") == "at caf\u{E9}.md")
    #expect(paths.shown("at /home/zoe\u{308}/a.md") == "at /home/zoe\u{308}/a.md")
    // A message that is only the folder itself, without the slash, is left as it is.
    #expect(paths.shown("/home/zo\u{EB}") == "/home/zo\u{EB}")
  }

  @Test("the command's messages name a target by its path from where the user stands")
  func relativeMessages() throws {
    let scratch = try Scratch()
    let document = try scratch.file("project/board.json", "{}")
    let target = try scratch.file("project/images/cat.png")
    let bookmark = run(docbm, ["bookmark", document.description, target.description]).output
      .trimmingCharacters(in: .whitespacesAndNewlines)
    try scratch.remove(target)
    let project = scratch.path("project").description
    let here = run("/usr/bin/env", ["-C", project, docbm, "resolve", "board.json", bookmark])
    #expect(here.status == 1)
    #expect(here.error.contains("last seen at images/cat.png is gone"), "\(here.error)")
    #expect(!here.error.contains(project), "\(here.error)")
    // From elsewhere, the path stays whole.
    let elsewhere = run("/usr/bin/env", ["-C", "/", docbm, "resolve", document.description, bookmark])
    #expect(elsewhere.error.contains("last seen at \(target) is gone"), "\(elsewhere.error)")
  }

  @Test("a diagnostic is fitted to a terminal on standard error, and one line when piped")
  func fittedDiagnostics() {
    let missing =
      "/nonexistent/" + String(repeating: "folder/", count: 4) + "a document with a long name.json"
    for errorWidth in [nil, 60] as [Int?] {
      let written = Mutex("")
      let status = DocbmCommandLine.run(
        arguments: [Array("inspect".utf8), Array(missing.utf8)],
        console: Console(
          output: { _ in }, error: { text in written.withLock { $0 += text } }, errorWidth: errorWidth))
      let lines = written.withLock { $0 }.split(separator: "\n")
      #expect(status == 1)
      #expect(lines.first?.hasPrefix("Error: notFound: ") == true, "\(lines)")
      if let errorWidth {
        #expect(lines.count > 1, "\(lines)")
        for line in lines.dropFirst() {
          #expect(line.hasPrefix("       "), "hanging under the message: \(line)")
        }
        for line in lines where line.split(separator: " ").count > 1 {
          #expect(line.count <= errorWidth, "\(line)")
        }
      } else {
        #expect(lines.count == 1, "\(lines)")
      }
    }
  }
}
