import DocbmTestSupport
import DocumentBookmarks
import Foundation
import Glibc
import Testing

@testable import DocumentBookmarkStore

@Suite("Store files someone else could have written")
struct StoreTrustTests {
  let files: StoreScratch

  init() throws { files = try StoreScratch() }

  private func isUntrusted(_ error: BookmarkStoreError<String>) -> Bool {
    if case .untrusted = error { true } else { false }
  }

  @Test(
    "a store file of another user is neither read nor written",
    .enabled(if: Capabilities.isRoot, "giving a store file to another user needs root"))
  func anotherUsersStore() async throws {
    let store = files.store()
    try await store.add(target: try files.scratch.file("a.txt"), key: "a")
    #expect(chown(files.storePath.description, 65534, 65534) == 0)
    let before = try files.storeBytes()
    let other = files.store()
    do {
      try await other.load()
      Issue.record("another user's store file was read")
    } catch {
      #expect(isUntrusted(error), "\(error)")
    }
    do {
      try await other.add(target: try files.scratch.file("b.txt"), key: "b")
      Issue.record("another user's store file was written")
    } catch {
      guard let error = error as? BookmarkStoreError<String> else { throw error }
      #expect(isUntrusted(error), "\(error)")
    }
    #expect(try files.storeBytes() == before)
  }

