import DocbmSystem
import DocbmTestSupport
import Foundation
import Glibc
import Testing

@testable import DocumentBookmarks

/// The rule for which file is a key's document (docs/security.md, "Which file is a key's
/// document"): each row of its table, run on real files.
@Suite("Escrow: which file is a key's document")
struct EscrowRuleTests {
  let scratch: Scratch
  let escrow: KeyEscrow
  let service: BookmarkService

  init() throws {
    (scratch, escrow, service) = try EscrowScratch.make()
  }

  @Test("a service escrows new keys in the user's escrow unless the app passes nil, as C and Python do")
  func userEscrowByDefault() {
    #expect(BookmarkService().escrow == KeyEscrow.default)
    #expect(BookmarkService(searchBudget: .nearby).escrow == KeyEscrow.default)
    #expect(BookmarkService(escrow: nil).escrow == nil)
  }

  /// A folder anyone may change (mode 0777, not sticky), as a group project folder can be.
  private func sharedFolder(_ name: String) throws -> FilePath {
    let folder = try scratch.folder(name)
    chmod(folder.description, 0o777)
    return folder
  }

  /// A document of mode 0600 in `folder` holding one bookmark, its key escrowed.
  private func document(in folder: FilePath, bookmarks: Bool = true) throws -> (FilePath, Bookmark) {
    let path = folder.appending("board.json")
    try scratch.write("{}", to: path)
    chmod(path.description, 0o600)
    let anchored = service.documents(anchoredOn: path)
    let bookmark = try anchored.makeBookmark(to: try scratch.file("images/cat.png"))
    if bookmarks { try anchored.replaceDocument(with: Data("{\"cat\":\"\(bookmark.text)\"}".utf8)) }
    return (path, bookmark)
  }

  /// A file of the user's, with `mode`, and neither key nor bookmark.
  private func plainFile(_ path: FilePath, mode: mode_t) throws -> FilePath {
    try scratch.write("notes\n", to: path)
    chmod(path.description, mode)
    return path
  }

  private func key(of path: FilePath) throws -> KeyFingerprint? {
    try BookmarkService(escrow: nil).documents(anchoredOn: path).keyFingerprint()
  }

  /// The attacker's move: the document goes away, `other` takes its path.
  private func swap(_ document: FilePath, with other: FilePath) throws {
    try scratch.move(document, document.removingLastComponent.appending("moved-away.json"))
    try scratch.move(other, document)
  }

  /// Repair puts `key` back on the file at `path`: the escrow takes it for the document.
  private func expectRestored(_ path: FilePath, key fingerprint: KeyFingerprint) throws {
    let repair = DocumentRepairer(escrow: escrow).repair(path)
    #expect(repair.action == .restored, "\(repair.message)")
    #expect(try key(of: path) == fingerprint)
  }

  /// Repair refuses the file at `path` as not the document's save, for `reason`; the file
  /// stays without a key, and a new bookmark on it fails rather than make a key.
  private func expectRefused(_ path: FilePath, because reason: String) throws {
    let repair = DocumentRepairer(escrow: escrow).repair(path)
    #expect(repair.action == .refused, "\(repair.message)")
    #expect(repair.refusal == .unprovenSuccessor, "\(repair.message)")
    #expect(repair.message.contains(reason), "\(repair.message)")
    #expect(try key(of: path) == nil)
    let dog = try scratch.file("images/dog.png")
    do throws(DocbmError) {
      _ = try service.documents(anchoredOn: path).makeBookmark(to: dog)
      Issue.record("a bookmark was made on a file swapped into a recorded path")
    } catch {
      #expect(error.code == .documentUnproven, "\(error)")
      #expect(error.message.contains(reason), "\(error.message)")
    }
    #expect(try key(of: path) == nil)
  }

  @Test("an older file of the user's swapped into the path is refused")
  func olderFileSwappedIn() throws {
    let folder = try sharedFolder("older")
    let other = try plainFile(folder.appending("notes.txt"), mode: 0o600)
    // Older by a tick of the clock files are stamped with at least, as an older file is.
    FileClock.waitForNextTick()
    let (path, _) = try document(in: folder)
    try swap(path, with: other)
    try expectRefused(path, because: "older file moved into the path")
  }

  @Test("a newer file readable by more users than the document is refused")
  func widerFileSwappedIn() throws {
    let folder = try sharedFolder("wider")
    let (path, _) = try document(in: folder)
    let other = try plainFile(folder.appending("notes.txt"), mode: 0o644)
    try swap(path, with: other)
    try expectRefused(path, because: "readable by more users (mode 644) than the document was (600)")
  }

  @Test("a newer file without bookmarks in a folder others can change is refused")
  func sameModeFileSwappedIn() throws {
    let folder = try sharedFolder("same")
    let (path, _) = try document(in: folder)
    let other = try plainFile(folder.appending("notes.txt"), mode: 0o600)
    try swap(path, with: other)
    try expectRefused(path, because: "is writable by everyone")
  }

  @Test("an editor's save in a shared folder is the document's successor: its bookmarks name the key")
  func editorSaveInSharedFolder() throws {
    let folder = try sharedFolder("shared")
    let (path, bookmark) = try document(in: folder)
    #expect(run("/bin/sed", ["-i", "s/cat/cat/", path.description]).status == 0)
    try expectRestored(path, key: bookmark.keyFingerprint)
    // Recorded as it is now: the repaired file is the document.
    let entry = try #require(escrow.entry(for: bookmark.keyFingerprint))
    #expect(entry.documents.last?.origin == .repaired)
    #expect(entry.documents.last?.inode == (try FileStatus.of(path, followSymlinks: false)).inode)
  }

