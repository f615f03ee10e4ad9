import DocbmTestSupport
import DocumentBookmarks
import DocumentBookmarksTesting
import Foundation
import Glibc
import Testing

@testable import DocumentBookmarkStore

@Suite("Store database")
struct StoreDatabaseTests {
  let files: StoreScratch

  init() throws { files = try StoreScratch() }

  private func core(_ policy: StorePolicy = StorePolicy()) -> StoreCore<String, NoMetadata> {
    StoreCore(file: files.storePath, policy: policy, service: BookmarkService(escrow: nil))
  }

  /// The rows' keys with the version that last changed each, in the store's order.
  private func rows() throws -> [(key: String, changed: Int64)] {
    let statement = try files.database().prepare("SELECT key, changed FROM records ORDER BY position")
    var rows: [(key: String, changed: Int64)] = []
    while try statement.step() { rows.append((statement.text(0), statement.int64(1))) }
    return rows
  }

  @Test("a change to one record writes that row alone, and a process that saw the store before catches up")
  func oneRowPerChange() throws {
    let writer = core()
    let reader = core()
    for key in ["a", "b", "c"] {
      _ = try writer.add(target: try files.scratch.file("\(key).txt"), key: key, metadata: NoMetadata())
    }
    #expect(try reader.load().map(\.key) == ["a", "b", "c"])
    let before = try rows()
    _ = try writer.setPinned("b", true)
    let after = try rows()
    #expect(after.map(\.key) == ["\"a\"", "\"b\"", "\"c\""])
    #expect(after[0].changed == before[0].changed && after[2].changed == before[2].changed)
    #expect(after[1].changed > before[1].changed)
    _ = try writer.forget(["a"])
    _ = try writer.add(target: try files.scratch.file("d.txt"), key: "d", metadata: NoMetadata())
    #expect(try reader.load() == writer.load())
    #expect(reader.snapshot.records.map(\.key) == ["b", "c", "d"])
    #expect(reader.snapshot["b"]?.isPinned == true)
  }

  @Test("a command-line change reads only the records it touches, and the store's order holds")
  func scopedChanges() throws {
    let library = core(StorePolicy(duplicates: .returnExisting, ordering: .mostRecentlyUsed))
    for key in ["a", "b", "c"] {
      _ = try library.add(target: try files.scratch.file("\(key).txt"), key: key, metadata: NoMetadata())
    }
    // A process that never loads the store: each change is scoped to its records.
    let short = StoreCore<String, NoMetadata>(
      file: files.storePath, policy: StorePolicy(duplicates: .returnExisting, ordering: .mostRecentlyUsed),
      service: BookmarkService(escrow: nil), changesInPlace: true)
    _ = try short.add(target: try files.scratch.file("d.txt"), key: "d", metadata: NoMetadata())
    let again = try short.add(target: try files.scratch.file("a.txt"), key: "other", metadata: NoMetadata())
    #expect(again.key == "a", "the existing record of the same file is found by its inode")
    _ = try short.markUsed("b")
    _ = try short.setPinned("c", true)
    _ = try short.forget(["d", "none"])
    #expect(!short.snapshot.isLoaded)
    let order = try library.load().map(\.key)
    #expect(order == ["b", "a", "c"])
    #expect(library.snapshot["c"]?.isPinned == true)
    #expect(try short.records(withKeys: ["c", "none"]).map(\.key) == ["c"])
  }

  @Test("records moved inside the order again and again keep their order when the gaps run out")
  func movesRenumber() throws {
    let store = core()
    for key in ["a", "b", "c", "d"] {
      _ = try store.add(target: try files.scratch.file("\(key).txt"), key: key, metadata: NoMetadata())
    }
    // Each move halves the gap after "a": past twenty, every record is numbered afresh.
    for round in 0..<48 {
      let key = round % 2 == 0 ? "c" : "d"
      _ = try store.move(key, to: 1)
      #expect(try core().load() == store.snapshot.records, "round \(round)")
    }
    #expect(store.snapshot.records.map(\.key) == ["a", "d", "c", "b"])
  }

