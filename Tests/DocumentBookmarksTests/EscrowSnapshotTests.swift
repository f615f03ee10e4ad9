import DocbmTestSupport
import Glibc
import Testing

@testable import DocumentBookmarks

/// A tree check reads the escrow's records of the tree's documents at once, and the keys its
/// documents name once each: what it finds must be what the database gives one look-up at a
/// time, and a document that came from elsewhere is still known.
@Suite("Escrow: the records of a tree read at once")
struct EscrowSnapshotTests {
  @Test("every key's entry through a tree's index is the database's: the same records, in the same order")
  func entriesAgree() throws {
    let (scratch, escrow, _) = try EscrowScratch.make()
    let keys = [DocumentKey.random(), DocumentKey.random()]
    // Records made in one order and confirmed in another, two of them confirmed alike.
    let confirmations: [Int64] = [30, 10, 20, 10, 5]
    for (index, confirmed) in confirmations.enumerated() {
      let record = EscrowEntry.Document(
        path: scratch.path("documents/\(index).json"), inode: UInt64(1000 + index), fileHandle: nil,
        filesystemID: 7, birthTime: Timestamp(seconds: 1, nanoseconds: 0), permissions: 0o600, origin: .saved,
        recorded: Timestamp(seconds: confirmed, nanoseconds: 0))
      try escrow.deposit(keys[index % 2], record: record)
    }
    let checker = DocumentChecker(escrow: escrow)
    let tree = checker.loadingEscrow(inside: [scratch.path("documents/sub")])
    for key in keys {
      let fromDatabase = try #require(try checker.escrowEntry(key.fingerprint).get())
      let fromTree = try #require(try tree.escrowEntry(key.fingerprint).get())
      #expect(fromTree == fromDatabase)
      #expect(fromTree.documents.map(\.confirmed) == fromTree.documents.map(\.confirmed).sorted())
    }
    #expect(try tree.escrowEntry(DocumentKey.random().fingerprint).get() == nil)
  }

  @Test(
    "only the records inside the tree's folders are read: a sibling folder whose name starts alike is not, nor a record taken from another escrow"
  )
  func onlyTheTreesRecords() throws {
    let (scratch, escrow, _) = try EscrowScratch.make()
    let key = DocumentKey.random()
    let paths = ["work/a.json", "work/deep/b.json", "work-old/c.json", "workshop.json", "other/d.json"]
    for (index, path) in paths.enumerated() {
      try escrow.deposit(
        key,
        record: EscrowEntry.Document(
          path: scratch.path(path), inode: UInt64(100 + index), fileHandle: nil, filesystemID: 7,
          birthTime: nil,
          permissions: 0o600, origin: .saved, recorded: .now))
    }
    try escrow.deposit(
      DocumentKey.random(),
      record: EscrowEntry.Document(
        path: scratch.path("work/imported.json"), inode: 200, fileHandle: nil, filesystemID: 7,
        birthTime: nil,
        permissions: 0o600, origin: .transferred, recorded: .now))
    let database = try #require(try escrow.open(create: false))
    let inside = try database.pathRecords(inside: [scratch.path("work")])
    #expect(Set(inside.map(\.path)) == [scratch.path("work/a.json"), scratch.path("work/deep/b.json")])
    #expect(inside.allSatisfy { $0.fingerprint == key.fingerprint })
    #expect(Set(inside.map(\.inode)) == [100, 101])
    #expect(try database.pathRecords(inside: [FilePath("/")]).count == 5)
  }

  @Test("a recorded document moved into the tree from elsewhere is known by the keys it names")
  func documentMovedIn() throws {
    let (scratch, escrow, service) = try EscrowScratch.make()
    let outside = try scratch.file("outside/board.json", "{}")
    let target = try scratch.file("outside/cat.png", "cat")
    let bookmark = try service.documents(anchoredOn: outside).makeBookmark(to: target)
    try scratch.write("{\"image\": \"\(bookmark.text)\"}", to: outside)
    let lost = try scratch.file("outside/lost.json", "{}")
    let lostBookmark = try service.documents(anchoredOn: lost).makeBookmark(to: target)
    try scratch.write("{\"image\": \"\(lostBookmark.text)\"}", to: lost)
    let tree = try scratch.folder("tree")
    // One renamed in with its key; one renamed in, then its key taken off in place.
    try scratch.move(outside, tree.appending("board.json"))
    try scratch.move(lost, tree.appending("lost.json"))
    #expect(
      run("/usr/bin/setfattr", ["-x", "user.docbm.key", tree.appending("lost.json").description]).status == 0)
    var seen: [FilePath: DocumentCheck] = [:]
    let checker = DocumentChecker(escrow: escrow)
    _ = TreeChecker(checker: checker, concurrency: 1).check(tree) { seen[$0.document] = $0 }
    let moved = try #require(seen[tree.appending("board.json")])
    #expect(moved.escrowedFingerprint == bookmark.keyFingerprint)
    #expect(checker.isUnrecordedMove(moved))
    let keyless = try #require(seen[tree.appending("lost.json")])
    #expect(keyless.verdict == .keyLost, "\(keyless.message)")
    #expect(keyless.escrowedFingerprint == lostBookmark.keyFingerprint)
  }
}
