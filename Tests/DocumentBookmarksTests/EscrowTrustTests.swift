import DocbmSystem
import DocbmTestSupport
import Foundation
import Glibc
import Testing

@testable import DocumentBookmarks

/// The attacks on the escrow and on repair (docs/security.md), each run for real: files
/// owned by another user, planted entries, links, oversized entries, stripped copies.
@Suite("Escrow and repair under attack")
struct EscrowTrustTests {
  let scratch: Scratch
  let escrow: KeyEscrow
  let service: BookmarkService

  init() throws {
    (scratch, escrow, service) = try EscrowScratch.make()
  }

  /// A document holding one bookmark (as its text form), saved safely, with its key escrowed.
  private func makeBoard(_ relative: String = "a/board.json") throws -> (FilePath, Bookmark) {
    let path = try scratch.file(relative, "{}")
    let document = service.documents(anchoredOn: path)
    let bookmark = try document.makeBookmark(to: try scratch.file("a/images/cat.png"))
    try document.replaceDocument(with: Data("{\"cat\":\"\(bookmark.text)\"}".utf8))
    return (path, bookmark)
  }

  private func key(of path: FilePath) throws -> KeyFingerprint? {
    try BookmarkService(escrow: nil).documents(anchoredOn: path).keyFingerprint()
  }

  @Test(
    "a file holding a pasted bookmark gets no key: refused under the document's name (the escrow never recorded it), a quotation under another"
  )
  func pastedBookmark() throws {
    let (_, bookmark) = try makeBoard()
    let pasted = try scratch.file("shared/board.json", "notes: \(bookmark.text)\n")
    let before = DocumentChecker(escrow: escrow).check(pasted)
    #expect(before.verdict == .keyLost)
    let repair = DocumentRepairer(escrow: escrow).repair(pasted)
    #expect(repair.action == .refused)
    #expect(repair.refusal == .notRecorded, "\(repair.message)")
    #expect(repair.message.contains("never recorded"))
    #expect(try key(of: pasted) == nil)
    let notes = try scratch.file("shared/notes.json", "notes: \(bookmark.text)\n")
    #expect(DocumentChecker(escrow: escrow).check(notes).verdict == .quotesBookmarks)
    #expect(DocumentRepairer(escrow: escrow).repair(notes).action == .nothingToDo)
    #expect(try key(of: notes) == nil)
  }