  @Test("a 0.1 store (JSON with its journal) is migrated with its key, order and records, its journal gone")
  func migration() async throws {
    let targets = try ["a", "b", "c"].map { try files.scratch.file("\($0).txt") }
    let store = core()
    for (key, target) in zip(["a", "b", "c"], targets) {
      _ = try store.add(target: target, key: key, metadata: NoMetadata())
    }
    let records = store.snapshot.records
    let fingerprint = try files.fingerprint()
    var object = try files.exported()
    object["journal"] = "0123456789abcdef0123456789abcdef"
    try files.writeJSON(object)
    // The journal's one change: "b" pinned.
    var pinned = records[1]
    pinned.isPinned = true
    let line = try JSONEncoder().encode(["put": [pinned]])
    let header =
      #"{"format":"docbm-store-journal","schemaVersion":1,"snapshot":"0123456789abcdef0123456789abcdef"}"#
    try files.scratch.write(
      header + "\n" + String(decoding: line, as: UTF8.self) + "\n", to: files.journalPath)
    let migrated = try core().load()
    try #require(migrated.count == 3, "\(migrated.map(\.key))")
    #expect(migrated.map(\.key) == ["a", "b", "c"])
    #expect(migrated[1].isPinned)
    #expect(migrated[0] == records[0])
    #expect(try files.fingerprint() == fingerprint)
    #expect(!FileManager.default.fileExists(atPath: files.journalPath.description))
    #expect(try files.storeBytes().starts(with: Array("SQLite format 3".utf8)))
    #expect(try core().resolve("c").record.lastKnownPath == targets[2])
  }

  @Test(
    "a store in a folder other users may add files to is refused: a rollback journal planted there would apply"
  )
  func sharedFolder() async throws {
    let shared = files.scratch.path("shared")
    try files.scratch.folder("shared")
    #expect(chmod(shared.description, 0o1777) == 0)
    let store = StoreCore<String, NoMetadata>(
      file: shared.appending("store.json"), policy: StorePolicy(), service: BookmarkService(escrow: nil))
    let target = try files.scratch.file("a.txt")
    do throws(BookmarkStoreError<String>) {
      _ = try store.add(target: target, key: "a", metadata: NoMetadata())
      Issue.record("a store was made where others may add files")
    } catch {
      guard case .untrusted(_, let reason) = error else {
        Issue.record("\(error)")
        return
      }
      #expect(reason.contains("rollback journal"))
    }
  }

  @Test("rows this version cannot read stay in the store, and in its export")
  func unreadableRows() throws {
    let store = core()
    _ = try store.add(target: try files.scratch.file("a.txt"), key: "a", metadata: NoMetadata())
    try files.database().execute(
      #"INSERT INTO records(key, position, inode, path, changed, record) VALUES ('"future"', 9999999999, NULL, X'', 1, '{"key":"future","kind":"new"}')"#
    )
    _ = try store.add(target: try files.scratch.file("b.txt"), key: "b", metadata: NoMetadata())
    #expect(try core().load().map(\.key) == ["a", "b"])
    let exported = try #require(try files.exported()["records"] as? [[String: Any]])
    #expect(exported.map { $0["key"] as? String } == ["a", "b", "future"])
    #expect(try rows().count == 3)
  }

