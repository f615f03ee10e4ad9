import DocbmTestSupport
import DocumentBookmarks
import DocumentBookmarksTesting
import Foundation
import Testing

@testable import DocumentBookmarkStore

@Suite("Store saves that fail")
struct StoreSaveFailureTests {
  let files: StoreScratch

  init() throws { files = try StoreScratch() }

  @Test(
    "a full disk during a change: the error says so, nothing is evicted, memory and file stay as they were",
    .timeLimit(.minutes(1)))
  func diskFull() async throws {
    let store = files.store(StorePolicy(limit: 2))
    try await store.add(target: try files.scratch.file("a.txt"), key: "a")
    try await store.add(target: try files.scratch.file("b.txt"), key: "b")
    let evictions = store.evictions()
    let before = try files.storeBytes()
    let fingerprint = try files.fingerprint()
    let target = try files.scratch.file("c.txt")
    try await files.withFault(.diskFull()) {
      do {
        try await store.add(target: target, key: "c")
        Issue.record("the add succeeded on a full disk")
      } catch {
        #expect((error as? BookmarkStoreError<String>)?.code == .noSpace, "\(error)")
      }
    }
    #expect(store.snapshot.keys == ["a", "b"])
    #expect(try files.storeBytes() == before)
    #expect(try files.fingerprint() == fingerprint)
    // Nothing was evicted: the next eviction reported is the one a successful add makes.
    try await store.add(target: target, key: "c")
    var iterator = evictions.makeAsyncIterator()
    let first = await iterator.next()
    #expect(first?.record.key == "a")
  }
}
