import DocbmSystem
import DocbmTestSupport
import Foundation
import Glibc
import Testing

@testable import DocumentBookmarks

/// `docbm inspect` reads a document through one descriptor and opens the escrow only when
/// its record decides the verdict: what it says must be what a check with the escrow says.
@Suite("Inspecting a document")
struct DocumentInspectionTests {
  @Test("the verdict is the escrowed check's; the escrow is opened only for a document it decides")
  func agreesWithCheck() throws {
    let (scratch, escrow, service) = try EscrowScratch.make()
    let target = try scratch.file("cat.png", "cat")
    // Key and bookmark: judged by them alone.
    let board = try scratch.file("board.json", "{}")
    let boardDocument = service.documents(anchoredOn: board)
    let bookmark = try boardDocument.makeBookmark(to: target)
    try boardDocument.replaceDocument(with: Data("{\"cat\": \"\(bookmark.text)\"}".utf8))
    // A key and no bookmark, as `docbm bookmark` leaves it.
    let notes = try scratch.file("notes.md", "# Notes")
    _ = try service.documents(anchoredOn: notes).makeBookmark(to: target)
    // Bookmarks and no key: a plain write dropped it.
    let lost = try scratch.file("lost.json", "{}")
    let lostBookmark = try service.documents(anchoredOn: lost).makeBookmark(to: target)
    unlink(lost.description)
    _ = try scratch.file("lost.json", "{\"cat\": \"\(lostBookmark.text)\"}")

    let expected: [(FilePath, CheckVerdict)] = [(board, .ok), (notes, .noBookmarks), (lost, .keyLost)]
    for (path, verdict) in expected {
      let inspection = try DocumentInspection.inspect(path, escrow: escrow)
      let check = try #require(inspection.check)
      #expect(check.verdict == verdict, "\(path): \(check.message)")
      #expect(check.verdict == DocumentChecker(escrow: escrow).check(path).verdict)
    }

    // An escrow folder others may write is a problem reported when it is opened: the
    // document judged by its key and bookmark alone never opens it.
    chmod(escrow.folder.description, 0o757)
    defer { chmod(escrow.folder.description, 0o700) }
    let alone = try DocumentInspection.inspect(board, escrow: escrow)
    #expect(alone.checker.escrowProblems.isEmpty)
    #expect(alone.check?.verdict == .ok)
    let decided = try DocumentInspection.inspect(notes, escrow: escrow)
    #expect(decided.checker.escrowProblems.count == 1)
    #expect(decided.check?.verdict == DocumentChecker(escrow: escrow).check(notes).verdict)
  }

  @Test("key, attributes and kind come from the same file: a folder document has no check")
  func keyAndAttributes() throws {
    let (scratch, escrow, service) = try EscrowScratch.make()
    let target = try scratch.file("cat.png", "cat")
    let package = try scratch.folder("project.pkg")
    let fingerprint = try service.documents(anchoredOn: package).makeBookmark(to: target).keyFingerprint
    let folder = try DocumentInspection.inspect(package, escrow: escrow)
    guard case .present(let found) = folder.key else {
      Issue.record("the folder's key was not found: \(folder.key)")
      return
    }
    #expect(found == fingerprint)
    #expect(folder.check == nil)
    #expect(folder.attributes.map(\.name) == ["user.docbm.key"])

    let damaged = try scratch.file("damaged.md", "text")
    try ExtendedAttributes.set(
      KeyAttribute.name, to: Array("DBMK".utf8), on: .path(damaged, followSymlinks: true))
    try ExtendedAttributes.set("user.note", to: Array("hello".utf8), on: .path(damaged, followSymlinks: true))
    let inspection = try DocumentInspection.inspect(damaged, escrow: escrow)
    guard case .malformed = inspection.key else {
      Issue.record("a damaged key was not reported as malformed: \(inspection.key)")
      return
    }
    #expect(inspection.attributes.map(\.name) == ["user.docbm.key", "user.note"])
    #expect(inspection.attributes.map(\.size) == [4, 5])
    #expect(inspection.check?.verdict == .unreadable)

    #expect(throws: DocbmError.self) {
      try DocumentInspection.inspect(scratch.path("absent.md"), escrow: escrow)
    }
  }
}
