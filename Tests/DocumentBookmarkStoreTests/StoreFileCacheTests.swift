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
    try FileStatus.of(files.storePath, followSymlinks: true).version
  }

  @Test(
    "after a change, the version is known by its signature; another writer's journal line is read from where this store left off; a whole save is not"
  )
  func knowsItsOwnVersion() async throws {
    let store = files.store()
    try await store.add(target: try files.scratch.file("a.txt"), key: "a")
    let core = store.core
    #expect(core.file.cache.contents(for: try signature())?.contents.records.map(\.key) == ["a"])
    _ = try core.setPinned("a", true)
    let seen = try #require(core.file.cache.contents(for: try signature()))
    #expect(seen.contents.records.first?.isPinned == true)
    let position = try #require(seen.journal)
    // Another store on the same file appends a line: the file is the same version, and the
    // first store reads only the journal's new line.
    let other = files.store()
    try await other.add(target: try files.scratch.file("b.txt"), key: "b")
    #expect(try core.load().map(\.key) == ["a", "b"])
    let after = try #require(core.file.cache.contents(for: try signature())?.journal)
    #expect(after.inode == position.inode && after.length > position.length)
    // A whole save gives the file a new inode: the cached version no longer applies.
    let before = try signature()
    try await other.compact()
    #expect(try signature() != before)
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
