import DocbmTestSupport
import DocumentBookmarks
import Foundation
import Testing

@testable import DocumentBookmarkStore

@Suite("A record copied into another store")
struct StoreCopyTests {
  @Test("the copy resolves in its new store, followed to where the target is now, pin and metadata kept")
  func copied() async throws {
    let files = try StoreScratch()
    let projects = BookmarkStore<String, [String: String]>(
      file: files.storePath, service: BookmarkService(escrow: nil))
    let archive = BookmarkStore<String, [String: String]>(
      file: StoreScratch(sharing: files, name: "archive.json").storePath,
      service: BookmarkService(escrow: nil))
    let plan = try files.scratch.file("work/plan.txt")
    try await projects.add(target: plan, key: "plan", metadata: ["colour": "blue"])
    let pinned = try await projects.setPinned("plan", true)
    try files.scratch.move(files.scratch.path("work"), files.scratch.path("done"))
    let moved = files.scratch.path("done/plan.txt")

    // The bookmark itself is the first store's: the other cannot resolve it.
    await #expect(throws: BookmarkStoreError<String>.self) {
      try await archive.add(bookmark: pinned.bookmark!, key: "plan", metadata: [:])
    }
    let copy = try await archive.add(copyOf: pinned, from: projects)
    #expect(copy.lastKnownPath == moved)
    #expect(copy.isPinned && copy.metadata == ["colour": "blue"] && copy.createdAt == pinned.createdAt)
    #expect(copy.bookmark != pinned.bookmark)
    let resolved = try await archive.resolve("plan")
    #expect(resolved.path == moved && resolved.resolution?.isStale == false)
    // The first store keeps its record, followed by the resolve.
    #expect(projects.records.first?.lastKnownPath == moved)
  }

  @Test("a target the first store cannot find is not copied; a path-only record is copied as one")
  func notFoundAndPathOnly() async throws {
    let files = try StoreScratch()
    let projects = files.store()
    let archive = StoreScratch(sharing: files, name: "archive.json").store()
    let gone = try files.scratch.file("gone.txt")
    let record = try await projects.add(target: gone, key: "gone")
    try files.scratch.remove(gone)
    #expect(
      await failureCode { () throws(BookmarkStoreError<String>) in
        try await archive.add(copyOf: record, from: projects)
      }
        == .missing)
    #expect(try await archive.load().isEmpty)

    let draft = try await projects.add(pathOnly: files.scratch.path("later/draft.txt"), key: "draft")
    let copy = try await archive.add(copyOf: draft, from: projects)
    #expect(!copy.hasBookmark && copy.lastKnownPath == files.scratch.path("later/draft.txt"))

    await #expect(throws: BookmarkStoreError<String>.self) {
      try await archive.add(copyOf: draft, from: StoreScratch(sharing: files, name: "empty.json").store())
    }
  }
}
