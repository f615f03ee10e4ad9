import DocbmTestSupport
import DocumentBookmarks
import Foundation
import Testing

@testable import DocumentBookmarkStore

@Suite("Store eviction")
struct StoreEvictionTests {
  let files: StoreScratch

  init() throws { files = try StoreScratch() }

  /// A store with a limit of 3 that evicts gone records first, holding a, b, c (a used last).
  private func fullStore(_ policy: StorePolicy = StorePolicy(limit: 3, eviction: .goneFirst)) async throws
    -> BookmarkStore<String, NoMetadata>
  {
    let store = files.store(policy)
    for name in ["a", "b", "c"] {
      try await store.add(target: try files.scratch.file("\(name).txt"), key: name)
    }
    try await store.markUsed("a")
    return store
  }

  @Test("gone records are evicted before recent ones", .timeLimit(.minutes(1)))
  func goneFirst() async throws {
    let store = try await fullStore()
    try files.scratch.remove(files.scratch.path("c.txt"))
    _ = try? await store.resolve("c")
    let evictions = store.evictions()
    try await store.add(target: try files.scratch.file("d.txt"), key: "d")
    try #require(store.snapshot.keys == ["a", "b", "d"])
    var iterator = evictions.makeAsyncIterator()
    let eviction = try #require(await iterator.next())
    #expect(eviction.record.key == "c" && eviction.reason == .limit)
  }

  @Test("then the least recently used")
  func thenLeastRecentlyUsed() async throws {
    let store = try await fullStore()
    try await store.add(target: try files.scratch.file("d.txt"), key: "d")
    // b and c were never used; b was added first.
    #expect(store.snapshot.keys == ["a", "c", "d"])
  }

  @Test("an item in the Trash is gone")
  func trashIsGone() async throws {
    let store = try await fullStore()
    let trash = files.scratch.path("mnt/.Trash-1000/files")
    try files.scratch.makeFolder(trash)
    try files.scratch.move(files.scratch.path("a.txt"), trash.appending("a.txt"))
    let resolved = try await store.resolve("a")
    #expect(resolved.record.isInTrash && resolved.record.isGone)
    try await store.add(target: try files.scratch.file("d.txt"), key: "d")
    #expect(!store.snapshot.contains("a"))
  }

  @Test("pinned records stay while they exist, and go when they are gone")
  func pinned() async throws {
    let store = try await fullStore(StorePolicy(limit: 3, eviction: .storeOrder))
    try await store.setPinned("a", true)
    try await store.add(target: try files.scratch.file("d.txt"), key: "d")
    #expect(store.snapshot.keys == ["a", "c", "d"])
    try files.scratch.remove(files.scratch.path("a.txt"))
    _ = try? await store.resolve("a")
    try await store.add(target: try files.scratch.file("e.txt"), key: "e")
    #expect(store.snapshot.keys == ["c", "d", "e"])
  }

  @Test("a target on an unmounted filesystem, or a lost key, is not gone")
  func unavailableIsNotGone() async throws {
    for code in [DocbmError.Code.volumeUnavailable, .keyMissing, .permissionDenied, .ioError] {
      #expect(
        !StoreRecord<String, NoMetadata>.isGone(status: .unavailable(code, since: .now), inTrash: false))
    }
    for code in [DocbmError.Code.missing, .corrupt, .unsupportedVersion] {
      #expect(StoreRecord<String, NoMetadata>.isGone(status: .unavailable(code, since: .now), inTrash: false))
    }
  }

  @Test("a store whose records are all protected grows past its limit")
  func allProtectedGrows() async throws {
    let store = try await fullStore()
    for key in ["a", "b", "c"] { try await store.setPinned(key, true) }
    try await store.add(target: try files.scratch.file("d.txt"), key: "d")
    #expect(store.snapshot.count == 4)
  }

  @Test("a missing path-only record is gone, and goes first")
  func pathOnlyMissingIsGone() async throws {
    let store = files.store(StorePolicy(limit: 2, eviction: .goneFirst))
    try await store.add(pathOnly: files.scratch.path("never.txt"), key: "never")
    try await store.add(target: try files.scratch.file("b.txt"), key: "b")
    try await store.refreshStatuses()
    try await store.add(target: try files.scratch.file("c.txt"), key: "c")
    #expect(store.snapshot.keys == ["b", "c"])
  }

  @Test("a most-recently-used store puts the last used first and evicts from the end")
  func recents() async throws {
    let store = files.store(.recents(limit: 2))
    try await store.add(target: try files.scratch.file("a.txt"), key: "a")
    try await store.add(target: try files.scratch.file("b.txt"), key: "b")
    #expect(store.snapshot.keys == ["b", "a"])
    // Adding a again (a duplicate) uses it: first, and b goes when c comes.
    let again = try await store.add(target: files.scratch.path("a.txt"), key: "a-again")
    #expect(again.key == "a")
    #expect(store.snapshot.keys == ["a", "b"])
    try await store.add(target: try files.scratch.file("c.txt"), key: "c")
    #expect(store.snapshot.keys == ["c", "a"])
  }

  @Test("forget(where:) removes every match in one save; matching nothing writes nothing")
  func forgetWhere() async throws {
    let store = try await fullStore()
    let removed = try await store.forget { $0.key != "b" }
    #expect(removed.map(\.key).sorted() == ["a", "c"])
    #expect(store.snapshot.keys == ["b"])
    let version = files.storeVersion()
    #expect(try await store.forget { _ in false }.isEmpty)
    #expect(files.storeVersion() == version)
  }
}
