import DocbmTestSupport
import Testing

@testable import DocumentBookmarks

/// A tree check reads the whole escrow once and looks keys up in memory: what it finds must
/// be what the database gives one look-up at a time.
@Suite("Escrow: the whole escrow read at once")
struct EscrowSnapshotTests {
  @Test("every key's entry from memory is the database's: the same records, in the same order")
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
    let whole = checker.loadingWholeEscrow()
    for key in keys {
      let fromDatabase = try #require(try checker.escrowEntry(key.fingerprint).get())
      let fromMemory = try #require(try whole.escrowEntry(key.fingerprint).get())
      #expect(fromMemory == fromDatabase)
      #expect(fromMemory.documents.map(\.confirmed) == fromMemory.documents.map(\.confirmed).sorted())
    }
    #expect(try whole.escrowEntry(DocumentKey.random().fingerprint).get() == nil)
  }
}
