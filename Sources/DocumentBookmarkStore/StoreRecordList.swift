import DocumentBookmarks

/// A store's records in order, kept in chunks of a few hundred, with what finding one
/// needs beside each: the hash of its key, of its last known path, and its inode number.
///
/// Every change of a store starts from the version the process holds and makes a new one,
/// while the old one stays what readers of the store's snapshot see. In one array, each
/// change would copy every record (and free the old list); in chunks, it copies the list of
/// chunks and the one chunk it changes, so that a change to a store of 10,000 records costs
/// about what it costs a store of 10.
///
/// The store's code is generic over the app's key and metadata types, which are not known
/// when this module is compiled: a pass over the records would compare each key through
/// the key type's witness table. The summaries are plain integers, so a look-up is one pass
/// over them, confirmed by one comparison of the record found.
///
/// The list is changed only through its own members, which keep each summary in step with
/// its record.
struct StoreRecordList<Key: Hashable & Sendable & Codable, Metadata: Sendable & Codable & Equatable>:
  RandomAccessCollection, Equatable, Sendable
{
  typealias Record = StoreRecord<Key, Metadata>

  /// Up to ``maximumChunk`` consecutive records and their summaries.
  fileprivate struct Chunk: Sendable {
    var records: [Record] = []
    var summaries: [RecordSummary] = []
  }

  /// A full list's chunks hold this many records; a chunk that grows past twice as many
  /// is split in two.
  private static var chunkSize: Int { 256 }
  private static var maximumChunk: Int { 2 * chunkSize }

  private var chunks: [Chunk] = []
  /// The position of each chunk's first record.
  private var starts: [Int] = []
  private(set) var count = 0

  init() {}

  init(_ records: [Record]) {
    var start = 0
    while start < records.count {
      let end = Swift.min(start + Self.chunkSize, records.count)
      let slice = Array(records[start..<end])
      chunks.append(Chunk(records: slice, summaries: slice.map { RecordSummary($0) }))
      starts.append(start)
      start = end
    }
    count = records.count
  }

  /// The records as one array (a copy of every record reference: for whole-list uses).
  var elements: [Record] {
    var all: [Record] = []
    all.reserveCapacity(count)
    for chunk in chunks { all.append(contentsOf: chunk.records) }
    return all
  }

  /// Whether `other` is this very version of the list (not a changed copy of it), which
  /// makes them equal without comparing a record.
  func isSameVersion(as other: Self) -> Bool {
    count == other.count
      && chunks.withUnsafeBufferPointer { mine in
        other.chunks.withUnsafeBufferPointer { theirs in mine.baseAddress == theirs.baseAddress }
      }
  }

  static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.isSameVersion(as: rhs) || (lhs.count == rhs.count && lhs.elementsEqual(rhs))
  }

  // MARK: Collection

  var startIndex: Int { 0 }
  var endIndex: Int { count }

  subscript(position: Int) -> Record {
    get {
      let (chunk, offset) = locate(position)
      return chunks[chunk].records[offset]
    }
    set {
      let (chunk, offset) = locate(position)
      chunks[chunk].records[offset] = newValue
      chunks[chunk].summaries[offset] = RecordSummary(newValue)
    }
  }

  /// Iterates chunk by chunk, without locating each position.
  struct Iterator: IteratorProtocol {
    fileprivate var chunks: IndexingIterator<[Chunk]>
    fileprivate var current: IndexingIterator<[Record]>?

    mutating func next() -> Record? {
      while true {
        if let record = current?.next() { return record }
        guard let chunk = chunks.next() else { return nil }
        current = chunk.records.makeIterator()
      }
    }
  }

  func makeIterator() -> Iterator { Iterator(chunks: chunks.makeIterator(), current: nil) }

  /// The chunk holding `position`, and the position within it.
  private func locate(_ position: Int) -> (chunk: Int, offset: Int) {
    precondition(position >= 0 && position < count, "record position out of range")
    // The last chunk whose start is at or before `position`.
    var low = 0
    var high = starts.count - 1
    while low < high {
      let middle = (low + high + 1) / 2
      if starts[middle] <= position { low = middle } else { high = middle - 1 }
    }
    return (low, position - starts[low])
  }

  // MARK: Finding

  /// The position of the record with `key`.
  func index(of key: Key) -> Int? {
    let hash = key.hashValue
    for (chunk, start) in zip(chunks, starts) {
      var from = 0
      while let found = chunk.summaries.withUnsafeBufferPointer({
        RecordSummary.first(key: hash, in: $0, from: from)
      }) {
        if chunk.records[found].key == key { return start + found }
        from = found + 1
      }
    }
    return nil
  }

  /// The positions of the records whose inode number is `inode` (when not `nil`) or whose
  /// last known path is `path`: those that may hold the same target.
  func positions(withInode inode: UInt64?, orPath path: FilePath) -> [Int] {
    let pathHash = path.hashValue
    var found: [Int] = []
    for (chunk, start) in zip(chunks, starts) {
      let candidates = chunk.summaries.withUnsafeBufferPointer {
        RecordSummary.positions(inode: inode, path: pathHash, in: $0)
      }
      for index in candidates {
        let record = chunk.records[index]
        if (inode != nil && record.inode == inode) || record.lastKnownPath == path {
          found.append(start + index)
        }
      }
    }
    return found
  }

  // MARK: Changing

  mutating func append(_ record: Record) { insert(record, at: count) }

  /// Puts `record` at `position` (`count` for the end).
  mutating func insert(_ record: Record, at position: Int) {
    precondition(position >= 0 && position <= count, "record position out of range")
    if chunks.isEmpty || (position == count && chunks[chunks.count - 1].records.count >= Self.chunkSize) {
      chunks.append(Chunk())
      starts.append(count)
    }
    let (chunk, offset) =
      position == count ? (chunks.count - 1, position - starts[starts.count - 1]) : locate(position)
    chunks[chunk].records.insert(record, at: offset)
    chunks[chunk].summaries.insert(RecordSummary(record), at: offset)
    count += 1
    if chunks[chunk].records.count > Self.maximumChunk {
      let half = chunks[chunk].records.count / 2
      let tail = Chunk(
        records: Array(chunks[chunk].records[half...]), summaries: Array(chunks[chunk].summaries[half...]))
      chunks[chunk].records.removeSubrange(half...)
      chunks[chunk].summaries.removeSubrange(half...)
      chunks.insert(tail, at: chunk + 1)
      starts.insert(0, at: chunk + 1)
    }
    recountStarts(from: chunk + 1)
  }

  @discardableResult
  mutating func remove(at position: Int) -> Record {
    let (chunk, offset) = locate(position)
    let record = chunks[chunk].records.remove(at: offset)
    chunks[chunk].summaries.remove(at: offset)
    count -= 1
    if chunks[chunk].records.isEmpty {
      chunks.remove(at: chunk)
      starts.remove(at: chunk)
      recountStarts(from: chunk)
    } else {
      recountStarts(from: chunk + 1)
    }
    return record
  }

  /// Moves the record at `from` to `to` (a position in the list without it).
  mutating func move(from: Int, to: Int) {
    insert(remove(at: from), at: to)
  }

  /// Removes the records `shouldBeRemoved` picks (one pass; the list is made anew).
  mutating func removeAll(where shouldBeRemoved: (Record) -> Bool) {
    let kept = filter { !shouldBeRemoved($0) }
    if kept.count < count { self = StoreRecordList(kept) }
  }

  /// Makes each chunk's start from `chunk` on follow from the one before.
  private mutating func recountStarts(from chunk: Int) {
    guard chunk < chunks.count else { return }
    var start = chunk == 0 ? 0 : starts[chunk - 1] + chunks[chunk - 1].records.count
    for index in chunk..<chunks.count {
      starts[index] = start
      start += chunks[index].records.count
    }
  }
}

/// What finding a record compares before the record itself: plain integers, compared in
/// code that knows their types (unlike the store's generic records).
private struct RecordSummary: Sendable {
  var key: Int
  var path: Int
  /// The inode number of the record's identity; `nil` without one.
  var inode: UInt64?

  init<Key, Metadata>(_ record: StoreRecord<Key, Metadata>) {
    key = record.key.hashValue
    path = record.lastKnownPath.hashValue
    inode = record.inode
  }

  /// The first position from `from` on whose key hash is `key`.
  static func first(key: Int, in summaries: UnsafeBufferPointer<RecordSummary>, from: Int) -> Int? {
    var index = from
    while index < summaries.count {
      if summaries[index].key == key { return index }
      index += 1
    }
    return nil
  }

  /// The positions whose inode is `inode` (when not `nil`) or whose path hash is `path`.
  static func positions(inode: UInt64?, path: Int, in summaries: UnsafeBufferPointer<RecordSummary>) -> [Int]
  {
    var found: [Int] = []
    for index in summaries.indices
    where (inode != nil && summaries[index].inode == inode) || summaries[index].path == path {
      found.append(index)
    }
    return found
  }
}
