import DocbmTestSupport
import Foundation
import Glibc
import Testing

@testable import DocumentBookmarks

/// The rows of docs/design.md's table of situations that a bookmark must survive without
/// landing on a different file while the original still exists (the other rows are pinned
/// in `ResolutionTests` and the CLI's `volumeUnavailable` test).
@Suite("Resolution: the same file, or say so")
struct ResolutionSituationTests {
  let scratch: Scratch

  init() throws {
    // The search area of the tests' targets stays inside the test's own folders.
    scratch = try Scratch.enclosed()
  }

  private func anchored(_ relative: String) -> AnchoredDocument {
    BookmarkService(escrow: nil).documents(anchoredOn: scratch.path(relative))
  }

  @Test("the document moved alone next to an unrelated file of the target's name: the original wins")
  func movedNextToUnrelated() throws {
    try scratch.file("p/board.json", "{}")
    let original = try scratch.file("p/img/cat.png", "the cat")
    let bookmark = try anchored("p/board.json").makeBookmark(to: original)
    try scratch.file("q/img/cat.png", "an unrelated picture")
    try scratch.move(scratch.path("p/board.json"), scratch.path("q/board.json"))
    let resolution = try anchored("q/board.json").resolveAgreeing(bookmark)
    #expect(resolution.path == original)
    #expect(resolution.staleReasons == [.relativePathChanged])
    // The refreshed bookmark keeps leading to the original, from the document's new place.
    let refreshed = try #require(resolution.refreshed)
    #expect(try anchored("q/board.json").resolveAgreeing(refreshed).path == original)
  }

  @Test(
    "a target renamed and a new one made under the old name: the renamed original wins",
    arguments: [TargetKind.file, .folder])
  func renamedAndReplaced(kind: TargetKind) throws {
    try scratch.file("p/board.json", "{}")
    let old = scratch.path("p/img/cat")
    let renamed = scratch.path("p/img/kitten")
    if kind == .file { try scratch.file("p/img/cat", "the cat") } else { try scratch.folder("p/img/cat") }
    let bookmark = try anchored("p/board.json").makeBookmark(to: old)
    try scratch.move(old, renamed)
    if kind == .file { try scratch.file("p/img/cat", "a new file") } else { try scratch.folder("p/img/cat") }
    let resolution = try anchored("p/board.json").resolveAgreeing(bookmark)
    #expect(resolution.path == renamed)
    #expect(resolution.staleReasons == [.targetMoved])
  }

  @Test(
    "a target that is itself a document, saved by docbm and then renamed, is found by the escrow's record",
    arguments: [false, true])
  func savedThenRenamed(batched: Bool) throws {
    let service = BookmarkService(escrow: KeyEscrow(folder: scratch.path("escrow")))
    let board = service.documents(anchoredOn: try scratch.file("p/board.json", "{}"))
    // The target is a document of its own, with its key (a bookmark of its own on it).
    let notes = try scratch.file("p/notes/plan.md", "plan")
    _ = try service.documents(anchoredOn: notes).makeBookmark(to: try scratch.file("p/notes/figure.png"))
    let bookmark = try board.makeBookmark(to: notes)
    // Its editor saves it with docbm (a new file, the same key), then the user renames it.
    try service.documents(anchoredOn: notes).replaceDocument(with: Data("plan, revised".utf8))
    let renamed = scratch.path("p/notes/plan-final.md")
    try scratch.move(notes, renamed)
    let resolution = try batched ? board.resolve([bookmark])[0].get() : board.resolve(bookmark)
    #expect(resolution.path == renamed)
    #expect(Set(resolution.staleReasons) == [.targetMoved, .identityChanged])
    // The refreshed bookmark leads there directly.
    let refreshed = try #require(resolution.refreshed)
    let again = try board.resolve(refreshed)
    #expect(again.path == renamed && again.staleReasons.isEmpty)

    // Without the escrow's record, nothing says which file replaced it: not found.
    let unrecorded = BookmarkService(searchBudget: .nearby, escrow: nil).documents(
      anchoredOn: scratch.path("p/board.json"))
    #expect(throws: DocbmError.self) { try unrecorded.resolve(bookmark) }
  }

