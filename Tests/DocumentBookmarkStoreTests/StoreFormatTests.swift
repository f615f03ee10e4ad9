import DocbmTestSupport
import DocumentBookmarks
import Foundation
import Testing

@testable import DocumentBookmarkStore

@Suite("Store JSON: the export, and 0.1 stores migrated")
struct StoreFormatTests {
  let files: StoreScratch

  init() throws { files = try StoreScratch() }

  private func json() throws -> [String: Any] { try files.exported() }

  private func writeJSON(_ object: [String: Any]) throws { try files.writeJSON(object) }

  @Test("the export is a versioned envelope, with bookmarks in their text form")
  func envelope() async throws {
    let store = files.store()
    try await store.add(target: try files.scratch.file("a.txt"), key: "a")
    let object = try json()
    #expect(object["format"] as? String == "docbm-store")
    #expect(object["schemaVersion"] as? Int == 2)
    #expect(object["journal"] == nil)
    let record = try #require((object["records"] as? [[String: Any]])?.first)
    #expect(record["key"] as? String == "a")
    #expect((record["bookmark"] as? String)?.hasPrefix(Bookmark.textPrefix) == true)
    #expect((record["status"] as? [String: Any])?["state"] as? String == "available")
  }

  @Test("unknown members of a 0.1 store's envelope and records survive its migration and later changes")
  func unknownMembersSurvive() async throws {
    let store = files.store()
    try await store.add(target: try files.scratch.file("a.txt"), key: "a")
    var object = try json()
    object["writtenBy"] = "a newer docbm"
    var records = try #require(object["records"] as? [[String: Any]])
    records[0]["colour"] = ["r": 1, "g": 0.5]
    object["records"] = records
    try writeJSON(object)
    try await store.add(target: try files.scratch.file("b.txt"), key: "b")
    let after = try json()
    #expect(after["writtenBy"] as? String == "a newer docbm")
    let first = try #require((after["records"] as? [[String: Any]])?.first)
    #expect((first["colour"] as? [String: Any])?["g"] as? Double == 0.5)
  }

  @Test(
    "a status this version cannot read is unknown; a record it cannot decode is kept verbatim, after the others"
  )
  func unreadableParts() async throws {
    let store = files.store()
    try await store.add(target: try files.scratch.file("a.txt"), key: "a")
    var object = try json()
    var records = try #require(object["records"] as? [[String: Any]])
    records[0]["status"] = ["state": "hibernating"]
    records.append(["key": "future", "kind": "a kind from the future"])
    records.append(["key": "a", "garbage": true])
    object["records"] = records
    try writeJSON(object)
    let reader = files.store()
    let loaded = try await reader.load()
    #expect(loaded.map(\.key) == ["a"])
    #expect(loaded.first?.status == .unknown)
    try await reader.add(target: try files.scratch.file("b.txt"), key: "b")
    let written = try #require(try json()["records"] as? [[String: Any]])
    #expect(written.map { $0["key"] as? String } == ["a", "b", "future"])
    #expect(written.last?["kind"] as? String == "a kind from the future")
  }

  @Test("a JSON store of a newer schema version is neither read nor overwritten")
  func newerVersion() async throws {
    let store = files.store()
    try await store.add(target: try files.scratch.file("a.txt"), key: "a")
    var object = try json()
    object["schemaVersion"] = 3
    try writeJSON(object)
    let before = try files.storeBytes()
    let other = files.store()
    do {
      try await other.load()
      Issue.record("a newer store was read")
    } catch {
      #expect(error == .newerVersion(schemaVersion: 3, path: files.storePath))
    }
    do {
      try await other.add(target: try files.scratch.file("b.txt"), key: "b")
      Issue.record("a newer store was written")
    } catch {
      guard case .newerVersion? = error as? BookmarkStoreError<String> else { throw error }
    }
    #expect(try files.storeBytes() == before)
  }

  @Test("a JSON file that is not a store is refused and left alone")
  func notAStore() async throws {
    try files.scratch.makeParents(of: files.storePath)
    try files.scratch.write(#"{"settings": true}"#, to: files.storePath)
    let store = files.store()
    do {
      try await store.add(target: try files.scratch.file("a.txt"), key: "a")
      Issue.record("another program's file was taken for a store")
    } catch {
      guard case .notAStore? = error as? BookmarkStoreError<String> else { throw error }
    }
    #expect(String(decoding: try files.storeBytes(), as: UTF8.self) == #"{"settings": true}"#)
  }

  @Test(
    "a store database of a newer schema version, or another program's database, is neither read nor written")
  func newerDatabase() async throws {
    try await files.store().add(target: try files.scratch.file("a.txt"), key: "a")
    try files.database().execute("PRAGMA user_version = 4")
    let before = try files.storeBytes()
    let other = files.store()
    do {
      try await other.add(target: try files.scratch.file("b.txt"), key: "b")
      Issue.record("a newer store was written")
    } catch {
      #expect(error as? BookmarkStoreError<String> == .newerVersion(schemaVersion: 4, path: files.storePath))
    }
    try files.database().execute("PRAGMA user_version = 3; PRAGMA application_id = 7")
    do {
      try await files.store().load()
      Issue.record("another program's database was read")
    } catch {
      guard case .notAStore = error else { throw error }
    }
    #expect(try files.storeBytes().count == before.count)
  }

  @Test("a FIFO at the store's path is refused without blocking")
  func fifo() async throws {
    try files.scratch.makeParents(of: files.storePath)
    #expect(mkfifo(files.storePath.description, 0o600) == 0)
    let store = files.store()
    do {
      try await store.load()
      Issue.record("a FIFO was read as a store")
    } catch {
      #expect(error == .notAStore(path: files.storePath, reason: "not a regular file"))
    }
  }
}
