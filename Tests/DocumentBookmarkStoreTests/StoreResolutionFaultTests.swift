import DocbmTestSupport
import DocumentBookmarks
import DocumentBookmarksTesting
import Testing

@testable import DocumentBookmarkStore

@Suite("Store resolves under resolution faults")
struct StoreResolutionFaultTests {
  @Test("a task's resolution fault reaches the store's resolves, which run on docbm's threads")
  func storeResolve() async throws {
    let files = try StoreScratch()
    let store = files.store()
    try await store.add(target: try files.scratch.file("plan.txt"), key: "plan")
    await withResolutionFault(.volumeUnavailable) {
      do {
        _ = try await store.resolve("plan")
        Issue.record("the resolve succeeded under the fault")
      } catch {
        #expect((error as? BookmarkStoreError<String>)?.code == .volumeUnavailable, "\(error)")
      }
    }
    let failures = try await withResolutionFault(.missing) { try await store.refreshStatuses() }
    #expect(failures["plan"]?.code == .missing)
    #expect(try await store.resolve("plan").record.key == "plan")
  }
}