  @Test(
    "members a later version wrote in a row are read where its others column allows, and kept through changes"
  )
  func otherMembers() throws {
    let store = core()
    _ = try store.add(target: try files.scratch.file("a.txt"), key: "a", metadata: NoMetadata())
    _ = try store.add(target: try files.scratch.file("b.txt"), key: "b", metadata: NoMetadata())
    let others = try files.database().prepare("SELECT others FROM records ORDER BY position")
    var flags: [Int64] = []
    while try others.step() { flags.append(others.int64(0)) }
    #expect(flags == [0, 0])
    // A later version adds a member to a's record and says so; one that does not name the
    // column leaves its default.
    try files.database().execute(
      #"UPDATE records SET record = json_set(record, '$.colour', 'teal'), others = 1 WHERE key = '"a"'"#)
    try files.database().execute(
      #"CREATE TEMP TABLE copy AS SELECT * FROM records WHERE key = '"b"'; DELETE FROM records WHERE key = '"b"'; INSERT INTO records(key, position, inode, path, changed, record) SELECT key, position, inode, path, changed, json_set(record, '$.shade', 3) FROM copy"#
    )
    let reader = core()
    let loaded = try reader.load()
    #expect(loaded.map(\.unknownMembers) == [["colour": .string("teal")], ["shade": .integer(3)]])
    _ = try reader.setPinned("a", true)
    _ = try reader.setPinned("b", true)
    let exported = try #require(try files.exported()["records"] as? [[String: Any]])
    #expect(exported.map { $0["colour"] as? String } == ["teal", nil])
    #expect(exported.map { $0["shade"] as? Int } == [nil, 3])
    #expect(exported.map { $0["pinned"] as? Bool } == [true, true])
  }
}

@Suite("Store changes that say what they did")
struct StoreEditTests {
  let files: StoreScratch

  init() throws { files = try StoreScratch() }

  private func core(_ policy: StorePolicy) -> StoreCore<String, NoMetadata> {
    StoreCore(file: files.storePath, policy: policy, service: BookmarkService(escrow: nil))
  }

  @Test(
    "adds, evictions, uses and forgets read back as they were made",
    arguments: [StorePolicy.Ordering.insertion, .mostRecentlyUsed])
  func replayedAsMade(ordering: StorePolicy.Ordering) throws {
    let policy = StorePolicy(duplicates: .returnExisting, ordering: ordering, limit: 4, eviction: .storeOrder)
    let store = core(policy)
    let targets = try (0..<8).map { try files.scratch.file("t\($0).txt", "file \($0)") }
    func check(_ step: String) throws {
      // A fresh reader of the file and its journal sees what the store holds.
      #expect(try core(policy).load() == store.snapshot.records, "\(step)")
    }
    _ = try store.add(target: targets[0], key: "first", metadata: NoMetadata())
    try check("first")
    // More than the limit in one change: some of those added are evicted by the same change.
    _ = try store.add(targets: (1..<7).map { (targets[$0], "k\($0)", NoMetadata()) })
    try check("batch")
    #expect(store.snapshot.records.count == 4)
    let kept = store.snapshot.records.map(\.key)
    _ = try store.markUsed(kept[2])
    try check("markUsed")
    _ = try store.add(target: targets[7], key: kept[1], metadata: NoMetadata())
    try check("same key, new target")
    _ = try store.add(target: targets[7], key: "again", metadata: NoMetadata())
    try check("duplicate returns the existing record")
    _ = try store.setPinned(kept[0], true)
    _ = try store.setPinned(kept[0], true)
    try check("pin")
    _ = try store.forget([kept[0], "no such key"])
    try check("forget")
    _ = try store.move(store.snapshot.records.last!.key, to: 0)
    try check("move")
  }

  @Test(
    "listeners hear a record added and used in one change as added, and an existing one moved as a new order",
    .timeLimit(.minutes(1)))
  func listenersHearTheEdit() async throws {
    let store = core(StorePolicy(duplicates: .returnExisting, ordering: .mostRecentlyUsed))
    let first = try files.scratch.file("first.txt")
    _ = try store.add(target: first, key: "first", metadata: NoMetadata())
    var updates = store.updates().makeAsyncIterator()
    guard case .snapshot? = await updates.next() else {
      Issue.record("the first update is not a snapshot")
      return
    }
    // "twin" is the same file as "new": the second is the first, used.
    let new = try files.scratch.file("new.txt")
    _ = try store.add(targets: [(new, "new", NoMetadata()), (new, "twin", NoMetadata())])
    guard case .changes(let changes)? = await updates.next() else {
      Issue.record("no change after the add")
      return
    }
    #expect(changes.count == 1)
    guard case .added(let added)? = changes.first else {
      Issue.record("changes: \(changes)")
      return
    }
    #expect(added.key == "new")
    #expect(added.lastUsedAt != nil, "the record heard is the one used")
    _ = try store.markUsed("first")
    guard case .changes(let used)? = await updates.next() else {
      Issue.record("no change after markUsed")
      return
    }
    #expect(used.count == 2)
    if case .updated(let record)? = used.first {
      #expect(record.key == "first")
    } else {
      Issue.record("\(used)")
    }
    if case .reordered(let keys)? = used.last {
      #expect(keys == ["first", "new"])
    } else {
      Issue.record("\(used)")
    }
  }

