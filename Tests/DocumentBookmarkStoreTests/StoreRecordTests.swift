import DocbmTestSupport
import DocumentBookmarks
import Foundation
import Testing

@testable import DocumentBookmarkStore

@Suite("Store records: add, resolve, status")
struct StoreRecordTests {
  let files: StoreScratch

  init() throws { files = try StoreScratch() }

  @Test("relink takes the records under the old folder to the same place under the new, in one save")
  func relink() async throws {
    let store = files.store()
    let inside = try files.scratch.file("photos/2025/a.jpg", "a")
    let replaced = try files.scratch.file("photos/2025/b.jpg", "b")
    let outside = try files.scratch.file("notes/plan.md", "plan")
    try await store.add(target: inside, key: "a")
    try await store.add(target: replaced, key: "b")
    let kept = try await store.add(target: outside, key: "plan")
    try files.scratch.move(files.scratch.path("photos"), files.scratch.path("archive/photos"))
    try files.scratch.replaceAtomically(files.scratch.path("archive/photos/2025/b.jpg"), with: "another b")
    let results = try await store.relink(
      from: files.scratch.path("photos"), to: files.scratch.path("archive/photos"))
    #expect(Set(results.keys) == ["a", "b"])
    #expect(results["a"]?.refreshed != nil)
    guard case .notTheTarget = results["b"]?.outcome else {
      Issue.record("\(String(describing: results["b"]))")
      return
    }
    let reread = BookmarkStore<String, NoMetadata>(
      file: files.storePath, service: BookmarkService(escrow: nil), followsOtherProcesses: false)
    let records = Dictionary(uniqueKeysWithValues: try await reread.load().map { ($0.key, $0) })
    #expect(records["a"]?.lastKnownPath == files.scratch.path("archive/photos/2025/a.jpg"))
    #expect(records["a"]?.bookmark == results["a"]?.refreshed)
    #expect(records["b"]?.lastKnownPath == replaced)
    #expect(records["plan"]?.bookmark == kept.bookmark)
  }

  @Test("a moved target resolves by key, and the record keeps the refreshed bookmark")
  func moved() async throws {
    let store = files.store()
    let target = try files.scratch.file("notes/plan.md")
    let added = try await store.add(target: target, key: "plan")
    #expect(added.status == .available && added.hasBookmark)
    let moved = files.scratch.path("archive/plan-2026.md")
    try files.scratch.makeParents(of: moved)
    try files.scratch.move(target, moved)
    let resolved = try await store.resolve("plan")
    #expect(resolved.path == moved)
    #expect(resolved.record.key == "plan")
    #expect(resolved.record.lastKnownPath == moved)
    #expect(resolved.record.status == .available)
    #expect(resolved.record.refreshedAt != nil)
    #expect(resolved.record.bookmark != added.bookmark)
    // The refreshed bookmark is what the file holds, for every process.
    let reread = BookmarkStore<String, NoMetadata>(
      file: files.storePath, service: BookmarkService(escrow: nil), followsOtherProcesses: false)
    let records = try await reread.load()
    #expect(records.first?.bookmark == resolved.record.bookmark)
    #expect(records.first?.lastKnownPath == moved)
    // Resolving again finds it unmoved and writes nothing.
    let version = files.storeVersion()
    _ = try await store.resolve("plan")
    #expect(files.storeVersion() == version)
  }

  @Test("a deleted target makes the record unavailable (missing); the same failure again writes nothing")
  func deleted() async throws {
    let store = files.store()
    let target = try files.scratch.file("notes/plan.md")
    try await store.add(target: target, key: "plan")
    try files.scratch.remove(target)
    await #expect(throws: BookmarkStoreError<String>.self) { try await store.resolve("plan") }
    let record = try #require(store.snapshot["plan"])
    guard case .unavailable(.missing, let since) = record.status else {
      Issue.record("status is \(record.status)")
      return
    }
    #expect(record.isGone)
    let version = files.storeVersion()
    do {
      _ = try await store.resolve("plan")
      Issue.record("resolved a deleted target")
    } catch {
      #expect(error.code == .missing)
    }
    #expect(files.storeVersion() == version, "a repeated failure rewrote the store")
    #expect(store.snapshot["plan"]?.status == .unavailable(.missing, since: since))
  }

  @Test(
    "with dropMissing, a missing target's record is evicted and reported; forgetting is not an eviction",
    .timeLimit(.minutes(1)))
  func dropMissing() async throws {
    let store = files.store(StorePolicy(failureHandling: .dropMissing))
    let evictions = store.evictions()
    let kept = try files.scratch.file("kept.txt")
    let doomed = try files.scratch.file("doomed.txt")
    try await store.add(target: kept, key: "kept")
    try await store.add(target: doomed, key: "doomed")
    _ = try await store.forget("kept")
    try files.scratch.remove(doomed)
    _ = try? await store.resolve("doomed")
    // Without the eviction, waiting for its report would never end.
    try #require(store.snapshot.keys.isEmpty)
    var iterator = evictions.makeAsyncIterator()
    let eviction = try #require(await iterator.next())
    #expect(eviction.record.key == "doomed")
    #expect(eviction.reason == .failure(.missing))
  }

