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

/// Which of the patterns catches what `resolve` throws, through the store's typed error.
private func caught(_ store: BookmarkStore<String, NoMetadata>, _ key: String) async -> String {
  do {
    _ = try await store.resolve(key)
    return "nothing"
  } catch DocbmError.code(.volumeUnavailable) {
    return "volumeUnavailable"
  } catch DocbmError.code(.missing, .notFound) {
    return "missing or notFound"
  } catch {
    return "\(error)"
  }
}

@Suite("One error pattern for the library and the store")
struct StoreErrorPatternTests {
  @Test("catch DocbmError.code(...) catches a store's error from a docbm call, and not its own")
  func codePattern() async throws {
    let files = try StoreScratch()
    let store = files.store()
    let plan = try files.scratch.file("plan.txt")
    try await store.add(target: plan, key: "plan")
    try files.scratch.remove(plan)
    #expect(await caught(store, "plan") == "missing or notFound")
    // A store error of its own (no such key) carries no docbm error: the pattern does not
    // match it.
    #expect(await caught(store, "nothing") == BookmarkStoreError<String>.notFound("nothing").description)
  }
}

@Suite("Made-up mount events")
struct MadeUpMountEventTests {
  @Test("a store follows mount events an app's test makes: unavailable on unmount, found again on mount")
  func unmountAndMount() async throws {
    let files = try StoreScratch()
    let store = BookmarkStore<String, NoMetadata>(
      file: files.storePath, service: BookmarkService(escrow: nil), followsOtherProcesses: false,
      followsMounts: false)
    let cat = try files.scratch.file("Photos/cat.png")
    try await store.add(target: cat, key: "cat")
    let disk = try #require(MountInfo.holding(cat))
    #expect(disk.mountPoint.isAbsolute)

    let (unmounts, unmount) = AsyncStream<MountEvent>.makeStream()
    unmount.yield(.unmounted(disk))
    unmount.finish()
    await store.refreshStatuses(on: unmounts)
    #expect(store.records.first?.status.failure == .volumeUnavailable)

    let (mounts, mounted) = AsyncStream<MountEvent>.makeStream()
    mounted.yield(.mounted(disk))
    mounted.finish()
    await store.refreshStatuses(on: mounts)
    #expect(store.records.first?.status == .available)

    // A made-up mount elsewhere touches nothing.
    let (others, other) = AsyncStream<MountEvent>.makeStream()
    other.yield(.unmounted(MountInfo(mountPoint: FilePath("/media/nobody/stick"), fileSystemType: "vfat")))
    other.finish()
    await store.refreshStatuses(on: others)
    #expect(store.records.first?.status == .available)
  }
}
