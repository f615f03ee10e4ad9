import DocbmSystem
import DocbmTestSupport
import DocumentBookmarks
import DocumentBookmarksTesting
import Foundation
import Testing

@testable import DocumentBookmarkStore

/// What an app's tests use for a store: a store with nothing to clean up, and reads that
/// fail on demand.
@Suite("Store test doubles")
struct StoreTestDoublesTests {
  @Test("a read fault fails loads and changes with the code a real failure gives, and writes nothing")
  func readFault() async throws {
    let files = try StoreScratch()
    let store = files.store()
    try await store.add(target: try files.scratch.file("a.txt"), key: "a")
    let before = try files.storeBytes()
    let b = try files.scratch.file("b.txt")
    await withStoreReadFault(errno: EIO) {
      #expect(
        await failureCode { () throws(BookmarkStoreError<String>) in _ = try await store.load() } == .ioError)
      #expect(
        await failureCode { () throws(BookmarkStoreError<String>) in try await store.add(target: b, key: "b")
        }
          == .ioError)
    }
    await withStoreReadFault(errno: EACCES) {
      #expect(
        await failureCode { () throws(BookmarkStoreError<String>) in _ = try await store.load() }
          == .permissionDenied)
    }
    #expect(try files.storeBytes() == before)
    // Without the fault, the store reads as it was.
    #expect(try await store.load().map(\.key) == ["a"])
  }

  @Test("a process-wide read fault reaches a store read on another task, only in its folder")
  func processWideReadFault() async throws {
    let files = try StoreScratch()
    let other = try StoreScratch()
    let store = files.store()
    let elsewhere = other.store()
    try await withProcessWideStoreReadFault(errno: EIO, in: files.scratch.path("state")) { () async throws in
      let code = await Task.detached {
        await failureCode { () throws(BookmarkStoreError<String>) in _ = try await store.load() }
      }.value
      #expect(code == .ioError)
      #expect(try await elsewhere.load().isEmpty)
    }
    #expect(try await store.load().isEmpty)
  }

  @Test("a temporary store works as any store and takes its folder with it when released")
  func temporaryStore() async throws {
    let scratch = try Scratch()
    let target = try scratch.file("plan.txt")
    var store: BookmarkStore<String, NoMetadata>? = try .temporary(policy: .recents(limit: 5))
    let folder = store!.path.removingLastComponent
    try await store!.add(target: target, key: "plan")
    try scratch.move(target, scratch.path("moved/plan.txt"))
    #expect(try await store!.resolve("plan").path == scratch.path("moved/plan.txt"))
    #expect(FileManager.default.fileExists(atPath: folder.description))
    #expect(try FileStatus.of(folder, followSymlinks: false).permissions & 0o077 == 0)
    store = nil
    #expect(!FileManager.default.fileExists(atPath: folder.description))
  }
}