  @Test("an editor's save of a document without bookmarks, in a folder only the user can change, is repaired")
  func editorSaveInPrivateFolder() throws {
    let folder = try scratch.folder("private")
    let (path, bookmark) = try document(in: folder, bookmarks: false)
    #expect(run("/bin/sed", ["-i", "s/x/x/", path.description]).status == 0)
    try expectRestored(path, key: bookmark.keyFingerprint)
  }

  @Test("a plain save right after docbm's own is its successor")
  func saveRightAfter() throws {
    let folder = try scratch.folder("right-after")
    let (path, bookmark) = try document(in: folder, bookmarks: true)
    let temporary = folder.appending("board.json.new")
    try scratch.write("{\"edited\":true}", to: temporary)
    chmod(temporary.description, 0o600)
    #expect(rename(temporary.description, path.description) == 0)
    #expect(try key(of: path) == nil)
    try expectRestored(path, key: bookmark.keyFingerprint)
  }

  @Test("a file made right after docbm records a document counts as made after it, by the file clock")
  func confirmationAndBirthShareAClock() throws {
    let folder = try scratch.folder("clock")
    let document = try plainFile(folder.appending("board.json"), mode: 0o600)
    // The record docbm keeps when it confirms a document, then at once another file, as a
    // script's next command makes one; many times, so that some fall in the same tick.
    for round in 0..<300 {
      let record = try #require(try EscrowEntry.Document.of(document, origin: .saved))
      let next = try plainFile(folder.appending("next-\(round % 2)"), mode: 0o600)
      let born = try #require(try FileStatus.of(next, followSymlinks: false).birthTime)
      #expect(
        EscrowRule.madeAfter(born, confirmed: record.confirmed), "born \(born), confirmed \(record.confirmed)"
      )
      try scratch.remove(next)
    }
  }

  @Test("the document itself, moved back after a move, is the document: no evidence needed")
  func recordedFileItself() throws {
    let folder = try sharedFolder("itself")
    let (path, bookmark) = try document(in: folder, bookmarks: false)
    // Its key stripped in place (same file): the escrow records this very file.
    #expect(run("/usr/bin/setfattr", ["-x", "user.docbm.key", path.description]).status == 0)
    try expectRestored(path, key: bookmark.keyFingerprint)
  }

  @Test("a copy that carries the key is not recorded; the document moved is followed, its old path dropped")
  func copiesAndMoves() throws {
    let folder = try scratch.folder("moves")
    let (path, bookmark) = try document(in: folder)
    let copy = folder.appending("copy.json")
    #expect(run("/bin/cp", ["-a", path.description, copy.description]).status == 0)
    let checker = DocumentChecker(escrow: escrow)
    #expect(!checker.isUnrecordedMove(checker.check(copy)))
    let moved = folder.appending("renamed.json")
    try scratch.move(path, moved)
    let check = checker.check(moved)
    #expect(checker.isUnrecordedMove(check))
    #expect(checker.recordMoves([check]).isEmpty)
    let paths = try #require(escrow.entry(for: bookmark.keyFingerprint)).documents.map(\.path)
    #expect(paths == [moved])
  }

  @Test(
    "the backup an editor renamed the document to is a copy: a check leaves the record at the document's path"
  )
  func backupIsACopy() throws {
    let folder = try scratch.folder("backup")
    let (path, bookmark) = try document(in: folder)
    // Emacs's save: the document renamed to a backup, a new file written at its path.
    let backup = folder.appending("board.json~")
    try scratch.move(path, backup)
    try scratch.write(try String(contentsOfFile: backup.description, encoding: .utf8), to: path)
    chmod(path.description, 0o600)  // an editor gives the new file the document's mode
    let checker = DocumentChecker(escrow: escrow).loadingEscrow(inside: [folder])
    let checks = [checker.check(backup), checker.check(path)]
    #expect(checks[1].verdict == .keyLost, "\(checks[1].message)")
    #expect(checker.recordMoves(checks).isEmpty)
    #expect(try #require(escrow.entry(for: bookmark.keyFingerprint)).documents.map(\.path) == [path])
    let repair = DocumentRepairer(escrow: escrow).repair(path)
    #expect(repair.action == .restored, "\(repair.message)")
  }

  @Test(
    "a record of the same inode number elsewhere (another filesystem, or a file gone) does not stop a new key",
    arguments: [false, true])
  func inodeNumberAloneIsNotTheDocument(folderDocument: Bool) throws {
    let path =
      folderDocument ? try scratch.folder("fresh/package.board") : try scratch.file("fresh/board.json", "{}")
    let inode = try FileStatus.of(path, followSymlinks: false).inode
    try escrow.deposit(
      DocumentKey.random(),
      record: EscrowEntry.Document(
        path: scratch.path("gone/board.json"), inode: inode, fileHandle: nil, filesystemID: 1,
        origin: .bookmarked, recorded: .now))
    let bookmark = try service.documents(anchoredOn: path).makeBookmark(
      to: try scratch.file("images/cat.png"))
    #expect(try key(of: path) == bookmark.keyFingerprint)
  }
}
