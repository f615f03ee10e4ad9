import DocbmTestSupport
import DocumentBookmarks
import Foundation
import Testing

@testable import DocumentBookmarkStore

@Suite("Store corruption recovery")
struct StoreRecoveryTests {
  let files: StoreScratch

  init() throws { files = try StoreScratch() }

  private func quarantined() throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: files.storePath.removingLastComponent.description)
      .filter { $0.hasPrefix("store.json.corrupt-") }
  }

  @Test(
    "garbage written in place: quarantined, the last good version restored with its key, and it checks ok")
  func garbageInPlace() async throws {
    let store = files.store()
    try await store.add(target: try files.scratch.file("a.txt"), key: "a")
    try await store.add(target: try files.scratch.file("b.txt"), key: "b")
    let fingerprint = try #require(try files.fingerprint())
    // A program that truncates and writes in place (`>`): the key stays on the inode.
    let handle = try FileHandle(forWritingTo: files.storePath.url)
    try handle.truncate(atOffset: 0)
    try handle.write(contentsOf: Data("{\"format\": \"docbm-st".utf8))
    try handle.close()
    let reader = files.store()
    let records = try await reader.load()
    #expect(records.map(\.key) == ["a", "b"])
    #expect(try files.fingerprint() == fingerprint)
    let quarantine = try quarantined()
    #expect(quarantine.count == 1)
    #expect(
      String(decoding: try Data(contentsOf: files.scratch.path("state/\(quarantine[0])").url), as: UTF8.self)
        == "{\"format\": \"docbm-st")
    #expect(DocumentChecker(escrow: nil).check(files.storePath).verdict == .ok)
    // The restored records still resolve.
    #expect(try await reader.resolve("b").path == files.scratch.path("b.txt"))
  }

  @Test("garbage renamed over the store (the key lost with it): restored, key included")
  func garbageRenamedOver() async throws {
    let store = files.store()
    try await store.add(target: try files.scratch.file("a.txt"), key: "a")
    let fingerprint = try #require(try files.fingerprint())
    try files.scratch.replaceAtomically(files.storePath, with: "\u{0}\u{1}not json")
    #expect(try files.fingerprint() == nil)
    let reader = files.store()
    #expect(try await reader.load().map(\.key) == ["a"])
    #expect(try files.fingerprint() == fingerprint)
    #expect(try await reader.resolve("a").record.status == .available)
  }

  @Test("an empty file with no last good copy is reported corrupt and left as it is")
  func noLastGood() async throws {
    try files.scratch.makeParents(of: files.storePath)
    try files.scratch.write("", to: files.storePath)
    let store = files.store()
    do {
      try await store.load()
      Issue.record("an empty file read as a store")
    } catch {
      guard case .corrupt = error else { throw error }
    }
    #expect(try files.storeBytes().isEmpty)
    #expect(try quarantined().isEmpty)
  }
}
