import DocbmTestSupport
import DocumentBookmarks
import Foundation
import Testing

@testable import DocumentBookmarkStore

@Suite("Store file cache")
struct StoreFileCacheTests {
  let files: StoreScratch

  init() throws { files = try StoreScratch() }

  private func signature() throws -> StoreFileCache<String, NoMetadata>.Signature {
    StoreFileCache<String, NoMetadata>.Signature(try FileStatus.of(files.storePath, followSymlinks: true))
  }

  @Test("after a save, the version written is known by its signature; another writer's save is not")
  func knowsItsOwnVersion() async throws {
    let store = files.store()
    try await store.add(target: try files.scratch.file("a.txt"), key: "a")
    let core = store.core
    #expect(core.file.cache.contents(for: try signature())?.records.map(\.key) == ["a"])
    _ = try core.setPinned("a", true)
    #expect(core.file.cache.contents(for: try signature())?.records.first?.isPinned == true)
    // Another store on the same file saves: a new inode, so the first store reads it again.
    let other = files.store()
    try await other.add(target: try files.scratch.file("b.txt"), key: "b")
    #expect(core.file.cache.contents(for: try signature()) == nil)
    #expect(try core.load().map(\.key) == ["a", "b"])
    // A write in place (same inode, new times) is not taken for the cached version either.
    let handle = try FileHandle(forWritingTo: files.storePath.url)
    try handle.seekToEnd()
    try handle.write(contentsOf: Data(" ".utf8))
    try handle.close()
    #expect(core.file.cache.contents(for: try signature()) == nil)
  }
}