  @Test("a document that once stood at the target's path is not taken for the target's successor")
  func olderDocumentAtThePath() throws {
    let service = BookmarkService(searchBudget: .nearby, escrow: KeyEscrow(folder: scratch.path("escrow")))
    let board = service.documents(anchoredOn: try scratch.file("p/board.json", "{}"))
    // An older document at the path, saved with docbm (so the escrow records the file it
    // saved there), then moved away by hand.
    let path = try scratch.file("p/notes/plan.md", "an older plan")
    let older = service.documents(anchoredOn: path)
    _ = try older.makeBookmark(to: try scratch.file("p/notes/figure.png"))
    try older.replaceDocument(with: Data("an older plan, saved".utf8))
    try scratch.folder("p/old")
    try scratch.move(path, scratch.path("p/old/plan.md"))
    // A plain file takes the path, is bookmarked, then is deleted.
    try scratch.file("p/notes/plan.md", "a plain plan")
    let bookmark = try board.makeBookmark(to: path)
    try scratch.remove(path)
    #expect(throws: DocbmError.self) { try board.resolve(bookmark) }
  }

  @Test(
    "a project copied with its document keeps leading to the copy's files",
    arguments: ["cp -a", "rsync -aX", "tar --xattrs"])
  func projectCopied(tool: String) throws {
    try scratch.file("p/board.json", "{}")
    let original = try scratch.file("p/img/cat.png", "the cat")
    let bookmark = try anchored("p/board.json").makeBookmark(to: original)
    try copyFolder("p", "copy", with: tool)
    let copy = anchored("copy/board.json")
    #expect(try copy.keyFingerprint() == bookmark.keyFingerprint, "\(tool) carried the key")
    let resolution = try copy.resolveAgreeing(bookmark)
    #expect(resolution.path == scratch.path("copy/img/cat.png"), "\(tool)")
    #expect(resolution.staleReasons == [.documentMoved])
    #expect(try anchored("p/board.json").resolveAgreeing(bookmark).path == original)
  }