  @Test("a store file reached through symbolic links is one store: one journal, one lock, nothing lost")
  func linkedStoreFile() async throws {
    // As a dotfile manager links single files: two links in a row, one relative, one absolute.
    let real = files.scratch.path("dotfiles/store.json")
    try files.scratch.makeParents(of: real)
    try files.scratch.folder("config")
    let link = files.scratch.path("config/store.json")
    try files.scratch.symlink("../dotfiles/middle.json", at: link)
    try files.scratch.symlink(real.description, at: files.scratch.path("dotfiles/middle.json"))

    let throughLink = BookmarkStore<String, NoMetadata>(file: link, followsOtherProcesses: false)
    let direct = BookmarkStore<String, NoMetadata>(file: real, followsOtherProcesses: false)
    #expect(throughLink.path == direct.path)
    #expect(throughLink.path == real)
    try await throughLink.add(target: try files.scratch.file("a.txt"), key: "a")
    try await direct.add(target: try files.scratch.file("b.txt"), key: "b")
    try await throughLink.add(target: try files.scratch.file("c.txt"), key: "c")
    try await direct.compact()
    try await direct.add(target: try files.scratch.file("d.txt"), key: "d")

    for store in [
      BookmarkStore<String, NoMetadata>(file: link, followsOtherProcesses: false),
      BookmarkStore<String, NoMetadata>(file: real, followsOtherProcesses: false),
    ] {
      #expect(try await store.load().map(\.key).sorted() == ["a", "b", "c", "d"])
    }
    // The links are still links, and nothing of the store lies beside them.
    #expect(try FileStatus.of(link, followSymlinks: false).kind == .symbolicLink)
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: files.scratch.path("config").description) == [
        "store.json"
      ])
  }

  @Test("a store file others may write is not trusted")
  func writableByOthers() async throws {
    let store = files.store()
    try await store.add(target: try files.scratch.file("a.txt"), key: "a")
    #expect(chmod(files.storePath.description, 0o666) == 0)
    do {
      try await files.store().load()
      Issue.record("a store file anyone may write was read")
    } catch {
      #expect(isUntrusted(error), "\(error)")
    }
  }

  @Test(
    "a planted last good copy is not restored over a damaged store",
    .enabled(if: Capabilities.isRoot, "giving a last good copy to another user needs root"))
  func plantedLastGood() async throws {
    let store = files.store()
    try await store.add(target: try files.scratch.file("a.txt"), key: "a")
    // Someone else's "last good copy", and a damaged store file.
    #expect(chown((files.storePath.description + ".last-good"), 65534, 65534) == 0)
    try files.scratch.write("{\"format\": \"docbm-st", to: files.storePath)
    do {
      try await files.store().load()
      Issue.record("a damaged store was restored from another user's copy")
    } catch {
      guard case .corrupt = error else {
        Issue.record("\(error)")
        return
      }
    }
    #expect(String(decoding: try files.storeBytes(), as: UTF8.self) == "{\"format\": \"docbm-st")
  }

  @Test(
    "a damaged store in a folder anyone may write is not restored from its last good copy; in a sticky one it is",
    arguments: [(mode: 0o777 as mode_t, restored: false), (mode: 0o1777, restored: true)])
  func lastGoodInAnOpenFolder(_ folder: (mode: mode_t, restored: Bool)) async throws {
    let store = files.store()
    try await store.add(target: try files.scratch.file("a.txt"), key: "a")
    try files.scratch.write("{\"format\": \"docbm-st", to: files.storePath)
    let state = files.storePath.removingLastComponent
    #expect(chmod(state.description, folder.mode) == 0)
    defer { _ = chmod(state.description, 0o755) }
    do {
      try await files.store().add(target: try files.scratch.file("b.txt"), key: "b")
      #expect(folder.restored, "restored from a last good copy others could have swapped")
    } catch {
      #expect(!folder.restored, "\(error)")
      let storeError = try #require(error as? BookmarkStoreError<String>, "\(error)")
      #expect(isUntrusted(storeError), "\(error)")
      #expect("\(error)".contains("is writable by everyone"), "\(error)")
    }
    let names = try FileManager.default.contentsOfDirectory(atPath: state.description)
    if folder.restored {
      #expect(try await files.store().load().map(\.key) == ["a", "b"])
      #expect(names.contains { $0.hasPrefix("store.json.corrupt-") })
    } else {
      #expect(String(decoding: try files.storeBytes(), as: UTF8.self) == "{\"format\": \"docbm-st")
      #expect(!names.contains { $0.hasPrefix("store.json.corrupt-") })
    }
  }

  @Test(
    "a lock file of another user stops changes, and the store is left as it was",
    .enabled(if: Capabilities.isRoot, "giving a lock file to another user needs root"))
  func anotherUsersLock() async throws {
    let store = files.store()
    try await store.add(target: try files.scratch.file("a.txt"), key: "a")
    #expect(chown(files.storePath.description + ".lock", 65534, 65534) == 0)
    let before = try files.storeBytes()
    do {
      try await files.store().add(target: try files.scratch.file("b.txt"), key: "b")
      Issue.record("a change went on under another user's lock file")
    } catch {
      guard let error = error as? BookmarkStoreError<String> else { throw error }
      #expect(error.code == .permissionDenied, "\(error)")
      #expect(
        error.description.contains(
          "the store's lock file \(files.storePath).lock is not trusted (it belongs to user 65534)"),
        "\(error)")
    }
    #expect(try files.storeBytes() == before)
    #expect(try await files.store().load().map(\.key) == ["a"])
  }

  @Test("a FIFO at the lock file's path stops changes with an error that says so, never a wait")
  func fifoLock() async throws {
    let store = files.store()
    try await store.add(target: try files.scratch.file("a.txt"), key: "a")
    let lock = files.storePath.description + ".lock"
    #expect(unlink(lock) == 0 && mkfifo(lock, 0o600) == 0)
    do {
      try await files.store().add(target: try files.scratch.file("b.txt"), key: "b")
      Issue.record("a change went on without its lock")
    } catch {
      guard let error = error as? BookmarkStoreError<String> else { throw error }
      #expect(error.code == .unsupportedFileType, "\(error)")
      #expect(error.description.contains("is a FIFO (named pipe), not a regular file"), "\(error)")
    }
    // Read as it is, without the lock.
    #expect(try await files.store().load().map(\.key) == ["a"])
  }
}
