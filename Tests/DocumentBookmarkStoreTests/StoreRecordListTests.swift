import DocumentBookmarks
import Testing

@testable import DocumentBookmarkStore

@Suite("Store record list: chunks and summaries in step with an array")
struct StoreRecordListTests {
  typealias Record = StoreRecord<String, NoMetadata>

  /// A path-only record, or with `inode`, one whose identity has that inode number.
  static func record(_ key: String, path: String, inode: UInt64? = nil) -> Record {
    let identity = inode.map {
      TargetIdentity(
        fileHandle: nil, inode: $0, generation: nil, birthTime: nil, size: 0,
        modificationTime: Timestamp(seconds: 0, nanoseconds: 0))
    }
    return Record(
      key: key, bookmark: nil, lastKnownPath: FilePath(path), identity: identity, volume: nil,
      status: .unknown,
      createdAt: Timestamp(seconds: 1, nanoseconds: 0), metadata: NoMetadata())
  }

  /// Checks every member that reads the list against `model`.
  static func expectMatches(_ list: StoreRecordList<String, NoMetadata>, _ model: [Record]) {
    #expect(list.count == model.count)
    #expect(Array(list) == model)
    #expect(list.elements == model)
    #expect(list.indices.map { list[$0] } == model)
    for (position, record) in model.enumerated() {
      #expect(list.index(of: record.key) == position)
      // The candidates of a sample (each is a pass over the model).
      guard position % 41 == 0 else { continue }
      let expected = model.indices.filter {
        (record.inode != nil && model[$0].inode == record.inode)
          || model[$0].lastKnownPath == record.lastKnownPath
      }
      #expect(list.positions(withInode: record.inode, orPath: record.lastKnownPath) == expected)
    }
    #expect(list.index(of: "absent") == nil)
  }

  @Test("random inserts, removals, moves and replacements across chunk splits agree with an array")
  func randomChanges() {
    var generator = SystemRandomNumberGenerator()
    var list = StoreRecordList<String, NoMetadata>()
    var model: [Record] = []
    var next = 0
    func fresh() -> Record {
      next += 1
      // Paths repeat every 7 keys and inodes every 5, so that look-ups find several.
      return Self.record(
        "key-\(next)", path: "/files/\(next % 7)", inode: next % 3 == 0 ? UInt64(next % 5) : nil)
    }
    for step in 0..<3_000 {
      switch Int.random(in: 0..<10, using: &generator) {
      case 0..<4:
        let record = fresh()
        let position = Int.random(in: 0...model.count, using: &generator)
        list.insert(record, at: position)
        model.insert(record, at: position)
      case 4..<6:
        // At the front, as a most-recently-used store adds, so that the first chunk splits.
        let record = fresh()
        list.insert(record, at: 0)
        model.insert(record, at: 0)
      case 6 where !model.isEmpty:
        let position = Int.random(in: 0..<model.count, using: &generator)
        #expect(list.remove(at: position) == model.remove(at: position))
      case 7 where !model.isEmpty:
        let from = Int.random(in: 0..<model.count, using: &generator)
        let to = Int.random(in: 0..<model.count, using: &generator)
        list.move(from: from, to: to)
        model.insert(model.remove(at: from), at: to)
      case 8 where !model.isEmpty:
        let position = Int.random(in: 0..<model.count, using: &generator)
        var record = model[position]
        record.lastKnownPath = FilePath("/moved/\(step)")
        list[position] = record
        model[position] = record
      default:
        let record = fresh()
        list.append(record)
        model.append(record)
      }
      if step % 1_000 == 0 { Self.expectMatches(list, model) }
    }
    Self.expectMatches(list, model)
    #expect(model.count > 1_000, "the list grew past several chunks")
    // Whole-list removal, and a list made from an array.
    list.removeAll { $0.key.hasSuffix("1") }
    model.removeAll { $0.key.hasSuffix("1") }
    Self.expectMatches(list, model)
    Self.expectMatches(StoreRecordList(model), model)
  }

  @Test("a changed copy is another version; the list it came from is unchanged")
  func versions() {
    let records = (0..<1_000).map { Self.record("key-\($0)", path: "/files/\($0)") }
    let list = StoreRecordList(records)
    var changed = list
    #expect(changed.isSameVersion(as: list))
    changed[500] = Self.record("key-500", path: "/elsewhere")
    #expect(!changed.isSameVersion(as: list))
    #expect(changed != list)
    #expect(list.elements == records)
    #expect(changed.index(of: "key-500") == 500)
    #expect(list.positions(withInode: nil, orPath: FilePath("/elsewhere")).isEmpty)
    #expect(changed.positions(withInode: nil, orPath: FilePath("/elsewhere")) == [500])
  }
}