  @Test("a copy saved without its key, and a plain cp copy, are refused unless allowed")
  func strippedCopies() throws {
    let (path, bookmark) = try makeBoard()
    let stripped = scratch.path("a/stripped.json")
    try service.documents(anchoredOn: path).saveCopy(
      to: stripped, key: .strip, data: try Data(contentsOf: path.url))
    let copied = scratch.path("a/copied.json")
    #expect(run("/bin/sh", ["-c", "cat '\(path)' > '\(copied)'"]).status == 0)
    for copy in [stripped, copied] {
      #expect(try key(of: copy) == nil)
      let refused = DocumentRepairer(escrow: escrow).repair(copy)
      #expect(refused.refusal == .notRecorded, "\(refused.message)")
      #expect(try key(of: copy) == nil)
      // The user's own copy, said so explicitly: restored, and its bookmark resolves.
      let allowed = DocumentRepairer(escrow: escrow, policy: .init(allowsUnrecordedDocuments: true)).repair(
        copy)
      #expect(allowed.action == .restored, "\(allowed.message)")
      #expect(throws: Never.self) {
        try BookmarkService(escrow: nil).documents(anchoredOn: copy).resolve(bookmark)
      }
    }
  }

  @Test("a document moved, then checked, then saved by sed -i is repairable; unchecked, it is not")
  func movedThenSaved() throws {
    for checksAfterMoving in [true, false] {
      let (path, bookmark) = try makeBoard("a/\(checksAfterMoving)/board.json")
      let moved = scratch.path("b/\(checksAfterMoving)/board.json")
      try scratch.move(path, moved)
      if checksAfterMoving {
        let checker = DocumentChecker(escrow: escrow)
        let check = checker.check(moved)
        #expect(check.verdict == .ok)
        #expect(checker.isUnrecordedMove(check))
        #expect(checker.recordMoves([check]).isEmpty)
        // Recorded now: seeing it again writes nothing.
        #expect(
          !DocumentChecker(escrow: escrow).isUnrecordedMove(DocumentChecker(escrow: escrow).check(moved)))
      }
      #expect(run("/bin/sed", ["-i", "s/cat/cat/", moved.description]).status == 0)
      #expect(try key(of: moved) == nil)
      let repair = DocumentRepairer(escrow: escrow).repair(moved)
      if checksAfterMoving {
        #expect(repair.action == .restored, "\(repair.message)")
        #expect(throws: Never.self) {
          try BookmarkService(escrow: nil).documents(anchoredOn: moved).resolve(bookmark)
        }
      } else {
        #expect(repair.refusal == .notRecorded, "\(repair.message)")
      }
    }
  }

  @Test("a save and a resolve that sees the document moved record it where it is now")
  func savesAndResolvesRecord() throws {
    let (path, bookmark) = try makeBoard()
    let moved = scratch.path("c/board.json")
    try scratch.move(path, moved)
    let resolved = try service.documents(anchoredOn: moved).resolve(bookmark)
    #expect(resolved.staleReasons == [.relativePathChanged])
    let entry = try #require(escrow.entry(for: bookmark.keyFingerprint))
    #expect(entry.documents.contains { $0.path == moved })

    let again = scratch.path("d/board.json")
    try scratch.move(moved, again)
    try service.documents(anchoredOn: again).replaceDocument(
      with: Data("{\"cat\":\"\(bookmark.text)\"}".utf8))
    #expect(try #require(escrow.entry(for: bookmark.keyFingerprint)).documents.contains { $0.path == again })
  }

  @Test("another user's file is never given a key, even when allowed and recorded by path")
  func strangersFile() throws {
    guard Capabilities.isRoot else {
      print("skipped: files of another user need root to make")
      return
    }
    let (path, bookmark) = try makeBoard()
    // The document is deleted and a stranger's file takes its path (a shared folder).
    try scratch.remove(path)
    try scratch.write("{\"cat\":\"\(bookmark.text)\"}", to: path)
    chown(path.description, 65534, 65534)
    for policy in [DocumentRepairer.Policy(), .init(allowsUnrecordedDocuments: true)] {
      let repair = DocumentRepairer(escrow: escrow, policy: policy).repair(path)
      #expect(repair.refusal == .notOwned, "\(repair.message)")
      #expect(repair.message.contains("belongs to user 65534"))
    }
    #expect(try key(of: path) == nil)
  }

  @Test("a new bookmark on a recorded document that lost its key puts that key back, never a new one")
  func lostKeyComesBackOnBookmark() throws {
    let path = try scratch.file("a/board.json", "{}")
    let first = try service.documents(anchoredOn: path).makeBookmark(to: try scratch.file("a/one.png"))
    // Another program's plain save drops the key; the editor's next bookmark restores it.
    #expect(run("/bin/sed", ["-i", "s/x/x/", path.description]).status == 0)
    #expect(try key(of: path) == nil)
    let second = try service.documents(anchoredOn: path).makeBookmark(to: try scratch.file("a/two.png"))
    #expect(second.keyFingerprint == first.keyFingerprint)
    #expect(throws: Never.self) {
      try BookmarkService(escrow: nil).documents(anchoredOn: path).resolve(first)
    }
    // A document the escrow never saw gets a key of its own.
    let fresh = try scratch.file("a/fresh.json", "{}")
    let own = try service.documents(anchoredOn: fresh).makeBookmark(to: try scratch.file("a/one.png"))
    #expect(own.keyFingerprint != first.keyFingerprint)
  }

  @Test("a bookmark pasted from another document names a key repair never puts on this one")
  func pastedKeyNeverGiven() throws {
    let (_, bookmark) = try makeBoard()
    let path = try scratch.file("b/other.json", "{}")
    let own = try service.documents(anchoredOn: path).makeBookmark(to: try scratch.file("b/one.png"))
    #expect(run("/bin/sed", ["-i", "s/x/x/", path.description]).status == 0)
    try scratch.write("{\"pasted\":\"\(bookmark.text)\"}", to: path)
    let named = DocumentRepairer(escrow: escrow).repair(path)
    #expect(named.fingerprint == bookmark.keyFingerprint, "\(named.message)")
    #expect(named.refusal == .notRecorded, "\(named.message)")
    #expect(try key(of: path) == nil)
    // Its own key, which the escrow records for it, is not put back either: the bookmarks in
    // it name another key, and repair follows the bookmarks.
    #expect(own.keyFingerprint != bookmark.keyFingerprint)
  }

  /// Writes an escrow in `folder` by hand, recording `key` for `document` (as an attacker
  /// who could write the folder would plant one).
  private func plant(_ key: DocumentKey, naming document: FilePath, in folder: FilePath) throws {
    try KeyEscrow(folder: folder).deposit(
      key,
      record: EscrowEntry.Document(
        path: document, inode: 1, fileHandle: nil, filesystemID: nil, origin: .bookmarked, recorded: .now))
  }

  @Test("an escrow folder or entry someone else can change is refused by readers and writers")
  func foreignEscrow() throws {
    guard Capabilities.isRoot else {
      print("skipped: files of another user need root to make")
      return
    }
    let victim = try scratch.file("a/victim.json", "{}")
    let strangerKey = DocumentKey.random()
    let cases: [(String, (FilePath) throws -> Void)] = [
      (
        "a folder of another user, mode 0777",
        { folder in
          chown(folder.description, 65534, 65534)
          chmod(folder.description, 0o777)
        }
      ),
      ("a folder of the user's, writable by others", { folder in chmod(folder.description, 0o757) }),
      (
        "a database of another user",
        { folder in chown(folder.appending("escrow.sqlite").description, 65534, 65534) }
      ),
    ]
    for (index, (name, corrupt)) in cases.enumerated() {
      let folder = try scratch.folder("planted\(index)")
      chmod(folder.description, 0o700)
      try plant(strangerKey, naming: victim, in: folder)
      try corrupt(folder)
      let planted = KeyEscrow(folder: folder)
      let checker = DocumentChecker(escrow: planted)
      #expect(!checker.escrowProblems.isEmpty, "\(name)")
      let check = checker.check(victim)
      #expect(check.verdict == .noBookmarks, "\(name): \(check.message)")
      #expect(check.escrowedFingerprint == nil)
      let repair = DocumentRepairer(escrow: planted).repair(victim)
      #expect(repair.action != .restored, "\(name): \(repair.message)")
      #expect(try key(of: victim) == nil, "\(name)")
      // Writers refuse a folder like that too, with a typed error that names the problem.
      guard index < 2 else { continue }
      let other = try scratch.file("a/other\(index).json", "{}")
      #expect(
        throws: DocbmError.self, "\(name)",
        performing: {
          try BookmarkService(escrow: planted).documents(anchoredOn: other).makeBookmark(to: victim)
        })
    }
    let foreign = scratch.path("planted0")
    do {
      try KeyEscrow(folder: foreign).deposit(DocumentKey.random(), document: victim)
      Issue.record("a deposit into a foreign folder succeeded")
    } catch {
      #expect(error.code == .escrowUntrusted)
      #expect(error.message.contains("belongs to user 65534"), "\(error.message)")
    }
  }

  @Test("links are never followed: a linked escrow folder or entry is refused")
  func linkedEscrow() throws {
    let victim = try scratch.file("a/victim.json", "{}")
    let strangerKey = DocumentKey.random()
    // A folder reached through a link.
    let real = try scratch.folder("real-escrow")
    chmod(real.description, 0o700)
    try plant(strangerKey, naming: victim, in: real)
    try scratch.symlink(real.description, at: scratch.path("linked-escrow"))
    let linked = KeyEscrow(folder: scratch.path("linked-escrow"))
    #expect(DocumentChecker(escrow: linked).escrowProblems.first?.reason.contains("symbolic link") == true)
    #expect(DocumentChecker(escrow: linked).check(victim).escrowedFingerprint == nil)
    // A database that is a link to a file elsewhere.
    let folder = try scratch.folder("escrow-with-link")
    chmod(folder.description, 0o700)
    let elsewhere = try scratch.folder("elsewhere")
    chmod(elsewhere.description, 0o700)
    try plant(strangerKey, naming: victim, in: elsewhere)
    try scratch.symlink(
      elsewhere.appending("escrow.sqlite").description, at: folder.appending("escrow.sqlite"))
    let withLink = KeyEscrow(folder: folder)
    #expect(withLink.entries().problems.first?.reason.contains("symbolic link") == true)
    #expect(DocumentChecker(escrow: withLink).check(victim).escrowedFingerprint == nil)
    #expect(DocumentRepairer(escrow: withLink).repair(victim).action != .restored)
    #expect(try key(of: victim) == nil)
  }

  @Test("a damaged database is reported as damaged, not as a missing key, and left as it is")
  func damagedDatabase() throws {
    let (path, _) = try makeBoard()
    let database = escrow.databasePath
    var bytes = try Data(contentsOf: database.url)
    for offset in stride(from: 100, to: bytes.count, by: 7) { bytes[offset] ^= 0x5a }
    try bytes.write(to: database.url)
    #expect(run("/bin/sed", ["-i", "s/cat/cat/", path.description]).status == 0)
    let repair = DocumentRepairer(escrow: escrow).repair(path)
    #expect(repair.refusal == .escrowDamaged, "\(repair.message)")
    #expect(repair.message.contains("damaged"), "\(repair.message)")
    #expect(repair.message.contains(".recover"), "\(repair.message)")
    #expect(try Data(contentsOf: database.url) == bytes)
    #expect(try key(of: path) == nil)
  }

  @Test("a database SQLite's check finds damaged, though readable, is not written by a repair")
  func quietlyDamagedDatabase() throws {
    let (path, _) = try makeBoard()
    let database = escrow.databasePath
    // The header's free-list count made wrong: every row still reads, the check fails.
    var bytes = try Data(contentsOf: database.url)
    bytes.replaceSubrange(36..<40, with: [0, 0, 0, 3])
    try bytes.write(to: database.url)
    #expect(run("/bin/sed", ["-i", "s/cat/cat/", path.description]).status == 0)
    let repair = DocumentRepairer(escrow: escrow).repair(path)
    #expect(repair.action == .restored, "\(repair.message)")
    #expect(repair.message.contains("not recorded in the escrow"), "\(repair.message)")
    #expect(repair.message.contains(".recover"), "\(repair.message)")
    #expect(try Data(contentsOf: database.url) == bytes)
    #expect(try key(of: path) != nil)
  }

  @Test("a repairer checks the database again once someone else changed it after its own write")
  func damagedAfterOwnWrite() throws {
    let (first, _) = try makeBoard()
    let (second, _) = try makeBoard("b/board.json")
    let repairer = DocumentRepairer(escrow: escrow)
    #expect(run("/bin/sed", ["-i", "s/cat/cat/", first.description]).status == 0)
    let restored = repairer.repair(first)
    #expect(restored.action == .restored, "\(restored.message)")
    #expect(!restored.message.contains("not recorded"), "\(restored.message)")
    // Damaged behind the repairer's back, after the write it checked for: it is not
    // written again without a new check.
    let database = escrow.databasePath
    var bytes = try Data(contentsOf: database.url)
    bytes.replaceSubrange(36..<40, with: [0, 0, 0, 3])
    try bytes.write(to: database.url)
    #expect(run("/bin/sed", ["-i", "s/cat/cat/", second.description]).status == 0)
    let repair = repairer.repair(second)
    #expect(repair.action == .restored, "\(repair.message)")
    #expect(repair.message.contains("not recorded in the escrow"), "\(repair.message)")
    #expect(try Data(contentsOf: database.url) == bytes)
  }

  @Test("a FIFO where SQLite's journal goes is refused at once, never opened")
  func fifoJournal() throws {
    let (path, _) = try makeBoard()
    let journal = escrow.databasePath.description + "-journal"
    #expect(mkfifo(journal, 0o600) == 0)
    do {
      try escrow.deposit(DocumentKey.random(), document: path)
      Issue.record("a deposit went on beside a FIFO journal")
    } catch {
      #expect(error.code == .escrowUntrusted, "\(error)")
      #expect(error.message.contains("FIFO"), "\(error.message)")
    }
    let check = DocumentChecker(escrow: escrow).check(path)
    #expect(check.verdict == .ok)
    #expect(DocumentChecker(escrow: escrow).escrowProblems.count == 1)
  }

  @Test("another program's SQLite file in the escrow's place is refused, never changed")
  func foreignDatabase() throws {
    let folder = try scratch.folder("foreign-escrow")
    chmod(folder.description, 0o700)
    let database = folder.appending("escrow.sqlite")
    #expect(
      run("/usr/bin/sqlite3", [database.description, "CREATE TABLE t (x); INSERT INTO t VALUES (1);"]).status
        == 0)
    let before = try Data(contentsOf: database.url)
    let victim = try scratch.file("a/victim.json", "{}")
    do {
      try KeyEscrow(folder: folder).deposit(DocumentKey.random(), document: victim)
      Issue.record("a deposit into another program's database succeeded")
    } catch {
      #expect(error.code == .escrowDamaged)
      #expect(error.message.contains("not docbm's escrow"), "\(error.message)")
    }
    #expect(try Data(contentsOf: database.url) == before)
    #expect(DocumentChecker(escrow: KeyEscrow(folder: folder)).escrowProblems.count == 1)
  }

  @Test("a database whose mode was widened is given mode 0600 again")
  func databaseModeRestored() throws {
    let (path, bookmark) = try makeBoard()
    let database = escrow.databasePath
    chmod(database.description, 0o644)
    let copy = scratch.path("a/copy.json")
    try service.documents(anchoredOn: path).saveCopy(to: copy, data: try Data(contentsOf: path.url))
    #expect(try #require(escrow.entry(for: bookmark.keyFingerprint)).documents.contains { $0.path == copy })
    #expect(try FileStatus.of(database, followSymlinks: false).permissions & 0o777 == 0o600)
  }
}
