import DocbmSystem
import DocbmTestSupport
import Foundation
import Testing

@testable import DocumentBookmarks

/// A tree check's escrow reads share one read transaction for a while, and end it when
/// asked, so that a writer of the escrow waits for no longer.
@Suite("Escrow reads that share a read transaction")
struct SharedEscrowReadTests {
  @Test("reads share a transaction until it is ended; a write from another connection then goes through")
  func sharedThenEnded() throws {
    let scratch = try Scratch()
    let escrow = KeyEscrow(folder: scratch.path("escrow"))
    let document = try scratch.file("tree/notes.txt", "notes")
    let key = DocumentKey.random()
    try escrow.deposit(key, document: document)
    let checker = DocumentChecker(escrow: escrow, searchBudget: .standard)
      .loadingEscrow(inside: [scratch.path("tree")], sharingReads: true)
    guard case .success(let entry?) = checker.escrowEntry(key.fingerprint) else {
      Issue.record("the escrowed key was not read")
      return
    }
    #expect(entry.key == key)
    let connection = try #require(checker.treeConnection)
    #expect(try connection.readingShared { $0.connection.isInTransaction }.get())
    // A read transaction younger than the length stays; ended, it is gone.
    checker.endSharedEscrowRead(ifOlderThan: .max)
    #expect(try connection.readingShared { $0.connection.isInTransaction }.get())
    checker.endSharedEscrowRead()
    #expect(try !connection.withDatabase { $0.connection.isInTransaction }.get())
    // Another connection's write does not wait for a read that has ended.
    let other = try scratch.file("tree/board.json", "{}")
    let clock = ContinuousClock()
    let written = try clock.measure { try escrow.deposit(DocumentKey.random(), document: other) }
    #expect(written < .seconds(SQLiteDatabase.busyTimeout / 1000), "the write waited \(written)")
    // A checker made without sharing reads opens no transaction of its own.
    let alone = DocumentChecker(escrow: escrow, searchBudget: .standard)
      .loadingEscrow(inside: [scratch.path("tree")])
    _ = alone.escrowEntry(key.fingerprint)
    #expect(try !#require(alone.treeConnection).withDatabase { $0.connection.isInTransaction }.get())
  }
}