  @Test("a project copied, then the copy's file edited: ambiguous, both candidates, no refreshed bookmark")
  func copyEdited() throws {
    try scratch.file("p/board.json", "{}")
    let original = try scratch.file("p/img/cat.png", "the cat")
    let bookmark = try anchored("p/board.json").makeBookmark(to: original)
    try #require(
      run("/bin/cp", ["-a", scratch.path("p").description, scratch.path("copy").description]).status == 0)
    let edited = scratch.path("copy/img/cat.png")
    try scratch.write("the cat, retouched in the copy", to: edited)
    let resolution = try anchored("copy/board.json").resolveAgreeing(bookmark)
    #expect(resolution.isAmbiguous)
    #expect(resolution.staleReasons == [.relativePathChanged, .ambiguous])
    #expect(resolution.path == original)
    #expect(resolution.candidates.map(\.path) == [original, edited])
    #expect(resolution.candidates.map(\.basis) == [.recordedIdentity, .relativePath])
    #expect(resolution.refreshed == nil)
  }

  @Test("a bookmark that does not say where its document was: a copy cannot be told from a move")
  func withoutDocumentPath() throws {
    // A bookmark as made before the document's path was recorded, to a target outside the
    // document's folder (its relative path climbs, so the document's place cannot be
    // worked out from it).
    try scratch.file("p/doc/board.json", "{}")
    let original = try scratch.file("p/img/cat.png", "the cat")
    let made = try anchored("p/doc/board.json").makeBookmark(to: original)
    let contents = try made.decodeUnverified()
    #expect(contents.documentPath == scratch.path("p/doc/board.json"))
    #expect(contents.relativePath == FilePath("../img/cat.png"))
    let key = try #require(try anchored("p/doc/board.json").readKey())
    let old = BookmarkContents(
      version: contents.version, keyFingerprint: contents.keyFingerprint, kind: contents.kind,
      relativePath: contents.relativePath, absolutePath: contents.absolutePath, createdAt: contents.createdAt,
      identity: contents.identity, volume: contents.volume, documentPath: nil)
    let bookmark = Bookmark(verifiedBytes: BookmarkRecord.encode(old, key: key), fingerprint: key.fingerprint)
    #expect(try bookmark.decodeUnverified().documentPath == nil)

    try #require(
      run("/bin/cp", ["-a", scratch.path("p").description, scratch.path("copy").description]).status == 0)
    let resolution = try anchored("copy/doc/board.json").resolveAgreeing(bookmark)
    #expect(resolution.isAmbiguous)
    #expect(resolution.candidates.map(\.path) == [original, scratch.path("copy/img/cat.png")])
    #expect(resolution.candidates[0].note.contains("does not say where its document was"))
  }

  @Test("a project copied, then the original deleted: the copy's files, without a search")
  func copyOutlivesOriginal() throws {
    try scratch.file("p/board.json", "{}")
    let original = try scratch.file("p/img/cat.png", "the cat")
    let bookmark = try anchored("p/board.json").makeBookmark(to: original)
    try #require(
      run("/bin/cp", ["-a", scratch.path("p").description, scratch.path("copy").description]).status == 0)
    try #require(run("/bin/rm", ["-rf", scratch.path("p").description]).status == 0)
    let resolution = try anchored("copy/board.json").resolveAgreeing(bookmark)
    #expect(resolution.path == scratch.path("copy/img/cat.png"))
    #expect(resolution.staleReasons == [.documentMoved])
  }

  /// Copies the folder `from` to `to` (which does not exist yet) as `tool` does, keeping
  /// extended attributes.
  private func copyFolder(_ from: String, _ to: String, with tool: String) throws {
    let source = scratch.path(from).description
    let destination = scratch.path(to).description
    let script: String
    switch tool {
    case "cp -a": script = "cp -a '\(source)' '\(destination)'"
    case "rsync -aX": script = "rsync -aX '\(source)/' '\(destination)/'"
    default:
      script =
        "mkdir '\(destination)' && tar --xattrs -C '\(source)' -cf - . | tar --xattrs --xattrs-include='user.*' -C '\(destination)' -xf -"
    }
    let copied = run("/bin/sh", ["-c", script])
    try #require(copied.status == 0, "\(tool): \(copied.error)")
  }

  @Test(
    "a backup restored beside the renamed original leads to the restored files, not into the old project",
    arguments: ["cp -a", "rsync -aX", "tar --xattrs"])
  func restoredBesideRenamedOriginal(tool: String) throws {
    try scratch.file("p/board.json", "{}")
    let original = try scratch.file("p/img/cat.png", "the cat")
    let bookmark = try anchored("p/board.json").makeBookmark(to: original)
    try copyFolder("p", "backup", with: tool)
    try scratch.move(scratch.path("p"), scratch.path("p.damaged"))
    try copyFolder("backup", "p", with: tool)

    let restored = anchored("p/board.json")
    #expect(try restored.keyFingerprint() == bookmark.keyFingerprint, "\(tool) carried the key")
    let resolution = try restored.resolveAgreeing(bookmark)
    #expect(resolution.path == original, "\(tool): the restored file at the recorded path")
    #expect(resolution.staleReasons == [.documentMoved])
    // The refreshed bookmark records the restored file: it resolves there exactly.
    let refreshed = try #require(resolution.refreshed)
    let again = try restored.resolveAgreeing(refreshed)
    #expect(again.path == original && !again.isStale)
    // The renamed original keeps its own files.
    let old = try anchored("p.damaged/board.json").resolveAgreeing(bookmark)
    #expect(old.path == scratch.path("p.damaged/img/cat.png"))
    #expect(old.staleReasons == [.documentMoved])
  }

  /// A project `p` backed up, renamed to `p.damaged`, the backup restored as `p`, and its
  /// picture then edited: a bookmark of `p/board.json` to its picture, and that picture.
  private func restoreBesideRenamedOriginalThenEdit() throws -> (Bookmark, FilePath) {
    try scratch.file("p/board.json", "{}")
    let original = try scratch.file("p/img/cat.png", "the cat")
    let bookmark = try anchored("p/board.json").makeBookmark(to: original)
    try copyFolder("p", "backup", with: "cp -a")
    try scratch.move(scratch.path("p"), scratch.path("p.damaged"))
    try copyFolder("backup", "p", with: "cp -a")
    try scratch.write("the cat, retouched after the restore", to: original)
    return (bookmark, original)
  }

  @Test(
    "a backup restored beside the renamed original, its file then edited: ambiguous, never the old project silently"
  )
  func restoredThenEdited() throws {
    let (bookmark, original) = try restoreBesideRenamedOriginalThenEdit()

    let resolution = try anchored("p/board.json").resolveAgreeing(bookmark)
    let renamed = scratch.path("p.damaged/img/cat.png")
    #expect(resolution.staleReasons == [.targetMoved, .ambiguous])
    #expect(resolution.path == renamed)
    #expect(resolution.candidates.map(\.path) == [renamed, original])
    #expect(resolution.candidates.map(\.basis) == [.recordedIdentity, .relativePath])
    #expect(resolution.refreshed == nil)
  }

  @Test(
    "an ambiguous result settled by the user's choice: a refreshed bookmark that keeps it",
    arguments: [Resolution.Candidate.Basis.recordedIdentity, .relativePath])
  func choiceKept(basis: Resolution.Candidate.Basis) throws {
    let (bookmark, _) = try restoreBesideRenamedOriginalThenEdit()
    let document = anchored("p/board.json")
    let candidates = try document.resolveAgreeing(bookmark).candidates
    let chosen = try #require(candidates.first { $0.basis == basis }).path

    let settled = try document.resolve(bookmark, choosing: chosen)
    #expect(!settled.isAmbiguous && settled.candidates.isEmpty)
    #expect(settled.path == chosen)
    #expect(
      settled.staleReasons
        == (basis == .recordedIdentity ? [.targetMoved] : [.documentMoved, .identityChanged]))
    // The refreshed bookmark resolves to the choice from now on, without ambiguity.
    let refreshed = try #require(settled.refreshed)
    let again = try document.resolveAgreeing(refreshed)
    #expect(again.path == chosen && !again.isStale)

    // A path that is no candidate settles nothing; a result that was not ambiguous stays.
    let elsewhere = try scratch.file("p/img/dog.png", "a dog")
    #expect(try document.resolve(bookmark, choosing: elsewhere).isAmbiguous)
    #expect(try document.resolve(refreshed, choosing: elsewhere).path == chosen)
  }

  @Test("a backup restored after the original was deleted: the restored file, by its path")
  func restoredAfterOriginalGone() throws {
    try scratch.file("p/board.json", "{}")
    let original = try scratch.file("p/img/cat.png", "the cat")
    let bookmark = try anchored("p/board.json").makeBookmark(to: original)
    try copyFolder("p", "backup", with: "tar --xattrs")
    try #require(run("/bin/rm", ["-rf", scratch.path("p").description]).status == 0)
    try copyFolder("backup", "p", with: "tar --xattrs")
    let resolution = try anchored("p/board.json").resolveAgreeing(bookmark)
    #expect(resolution.path == original)
    #expect(resolution.staleReasons == [.identityChanged])
  }

  @Test(
    "the very document the bookmark was made in, its target renamed into another project: the renamed target")
  func recordedDocumentKeepsItsTarget() throws {
    // The other project holds a copy of the document; the one at hand is the very file the
    // bookmark was made in (its inode and birth time), so the recorded target wins.
    try scratch.file("p/board.json", "{}")
    let original = try scratch.file("p/img/cat.png", "the cat")
    let bookmark = try anchored("p/board.json").makeBookmark(to: original)
    let recorded = try #require(try bookmark.decodeUnverified().documentIdentity)
    guard recorded.birthTime != nil else {
      print("skipped: the scratch filesystem keeps no birth time, so no document identity is recorded")
      return
    }
    try scratch.folder("q/img")
    try scratch.move(original, scratch.path("q/img/cat.png"))
    try #require(
      run(
        "/bin/cp", ["-a", scratch.path("p/board.json").description, scratch.path("q/board.json").description]
      )
      .status == 0)
    // A faithful copy of the target back at its path: without the document's identity,
    // the arrangement would make the document at hand the copy.
    try #require(
      run("/bin/cp", ["-a", scratch.path("q/img/cat.png").description, original.description]).status == 0)
    let resolution = try anchored("p/board.json").resolveAgreeing(bookmark)
    #expect(resolution.path == scratch.path("q/img/cat.png"))
    #expect(resolution.staleReasons == [.targetMoved])
  }

  @Test("the document moved alone, the original target then replaced by an atomic save: the path wins")
  func movedThenReplaced() throws {
    try scratch.file("p/board.json", "{}")
    let original = try scratch.file("p/img/cat.png", "the cat")
    let bookmark = try anchored("p/board.json").makeBookmark(to: original)
    try scratch.move(scratch.path("p/board.json"), scratch.path("q/board.json"))
    try scratch.replaceAtomically(original, with: "a new version")
    let resolution = try anchored("q/board.json").resolveAgreeing(bookmark)
    #expect(resolution.path == original)
    #expect(resolution.staleReasons == [.relativePathChanged, .identityChanged])
  }

  @Test("through a linked folder, a target renamed with a new file under its old name is still the original")
  func linkedFolderRenamedAndReplaced() throws {
    try scratch.file("p/board.json", "{}")
    let original = try scratch.file("p/img/cat.png", "the cat")
    let bookmark = try anchored("p/board.json").makeBookmark(to: original)
    try scratch.symlink(scratch.path("p").description, at: scratch.path("alias"))
    try scratch.move(original, scratch.path("p/img/kitten.png"))
    try scratch.file("p/img/cat.png", "a new file")
    let resolution = try anchored("alias/board.json").resolveAgreeing(bookmark)
    #expect(resolution.path == scratch.path("p/img/kitten.png"))
    #expect(resolution.staleReasons == [.targetMoved])
  }
}