  @Test("a path-only record gets its bookmark when refreshed; a missing one is gone")
  func pathOnly() async throws {
    let store = files.store()
    let present = try files.scratch.file("present.txt")
    let absent = files.scratch.path("absent.txt")
    let first = try await store.add(pathOnly: present, key: "present")
    try await store.add(pathOnly: absent, key: "absent")
    #expect(!first.hasBookmark && first.status == .unknown)
    let failures = try await store.refreshStatuses()
    #expect(failures.keys.sorted() == ["absent"])
    #expect(failures["absent"]?.code == .missing)
    let now = store.snapshot
    #expect(now["present"]?.hasBookmark == true)
    #expect(now["present"]?.status == .available)
    #expect(now["absent"]?.hasBookmark == false)
    #expect(now["absent"]?.isGone == true)
    // With its bookmark, the record now follows a move.
    let moved = files.scratch.path("moved.txt")
    try files.scratch.move(present, moved)
    #expect(try await store.resolve("present").path == moved)
  }

  @Test("a duplicate is found by identity even after a rename: reject, return existing, allow")
  func duplicates() async throws {
    let target = try files.scratch.file("a.txt")
    let rejecting = files.store()
    try await rejecting.add(target: target, key: "first")
    let renamed = files.scratch.path("b.txt")
    try files.scratch.move(target, renamed)
    do {
      try await rejecting.add(target: renamed, key: "second")
      Issue.record("a renamed duplicate was added")
    } catch {
      #expect(error == .duplicate(of: "first"))
    }
    let returning = files.store(StorePolicy(duplicates: .returnExisting))
    let existing = try await returning.add(target: renamed, key: "third")
    #expect(existing.key == "first")
    #expect(existing.lastUsedAt != nil)
    let allowing = files.store(StorePolicy(duplicates: .allow))
    try await allowing.add(target: renamed, key: "fourth")
    #expect(allowing.snapshot.keys == ["first", "fourth"])
  }

  @Test("re-adding a key keeps its pin and creation date")
  func reAddKeepsPin() async throws {
    let store = files.store()
    let first = try await store.add(target: try files.scratch.file("a.txt"), key: "k")
    try await store.setPinned("k", true)
    let again = try await store.add(target: try files.scratch.file("b.txt"), key: "k")
    #expect(again.isPinned)
    #expect(again.createdAt == first.createdAt)
    #expect(again.lastKnownPath == files.scratch.path("b.txt"))
  }

  @Test("key(matching:) finds a moved target by identity, and a path-only record by path")
  func keyMatching() async throws {
    let store = files.store()
    let target = try files.scratch.file("a.txt")
    try await store.add(target: target, key: "a")
    let moved = files.scratch.path("z.txt")
    try files.scratch.move(target, moved)
    #expect(try await store.key(matching: moved) == "a")
    let typed = files.scratch.path("later.txt")
    try await store.add(pathOnly: typed, key: "later")
    #expect(try await store.key(matching: typed) == "later")
    #expect(try await store.key(matching: files.scratch.path("nothing.txt")) == nil)
  }

  @Test("every save keeps the store file's key")
  func keyKept() async throws {
    let store = files.store()
    try await store.add(target: try files.scratch.file("a.txt"), key: "a")
    let fingerprint = try #require(try files.fingerprint())
    for index in 0..<5 {
      try await store.add(target: try files.scratch.file("f\(index).txt"), key: "f\(index)")
      try await store.setPinned("a", index % 2 == 0)
    }
    _ = try await store.forget("f1")
    #expect(try files.fingerprint() == fingerprint)
    // And the store file checks ok.
    let check = DocumentChecker(escrow: nil).check(files.storePath)
    #expect(check.verdict == .ok)
  }

  @Test("50 concurrent resolutions of one key share one")
  func sharedResolution() async throws {
    let store = files.store()
    try await store.add(target: try files.scratch.file("a.txt"), key: "a")
    let before = store.core.resolutionCount
    try await withThrowingTaskGroup(of: FilePath.self) { group in
      for _ in 0..<50 { group.addTask { try await store.resolve("a").path } }
      for try await path in group { #expect(path == files.scratch.path("a.txt")) }
    }
    let count = store.core.resolutionCount - before
    #expect(count >= 1 && count < 50, "\(count) resolutions for 50 concurrent calls")
  }

  @Test("a forget during a resolution is not undone by the resolution's commit")
  func forgetDuringResolve() async throws {
    let store = files.store()
    let target = try files.scratch.file("a.txt")
    try await store.add(target: target, key: "a")
    try files.scratch.move(target, files.scratch.path("b.txt"))
    // The resolution was found against the record as it was; the record is forgotten
    // before it commits (another process could do this at any time).
    let core = store.core
    let record = try #require(core.snapshot["a"])
    let outcome = core.find(record, on: try core.anchor())
    _ = try core.forget(["a"])
    #expect(throws: BookmarkStoreError<String>.notFound("a")) {
      try core.commit(outcome)
    }
    #expect(
      try BookmarkStore<String, NoMetadata>(
        file: files.storePath, service: BookmarkService(escrow: nil), followsOtherProcesses: false
      ).core.load()
        .isEmpty)
  }
}
