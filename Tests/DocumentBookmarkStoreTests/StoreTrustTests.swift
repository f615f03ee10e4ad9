import DocbmSystem
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

    let throughLink = BookmarkStore<String, NoMetadata>(
      file: link, service: BookmarkService(escrow: nil), followsOtherProcesses: false)
    let direct = BookmarkStore<String, NoMetadata>(
      file: real, service: BookmarkService(escrow: nil), followsOtherProcesses: false)
    #expect(throughLink.path == direct.path)
    #expect(throughLink.path == real)
    try await throughLink.add(target: try files.scratch.file("a.txt"), key: "a")
    try await direct.add(target: try files.scratch.file("b.txt"), key: "b")
    try await throughLink.add(target: try files.scratch.file("c.txt"), key: "c")
    try await direct.compact()
    try await direct.add(target: try files.scratch.file("d.txt"), key: "d")

    for store in [
      BookmarkStore<String, NoMetadata>(
        file: link, service: BookmarkService(escrow: nil), followsOtherProcesses: false),
      BookmarkStore<String, NoMetadata>(
        file: real, service: BookmarkService(escrow: nil), followsOtherProcesses: false),
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
    "a store in a folder others may add files to, sticky or not, is neither opened nor restored",
    arguments: [0o777 as mode_t, 0o1777])
  func storeInAnOpenFolder(_ mode: mode_t) async throws {
    let store = files.store()
    try await store.add(target: try files.scratch.file("a.txt"), key: "a")
    let state = files.storePath.removingLastComponent
    #expect(chmod(state.description, mode) == 0)
    defer { _ = chmod(state.description, 0o755) }
    let before = try files.storeBytes()
    do {
      try await files.store().add(target: try files.scratch.file("b.txt"), key: "b")
      Issue.record("a store was changed where others could have planted its journal")
    } catch {
      let storeError = try #require(error as? BookmarkStoreError<String>, "\(error)")
      #expect(isUntrusted(storeError), "\(error)")
      let why = mode & 0o1000 != 0 ? "lets other users add files" : "is writable by everyone"
      #expect("\(error)".contains(why), "\(error)")
    }
    try files.scratch.write("{\"format\": \"docbm-st", to: files.storePath)
    do {
      try await files.store().load()
      Issue.record("a damaged store was restored from a copy others could have swapped")
    } catch {
      if case .corrupt = error {} else { #expect(isUntrusted(error), "\(error)") }
    }
    let names = try FileManager.default.contentsOfDirectory(atPath: state.description)
    #expect(String(decoding: try files.storeBytes(), as: UTF8.self) == "{\"format\": \"docbm-st")
    #expect(!names.contains { $0.hasPrefix("store.json.corrupt-") })
    #expect(before.starts(with: Array("SQLite format 3".utf8)))
  }

  @Test(
    "a lock file of another user stops a store being made, and none is made",
    .enabled(if: Capabilities.isRoot, "giving a lock file to another user needs root"))
  func anotherUsersLock() async throws {
    let lock = files.storePath.description + ".lock"
    try files.scratch.makeParents(of: files.storePath)
    try files.scratch.write("", to: FilePath(lock))
    #expect(chown(lock, 65534, 65534) == 0)
    do {
      try await files.store().add(target: try files.scratch.file("b.txt"), key: "b")
      Issue.record("a store was made under another user's lock file")
    } catch {
      guard let error = error as? BookmarkStoreError<String> else { throw error }
      #expect(error.code == .permissionDenied, "\(error)")
      #expect(
        error.description.contains(
          "the store's lock file \(files.storePath).lock is not trusted (it belongs to user 65534)"),
        "\(error)")
    }
    #expect(!FileManager.default.fileExists(atPath: files.storePath.description))
  }

  @Test("a FIFO at the lock file's path stops a store being made with an error that says so, never a wait")
  func fifoLock() async throws {
    let lock = files.storePath.description + ".lock"
    try files.scratch.makeParents(of: files.storePath)
    #expect(mkfifo(lock, 0o600) == 0)
    do {
      try await files.store().add(target: try files.scratch.file("b.txt"), key: "b")
      Issue.record("a store was made without its lock")
    } catch {
      guard let error = error as? BookmarkStoreError<String> else { throw error }
      #expect(error.code == .unsupportedFileType, "\(error)")
      #expect(error.description.contains("is a FIFO (named pipe), not a regular file"), "\(error)")
    }
    #expect(!FileManager.default.fileExists(atPath: files.storePath.description))
  }
}
