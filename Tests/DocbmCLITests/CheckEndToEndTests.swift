import DocbmCLI
import DocbmTestSupport
import DocumentBookmarks
import Foundation
import Testing

/// `docbm check` and `docbm repair` on real files, with a scratch escrow.
@Suite("docbm check and repair end to end")
struct CheckEndToEndTests {
  let docbm = Capabilities.docbmExecutable

  @Test("a key lost by sed -i: check says keyLost (exit 2), repair restores it, check is clean again")
  func lostAndRepaired() throws {
    let scratch = try Scratch()
    let environment = ["DOCBM_ESCROW_DIR": scratch.path("escrow").description]
    func docbm(_ arguments: [String], input: String? = nil) -> ProcessResult {
      run(self.docbm, arguments, input: input, environment: environment)
    }
    let document = try scratch.file("project/doc.json", "{}")
    let target = try scratch.file("project/a.png")
    let text = docbm(["bookmark", document.description, target.description]).output
      .trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(docbm(["save", document.description], input: "{\"a\": \"\(text)\"}").status == 0)
    #expect(docbm(["check", document.description]).status == 0)

    #expect(run("/bin/sed", ["-i", "s/a/a/", document.description]).status == 0)
    let lost = docbm(["check", "--json", document.description])
    #expect(lost.status == 2)
    #expect(lost.output.contains("\"verdict\" : \"keyLost\""))

    let repaired = docbm(["repair", document.description])
    #expect(repaired.status == 0, "\(repaired.output)")
    #expect(repaired.output.hasPrefix("restored"))
    #expect(docbm(["resolve", document.description, text]).output == target.description + "\n")

    let tree = docbm(["check", "--recursive", scratch.path("project").description])
    #expect(tree.status == 0)
    #expect(tree.output.contains("ok                    \(document)  (1 bookmark)"))
    #expect(tree.output.contains("2 documents checked, 0 with problems, 0 unreadable"))
  }

  @Test(
    "a folder without --recursive is a failure of the check (exit 1); a foreign bookmark's repair is refused (exit 2)"
  )
  func failuresAndRefusals() throws {
    let scratch = try Scratch()
    let environment = ["DOCBM_ESCROW_DIR": scratch.path("escrow").description]
    let folder = run(docbm, ["check", scratch.root.description], environment: environment)
    #expect(folder.status == 1)
    #expect(folder.error.contains("use --recursive"))

    let source = try scratch.file("source.json")
    let thief = try scratch.file("thief.json")
    let text = run(docbm, ["bookmark", source.description, source.description], environment: environment)
      .output
    #expect(
      run(docbm, ["bookmark", thief.description, source.description], environment: environment).status == 0)
    #expect(run(docbm, ["save", thief.description], input: text, environment: environment).status == 0)
    let check = run(docbm, ["check", thief.description], environment: environment)
    #expect(check.status == 2)
    #expect(check.output.hasPrefix("keyMismatch"))
    let repair = run(docbm, ["repair", "--json", thief.description], environment: environment)
    #expect(repair.status == 2)
    #expect(repair.output.contains("\"action\" : \"refused\""))
  }

  @Test("inspect lists the bookmarks found in the document's bytes")
  func inspectShowsBookmarks() throws {
    let scratch = try Scratch()
    let document = try scratch.file("doc.json")
    let target = try scratch.file("a.png")
    let text = run(docbm, ["bookmark", document.description, target.description]).output
    #expect(
      run(docbm, ["save", document.description], input: "[\"\(text.trimmingCharacters(in: .newlines))\"]")
        .status == 0)
    let inspected = run(docbm, ["inspect", document.description]).output
    #expect(inspected.contains("bookmarks:    1 found"))
    #expect(inspected.contains("text at 2, key "))
    #expect(inspected.contains("→ \(target): verifies, resolves"))
    #expect(inspected.contains("verdict:      ok"))
  }
}
