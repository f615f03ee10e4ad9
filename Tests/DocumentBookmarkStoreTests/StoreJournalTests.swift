import DocbmTestSupport
import DocumentBookmarks
import DocumentBookmarksTesting
import Foundation
import Glibc
import Testing

@testable import DocumentBookmarkStore

@Suite("Store journal")
struct StoreJournalTests {
  let files: StoreScratch

  init() throws { files = try StoreScratch() }

  /// A store with records a, b and c; the first add wrote the file whole (it held no
  /// bookmark yet), the other two are journal lines.
  private func storeOfThree() async throws -> BookmarkStore<String, NoMetadata> {
    let store = files.store()
    for key in ["a", "b", "c"] { try await store.add(target: try files.scratch.file("\(key).txt"), key: key) }
    return store
  }

  private func journalLines() -> [String] {
    String(decoding: files.journalBytes(), as: UTF8.self).split(
      separator: "\n", omittingEmptySubsequences: false
    )
    .map(String.init)
  }

  private func appendToJournal(_ text: String) throws {
    let handle = try FileHandle(forWritingTo: files.journalPath.url)
    try handle.seekToEnd()
    try handle.write(contentsOf: Data(text.utf8))
    try handle.close()
  }

  private func asideFiles() throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: files.storePath.removingLastComponent.description)
      .filter { $0.hasPrefix("store.json.journal.corrupt-") }
  }

  @Test("a change is one line in the journal; the file holds the records written whole, the journal names it")
  func oneLinePerChange() async throws {
    let store = try await storeOfThree()
    let lines = journalLines()
    // Header, two adds, and the empty string after the last line break.
    #expect(lines.count == 4)
    #expect(lines.last == "")
    let header = try #require(
      try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
    let file = try #require(
      try JSONSerialization.jsonObject(with: Data(files.storeBytes())) as? [String: Any])
    #expect(header["format"] as? String == "docbm-store-journal")
    #expect(header["snapshot"] as? String == file["journal"] as? String)
    #expect((file["records"] as? [Any])?.count == 1)
    // A pin: one more line, holding only that record.
    let version = files.storeVersion()
    try await store.setPinned("b", true)
    #expect(files.storeVersion() != version)
    let pin = try #require(
      try JSONSerialization.jsonObject(with: Data(journalLines()[3].utf8)) as? [String: Any])
    #expect((pin["put"] as? [[String: Any]])?.map { $0["key"] as? String } == ["b"])
    #expect(pin["remove"] == nil && pin["move"] == nil && pin["order"] == nil)
    // Another process reads the file and its journal as one store.
    let other = files.store()
    let records = try await other.load()
    #expect(records.map(\.key) == ["a", "b", "c"])
    #expect(records.map(\.isPinned) == [false, true, false])
  }

  @Test("removals, moves and a new order replay as they were made")
  func replayOrder() async throws {
    let store = try await storeOfThree()
    try await store.add(target: try files.scratch.file("d.txt"), key: "d")
    try await store.move("d", to: 0)
    _ = try await store.forget("b")
    try await store.move("a", to: 2)
    let expected = store.snapshot.keys
    #expect(expected == ["d", "c", "a"])
    #expect(try await files.store().load().map(\.key) == expected)
    // Folded in, the file alone says the same.
    try await store.compact()
    #expect(files.journalBytes().isEmpty)
    let file = try #require(
      try JSONSerialization.jsonObject(with: Data(files.storeBytes())) as? [String: Any])
    #expect((file["records"] as? [[String: Any]])?.map { $0["key"] as? String } == expected)
    #expect(try await files.store().load().map(\.key) == expected)
  }

  @Test("a line cut short (a crash during the append) is no change, and the next change cuts it off")
  func cutShort() async throws {
    let store = try await storeOfThree()
    // Longer than the next line, so that only cutting it off (not writing over it) removes it.
    try appendToJournal(#"{"put":[{"key":"half"# + String(repeating: "x", count: 4096))
    let reader = files.store()
    #expect(try await reader.load().map(\.key) == ["a", "b", "c"])
    try await reader.setPinned("c", true)
    let lines = journalLines()
    #expect(!lines.contains { $0.contains("half") })
    #expect(lines.last == "")
    #expect(try await files.store().load().first { $0.key == "c" }?.isPinned == true)
    _ = store
  }

  @Test(
    "a whole line that does not decode: the lines before it count, and the next change writes the file whole, the journal kept aside"
  )
  func damagedLine() async throws {
    _ = try await storeOfThree()
    try appendToJournal("this is not JSON\n")
    let reader = files.store()
    #expect(try await reader.load().map(\.key) == ["a", "b", "c"])
    try await reader.setPinned("a", true)
    #expect(files.journalBytes().isEmpty)
    let aside = try asideFiles()
    #expect(aside.count == 1)
    let kept = try String(
      contentsOfFile: files.scratch.path("state/\(aside[0])").description, encoding: .utf8)
    #expect(kept.hasSuffix("this is not JSON\n"))
    let records = try await files.store().load()
    #expect(records.map(\.key) == ["a", "b", "c"])
    #expect(records.first?.isPinned == true)
  }

  @Test("a journal whose first line is damaged is not applied, and is kept aside by the next change")
  func damagedHeader() async throws {
    _ = try await storeOfThree()
    var bytes = files.journalBytes()
    bytes[2] = UInt8(ascii: "#")
    try Data(bytes).write(to: files.journalPath.url)
    let reader = files.store()
    #expect(try await reader.load().map(\.key) == ["a"])
    try await reader.setPinned("a", true)
    #expect(files.journalBytes().isEmpty)
    #expect(try asideFiles().count == 1)
  }

  @Test("a journal that names another version of the file is ignored, and replaced by the next change")
  func staleJournal() async throws {
    _ = try await storeOfThree()
    let lines = journalLines()
    let stale = lines[0].replacingOccurrences(of: #""snapshot":""#, with: #""snapshot":"0"#)
    let staleJournal = ([stale] + lines.dropFirst()).joined(separator: "\n")
    try Data(staleJournal.utf8).write(to: files.journalPath.url)
    let reader = files.store()
    #expect(try await reader.load().map(\.key) == ["a"])
    try await reader.setPinned("a", true)
    #expect(journalLines().count == 3)  // a new journal: header, the pin, ""
    #expect(try await files.store().load().map(\.isPinned) == [true])
  }

  @Test("the journal is folded into the file when it reaches its limit")
  func foldedAtLimit() async throws {
    let store = try await storeOfThree()
    let inode = try FileStatus.of(files.storePath, followSymlinks: true).inode
    var changes = 0
    var folded = false
    while changes < 1000 {
      try await store.setPinned("a", changes % 2 == 0)
      changes += 1
      if try FileStatus.of(files.storePath, followSymlinks: true).inode != inode {
        folded = true
        break
      }
      #expect(files.journalBytes().count <= StoreFile<String, NoMetadata>.journalLimit(fileSize: 0))
    }
    #expect(folded, "the journal was never folded in")
    // 64 KiB of lines of about 600 bytes: about a hundred changes.
    #expect((50...400).contains(changes), "\(changes) changes")
    #expect(files.journalBytes().isEmpty)
    #expect(try await files.store().load().first?.isPinned == (changes % 2 == 1))
  }

  @Test("a file of schema version 1 (no journal) is read, and written whole as version 2 at its first change")
  func versionOne() async throws {
    _ = try await storeOfThree()
    try files.compact()
    var object = try #require(
      try JSONSerialization.jsonObject(with: Data(files.storeBytes())) as? [String: Any])
    object["schemaVersion"] = 1
    object["journal"] = nil
    let handle = try FileHandle(forWritingTo: files.storePath.url)
    try handle.truncate(atOffset: 0)
    try handle.write(contentsOf: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
    try handle.close()
    let reader = files.store()
    #expect(try await reader.load().map(\.key) == ["a", "b", "c"])
    try await reader.setPinned("b", true)
    let file = try #require(
      try JSONSerialization.jsonObject(with: Data(files.storeBytes())) as? [String: Any])
    #expect(file["schemaVersion"] as? Int == 2)
    #expect(file["journal"] is String)
    #expect(files.journalBytes().isEmpty)
  }

  @Test("a journal of another user, or one others may write, is not trusted")
  func untrustedJournal() async throws {
    _ = try await storeOfThree()
    #expect(chmod(files.journalPath.description, 0o622) == 0)
    await #expect(throws: BookmarkStoreError<String>.self) { try await files.store().load() }
    do {
      try await files.store().load()
      Issue.record("a journal others may write was read")
    } catch {
      guard case .untrusted(let path, _) = error else { throw error }
      #expect(path == files.journalPath)
    }
    #expect(chmod(files.journalPath.description, 0o600) == 0)
    guard Capabilities.isRoot else {
      print("skipped: giving a journal to another user needs root")
      return
    }
    #expect(chown(files.journalPath.description, 65534, 65534) == 0)
    do {
      try await files.store().add(target: try files.scratch.file("x.txt"), key: "x")
      Issue.record("another user's journal was used")
    } catch {
      guard case .untrusted? = error as? BookmarkStoreError<String> else { throw error }
    }
  }

  @Test("a FIFO or a symbolic link where the journal should be is refused without blocking")
  func notAFile() async throws {
    _ = try await storeOfThree()
    let elsewhere = files.scratch.path("elsewhere.journal")
    try FileManager.default.moveItem(atPath: files.journalPath.description, toPath: elsewhere.description)
    #expect(mkfifo(files.journalPath.description, 0o600) == 0)
    do {
      try await files.store().load()
      Issue.record("a FIFO was read as the journal")
    } catch {
      guard case .notAStore(let path, _) = error else { throw error }
      #expect(path == files.journalPath)
    }
    try FileManager.default.removeItem(atPath: files.journalPath.description)
    #expect(symlink(elsewhere.description, files.journalPath.description) == 0)
    do {
      try await files.store().load()
      Issue.record("a symbolic link was followed to a journal")
    } catch {
      guard case .docbm(let error) = error else { throw error }
      #expect(error.code == .unsupportedFileType)
    }
  }

  @Test("a line whose flush fails is taken back under a new inode, so that no reader keeps it")
  func failedFlush() async throws {
    let store = try await storeOfThree()
    let before = files.journalBytes()
    let inode = try FileStatus.of(files.journalPath, followSymlinks: false).inode
    try await files.withFault(.ioError(at: .syncFile)) {
      do {
        try await store.setPinned("b", true)
        Issue.record("a pin whose flush failed succeeded")
      } catch {
        #expect((error as? BookmarkStoreError<String>)?.code == .ioError, "\(error)")
      }
    }
    #expect(files.journalBytes() == before, "the line whose flush failed is still there")
    #expect(try FileStatus.of(files.journalPath, followSymlinks: false).inode != inode)
    #expect(store.snapshot.records.map(\.isPinned) == [false, false, false])
    // The next change appends to the new journal, and every reader agrees.
    try await store.setPinned("c", true)
    #expect(try await files.store().load().map(\.isPinned) == [false, false, true])
  }

  @Test("a new journal whose folder cannot be flushed is removed again, with its change")
  func failedFolderFlush() async throws {
    let store = try await storeOfThree()
    try await store.compact()
    #expect(files.journalBytes().isEmpty)
    try await files.withFault(.ioError(at: .syncFolder)) {
      do {
        try await store.setPinned("a", true)
        Issue.record("a pin whose journal could not be made durable succeeded")
      } catch {
        #expect((error as? BookmarkStoreError<String>)?.code == .ioError, "\(error)")
      }
    }
    #expect(!FileManager.default.fileExists(atPath: files.journalPath.description))
    #expect(try await files.store().load().map(\.isPinned) == [false, false, false])
  }
}

@Suite("Store changes that say what they did")
struct StoreEditTests {
  let files: StoreScratch

  init() throws { files = try StoreScratch() }

  private func core(_ policy: StorePolicy) -> StoreCore<String, NoMetadata> {
    StoreCore(file: files.storePath, policy: policy, service: BookmarkService())
  }

  @Test(
    "adds, evictions, uses and forgets replay from the journal as they were made",
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
    #expect(!files.journalBytes().isEmpty, "the changes went to the journal")
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
}