  @Test("a change that changes nothing writes nothing")
  func noChangeNoWrite() throws {
    let store = core(StorePolicy())
    _ = try store.add(target: try files.scratch.file("a.txt"), key: "a", metadata: NoMetadata())
    _ = try store.setPinned("a", true)
    let version = files.storeVersion()
    _ = try store.setPinned("a", true)
    _ = try store.forget(["nothing"])
    #expect(files.storeVersion() == version)
  }

  @Test(
    "a process that holds the store hears another's changes as the rows they changed, and its own after them",
    .timeLimit(.minutes(1)))
  func catchUpIsHeard() async throws {
    let policy = StorePolicy(duplicates: .returnExisting, ordering: .mostRecentlyUsed)
    let writer = core(policy)
    let reader = core(policy)
    for key in ["a", "b", "c"] {
      _ = try writer.add(target: try files.scratch.file("\(key).txt"), key: key, metadata: NoMetadata())
    }
    _ = try reader.load()
    var updates = reader.updates().makeAsyncIterator()
    guard case .snapshot(let snapshot)? = await updates.next() else {
      Issue.record("the first update is not a snapshot")
      return
    }
    /// What the reader hears after `change` (made by the writer) and a load.
    func heard(after change: () throws -> Void) async throws -> [String] {
      try change()
      _ = try reader.load()
      guard case .changes(let changes)? = await updates.next() else { return ["nothing"] }
      return changes.map(Self.describe)
    }
    #expect(snapshot.map(\.key) == ["c", "b", "a"])
    #expect(try await heard { _ = try writer.setPinned("b", true) } == ["updated b"])
    #expect(
      try await heard {
        _ = try writer.forget(["a"])
        _ = try writer.add(target: try files.scratch.file("d.txt"), key: "d", metadata: NoMetadata())
      } == ["removed a", "added d"])
    // Used: moved to the front, which changes the order of records the reader had.
    #expect(try await heard { _ = try writer.markUsed("c") } == ["updated c", "reordered c d b"])
    // The reader's own change, made on top of the writer's: both, the writer's first.
    _ = try writer.setPinned("d", true)
    _ = try reader.setPinned("b", false)
    guard case .changes(let both)? = await updates.next() else {
      Issue.record("no change after the reader's own")
      return
    }
    #expect(both.map(Self.describe) == ["updated d", "updated b"])
    #expect(reader.snapshot.records.map(\.key) == ["c", "d", "b"])
    #expect(reader.snapshot["d"]?.isPinned == true && reader.snapshot["b"]?.isPinned == false)
    // A row written again as it was is no change.
    #expect(
      try await heard {
        _ = try writer.setPinned("d", false)
        _ = try writer.setPinned("d", true)
        _ = try writer.setPinned("c", true)
      } == ["updated c"])
  }

  private static func describe(_ change: StoreChange<String, NoMetadata>) -> String {
    switch change {
    case .added(let record): "added \(record.key)"
    case .updated(let record): "updated \(record.key)"
    case .removed(let record): "removed \(record.key)"
    case .reordered(let keys): "reordered " + keys.joined(separator: " ")
    @unknown default: "unknown"
    }
  }
}
