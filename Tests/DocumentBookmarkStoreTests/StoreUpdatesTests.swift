import DocbmTestSupport
import DocumentBookmarks
import Foundation
import Testing

@testable import DocumentBookmarkStore

@Suite("Store updates and snapshots")
struct StoreUpdatesTests {
  let files: StoreScratch

  init() throws { files = try StoreScratch() }

  @Test(
    "updates start with a snapshot, and the snapshot is current before each change arrives",
    .timeLimit(.minutes(1)))
  func snapshotFirst() async throws {
    let store = files.store()
    try await store.add(target: try files.scratch.file("a.txt"), key: "a")
    var updates = store.updates().makeAsyncIterator()
    guard case .snapshot(let records)? = await updates.next() else {
      Issue.record("the first update is not a snapshot")
      return
    }
    #expect(records.map(\.key) == ["a"])
    try await store.add(target: try files.scratch.file("b.txt"), key: "b")
    guard case .changes(let changes)? = await updates.next() else {
      Issue.record("no change after an add")
      return
    }
    guard case .added(let record) = changes.first, changes.count == 1 else {
      Issue.record("changes: \(changes)")
      return
    }
    #expect(record.key == "b")
    #expect(store.snapshot.contains("b"))
    try await store.move("b", to: 0)
    guard case .changes(let reordered)? = await updates.next(), case .reordered(let keys) = reordered.first
    else {
      Issue.record("no reorder")
      return
    }
    #expect(keys == ["b", "a"])
  }

  @Test("another store on the same file sees a change without being asked", .timeLimit(.minutes(1)))
  func followsAnotherWriter() async throws {
    let writer = files.store()
    try await writer.add(target: try files.scratch.file("a.txt"), key: "a")
    let reader = files.store(follows: true)
    try await reader.load()
    let stream = reader.updates()
    let firstChange = Task { () -> [StoreChange<String, NoMetadata>]? in
      for await update in stream {
        if case .changes(let changes) = update { return changes }
      }
      return nil
    }
    // The reader watches the store's folder from its load on, and its stream holds what
    // comes before it is read: nothing to wait for before the change.
    try await writer.add(target: try files.scratch.file("b.txt"), key: "b")
    // A time limit cancels the test, and with it the reader.
    let changes = await withTaskCancellationHandler {
      await firstChange.value
    } onCancel: {
      firstChange.cancel()
    }
    guard let changes, case .added(let record) = changes.first else {
      Issue.record("the other store's updates ended without the change")
      return
    }
    #expect(record.key == "b")
    #expect(reader.snapshot.keys == ["a", "b"])
  }

  @Test("a change that alters nothing writes nothing and tells nobody")
  func noOpChange() async throws {
    let store = files.store()
    try await store.add(target: try files.scratch.file("a.txt"), key: "a")
    try await store.setPinned("a", true)
    var updates = store.updates().makeAsyncIterator()
    _ = await updates.next()
    let version = files.storeVersion()
    try await store.setPinned("a", true)
    #expect(files.storeVersion() == version)
    try await store.setPinned("a", false)
    guard case .changes(let changes)? = await updates.next(), case .updated(let record) = changes.first else {
      Issue.record("the unpin was not reported first")
      return
    }
    #expect(!record.isPinned)
  }
}
