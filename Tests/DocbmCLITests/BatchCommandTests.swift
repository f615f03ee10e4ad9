import DocbmTestSupport
import DocumentBookmarks
import Foundation
import Testing

/// `docbm bookmark DOCUMENT TARGET...` and `docbm resolve DOCUMENT -`: many bookmarks, one
/// line each, in order.
@Suite("docbm: many bookmarks per call")
struct BatchCommandTests {
  let docbm = Capabilities.docbmExecutable

  @Test("bookmark makes one line per target in order; resolve - resolves them line by line")
  func linesInOrder() throws {
    let scratch = try Scratch()
    let document = try scratch.file("doc.json")
    let targets = try (0..<5).map { try scratch.file("images/\($0).png", "picture \($0)") }
    let made = run(docbm, ["bookmark", document.description] + targets.map(\.description))
    try #require(made.status == 0, "\(made.error)")
    let lines = made.output.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
    #expect(lines.count == 5)
    #expect(lines.allSatisfy { $0.hasPrefix("docbmRec") })

    // One renamed, one deleted, a line that is no bookmark: each line's own result.
    try scratch.move(targets[1], scratch.path("images/1-renamed.png"))
    try scratch.remove(targets[3])
    let input =
      [lines[0], lines[1], "not a bookmark", lines[2], lines[3], lines[4]].joined(separator: "\n") + "\n"
    let resolved = run(docbm, ["resolve", document.description, "-"], input: input)
    #expect(resolved.status == 1, "a failed line makes the exit status 1")
    #expect(
      resolved.output.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        == [
          targets[0].description, scratch.path("images/1-renamed.png").description, "",
          targets[2].description,
          "", targets[4].description,
        ])
    #expect(resolved.error.contains("line 2: stale: targetMoved"))
    #expect(resolved.error.contains("line 2: refreshed: docbmRec"))
    #expect(resolved.error.contains("line 3: Error: corrupt"))
    #expect(resolved.error.contains("line 5: Error: missing"))

    // Every line good: exit 0.
    let good = [lines[0], lines[2]].joined(separator: "\n") + "\n"
    let fine = run(docbm, ["resolve", document.description, "-"], input: good)
    #expect(fine.status == 0)
    #expect(fine.output == "\(targets[0])\n\(targets[2])\n")
  }

  @Test("resolve --json - prints one object per line, failures with their error")
  func jsonLines() throws {
    let scratch = try Scratch()
    let document = try scratch.file("doc.json")
    let kept = try scratch.file("kept.txt")
    let gone = try scratch.file("gone.txt")
    let made = run(docbm, ["bookmark", document.description, kept.description, gone.description])
    try #require(made.status == 0, "\(made.error)")
    try scratch.remove(gone)
    let result = run(docbm, ["resolve", "--json", document.description, "-"], input: made.output)
    #expect(result.status == 1)
    let objects = try result.output.split(separator: "\n").map {
      try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
    #expect(objects.count == 2)
    #expect(objects.first?["resolved"] as? Bool == true)
    #expect(objects.first?["path"] as? String == kept.description)
    #expect(objects.last?["resolved"] as? Bool == false)
    #expect((objects.last?["error"] as? [String: Any])?["code"] as? String == "missing")
  }

  @Test("bookmark with several targets keeps going past one that fails, and says so")
  func bookmarkFailure() throws {
    let scratch = try Scratch()
    let document = try scratch.file("doc.json")
    let first = try scratch.file("a.txt")
    let last = try scratch.file("b.txt")
    let made = run(
      docbm,
      [
        "bookmark", document.description, first.description, scratch.path("nothing").description,
        last.description,
      ])
    #expect(made.status == 1)
    let lines = made.output.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
    #expect(lines.count == 3)
    #expect(lines.first?.hasPrefix("docbmRec") == true)
    #expect(lines.dropFirst().first?.isEmpty == true)
    #expect(lines.last?.hasPrefix("docbmRec") == true)
    #expect(made.error.contains("Error: notFound"))
    let json = run(docbm, ["bookmark", "--json", document.description, first.description, last.description])
    #expect(json.status == 0)
    #expect(json.output.split(separator: "\n").count == 2, "one object per line")
  }
}
