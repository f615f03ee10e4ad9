import DocbmSystem
import DocbmTestSupport
import DocumentBookmarks
import Foundation
import Glibc
import Testing

@testable import DocumentBookmarkStore

@Suite("A store file saved without its key")
struct StoreKeyLossTests {
  let files: StoreScratch
  let escrow: KeyEscrow

  init() throws {
    files = try StoreScratch()
    escrow = KeyEscrow(folder: files.scratch.path("escrow"))
  }

  private func store(escrow: KeyEscrow?) -> BookmarkStore<String, NoMetadata> {
    BookmarkStore(
      file: files.storePath, service: BookmarkService(escrow: escrow), followsOtherProcesses: false,
      followsMounts: false)
  }

  /// Writes the store file's bytes back as `Data.write(options: .atomic)` does: a new file
  /// renamed over it, with the umask's mode and without the key.
  private func saveAtomically() throws {
    let bytes = try Data(contentsOf: files.storePath.url)
    try bytes.write(to: files.storePath.url, options: .atomic)
    #expect(try files.fingerprint() == nil)
  }

  /// The reason of a `keyLost` error, `nil` for any other error.
  private func keyLostReason(_ error: any Error, at path: FilePath) -> String? {
    guard case .keyLost(let place, let reason) = error as? BookmarkStoreError<String>, place == path else {
      return nil
    }
    return reason
  }

  private func mode() throws -> UInt32 {
    var status = stat()
    #expect(stat(files.storePath.description, &status) == 0)
    return UInt32(status.st_mode) & 0o7777
  }

  @Test("an app's atomic write of its store: the store puts the key back, narrows the file and says so")
  func atomicWriteOfTheStore() async throws {
    let store = store(escrow: escrow)
    let a = try files.scratch.file("a.txt")
    try await store.add(target: a, key: "a")
    try await store.add(target: try files.scratch.file("b.txt"), key: "b")
    let keyBefore = try #require(try files.fingerprint())
    let umask = umask(0o022)
    defer { _ = Glibc.umask(umask) }
    try saveAtomically()
    #expect(try mode() == 0o644)
    try files.scratch.move(a, files.scratch.path("a moved.txt"))

    // The next calls go on as if nothing happened: the key is back on the file.
    let again = self.store(escrow: escrow)
    let found = try await again.resolve("a")
    #expect(found.path == files.scratch.path("a moved.txt"))
    try await again.add(target: try files.scratch.file("c.txt"), key: "c")
    #expect(try files.fingerprint() == keyBefore)
    #expect(try mode() == 0o600)
    #expect(DocumentChecker(escrow: escrow).check(files.storePath).verdict == .ok)

    // And it says what it did, once.
    var repairs = again.keyRepairs().makeAsyncIterator()
    let repair = try #require(await repairs.next())
    #expect(repair.report.action == .restored)
    #expect(repair.report.fingerprint == keyBefore)
    #expect(repair.widenedMode == 0o644)
    #expect(repair.description.contains("narrowed to 600"))
    #expect(again.core.keyRepairsMade.count == 1)
  }

  @Test("a store without an escrow that lost its key says so, changes nothing, and reanchor starts it again")
  func noEscrow() async throws {
    let store = store(escrow: nil)
    let a = try files.scratch.file("a.txt")
    let b = try files.scratch.file("b.txt")
    try await store.add(target: a, key: "a")
    try await store.add(target: b, key: "b")
    try await store.setPinned("b", true)
    try saveAtomically()
    try files.scratch.remove(b)

    // No bookmark is made under a new key that the records' bookmarks do not verify with,
    // and no record's status changes for the store's fault.
    let again = self.store(escrow: nil)
    let before = try files.storeBytes()
    for attempt in 0..<3 {
      do {
        switch attempt {
        case 0: try await again.add(target: try files.scratch.file("c.txt"), key: "c")
        case 1: _ = try await again.resolve("a")
        default: try await again.refreshStatuses()
        }
        Issue.record("call \(attempt) went on without the store's key")
      } catch {
        #expect(keyLostReason(error, at: files.storePath)?.contains("no escrow") == true, "\(error)")
      }
    }
    #expect(try files.fingerprint() == nil)
    #expect(try files.storeBytes() == before)

    let cleared = try await again.reanchor()
    #expect(Set(cleared.map(\.key)) == ["a", "b"])
    let records = try await again.load()
    let recordA = try #require(records.first { $0.key == "a" })
    let recordB = try #require(records.first { $0.key == "b" })
    #expect(recordA.hasBookmark && recordA.status == .available)
    #expect(!recordB.hasBookmark && recordB.isPinned && recordB.status.failure == .missing)
    #expect(try await again.resolve("a").path == a)
    #expect(DocumentChecker(escrow: nil).check(files.storePath).verdict == .ok)
    // Nothing is lost a second time.
    #expect(try await again.reanchor().isEmpty)
  }

  @Test("a store file given a new key meanwhile: reanchor bookmarks the records the new key does not verify")
  func newKeyMeanwhile() async throws {
    let store = store(escrow: nil)
    let a = try files.scratch.file("a.txt")
    try await store.add(target: a, key: "a")
    try saveAtomically()
    // Another program gave the file a key of its own (as docbm did before the store looked
    // for its key): the record's bookmark names the old one.
    _ = try BookmarkService(escrow: nil).documents(anchoredOn: files.storePath).makeBookmark(to: a)
    let again = self.store(escrow: nil)
    do {
      _ = try again.core.resolve("a")
      Issue.record("the record resolved with a key its bookmark does not name")
    } catch {
      #expect(error.code == .keyMismatch, "\(error)")
    }
    let cleared = try await again.reanchor()
    #expect(cleared.map(\.key) == ["a"])
    #expect(try await again.resolve("a").path == a)
    #expect(try await again.reanchor().isEmpty)
  }

  @Test("a store whose escrow holds a damaged copy of its key gets a new key when reanchored")
  func reanchorForgetsTheOldRecord() async throws {
    let store = store(escrow: escrow)
    let a = try files.scratch.file("a.txt")
    try await store.add(target: a, key: "a")
    let old = try #require(try files.fingerprint())
    try saveAtomically()
    // The escrow's copy of the key is damaged (it no longer has its fingerprint): repair
    // cannot put it back, while the escrow still records the key at the store's path.
    try SQLiteDatabase(escrow.databasePath).execute("UPDATE keys SET key = zeroblob(32)")

    let again = self.store(escrow: escrow)
    do {
      _ = try await again.resolve("a")
      Issue.record("the record resolved without the store's key")
    } catch {
      #expect(keyLostReason(error, at: files.storePath)?.contains("cannot be used") == true, "\(error)")
    }
    let cleared = try await again.reanchor()
    #expect(cleared.map(\.key) == ["a"])
    let new = try #require(try files.fingerprint())
    #expect(new != old)
    #expect(try await again.resolve("a").path == a)
    #expect(DocumentChecker(escrow: escrow).check(files.storePath).verdict == .ok)
  }
}
