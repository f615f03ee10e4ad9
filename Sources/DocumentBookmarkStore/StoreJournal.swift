import DocbmSystem
import DocumentBookmarks
import FoundationEssentials

/// `<store>.journal` of a docbm 0.1 store: the changes made since its JSON file was last
/// written whole, one JSON line each (docs/format.md, "Store files of docbm 0.1"). Read once,
/// when the store is migrated to a database; its line (``Change``) is also how a change
/// says what it did (``StoreEdit``).
///
/// The first line names the version of the store file the journal belongs to (the store
/// file's `journal` member); a journal that names another version is left over from before
/// a rewrite and is ignored. Each later line is one change: the records it adds or replaces,
/// the keys it removes, and where records moved. A line counts only when it is whole (it
/// ends with a line break, decodes and applies); reading stops at the first that is not,
/// so a change cut short by a crash is as if it had not begun.
///
struct StoreJournal<Key: Hashable & Sendable & Codable, Metadata: Sendable & Codable & Equatable>: Sendable {
  typealias Contents = StoreContents<Key, Metadata>
  typealias Record = StoreRecord<Key, Metadata>
  typealias Records = StoreRecordList<Key, Metadata>
  typealias Failure = BookmarkStoreError<Key>

  static var formatName: String { "docbm-store-journal" }
  static var schemaVersion: Int { 1 }

  /// The journal's path: `<store>.journal`.
  let path: FilePath

  init(storePath: FilePath) {
    path = storePath.addingSuffix(".journal")
  }

  /// One change, as a line of the journal. Applied in this order: removals, then records
  /// put (replaced where their key is, else added at the end), then moves, then `order`.
  struct Change: Codable, Equatable {
    /// Records added or changed, whole.
    var put: [Record]?
    /// Keys of records removed.
    var remove: [Key]?
    /// Records moved, one after the other: each to its index in the list at that moment.
    var move: [Move]?
    /// The whole order of keys, when it changed by more than a few moves.
    var order: [Key]?
  }

  /// A record moved to `to`.
  struct Move: Codable, Equatable {
    let key: Key
    let to: Int
  }

  /// The journal's first line.
  private struct Header: Codable {
    let format: String
    let schemaVersion: Int
    let snapshot: String
  }

  /// What reading the journal found.
  struct Reading: Sendable {
    /// Whether a whole line does not decode: damage, not a change cut short. The journal is
    /// then kept aside when the store is migrated.
    var isDamaged = false
  }

  // MARK: Changes

  /// The change that turns `before` into `after`, or `nil` when a journal line cannot say
  /// it (members or records this version does not read changed). `changed`: the positions
  /// of the records that differ, when both hold the same keys in the same order
  /// (``StoreContents/changedPositions(to:)``).
  static func change(from before: Contents, to after: Contents, changed: [Int]?) -> Change? {
    guard before.sameUnreadParts(as: after) else { return nil }
    var change = Change()
    // The common case: the same keys in the same order, some records changed in place.
    if let changed {
      change.put = changed.map { after.records[$0] }
      return change
    }
    let beforeByKey = Dictionary(before.records.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
    let afterKeys = Set(after.records.map(\.key))
    let removed = before.records.map(\.key).filter { !afterKeys.contains($0) }
    if !removed.isEmpty { change.remove = removed }
    let put = after.records.filter { beforeByKey[$0.key] != $0 }
    if !put.isEmpty { change.put = put }
    // The order the removals and additions give, then the moves to the order wanted.
    var order = before.records.map(\.key).filter { afterKeys.contains($0) }
    order += after.records.map(\.key).filter { beforeByKey[$0] == nil }
    let target = after.records.map(\.key)
    var moves: [Move] = []
    for index in target.indices where order[index] != target[index] {
      guard moves.count < 16, let from = order[index...].firstIndex(of: target[index]) else {
        change.order = target
        return change
      }
      order.insert(order.remove(at: from), at: index)
      moves.append(Move(key: target[index], to: index))
    }
    if !moves.isEmpty { change.move = moves }
    return change
  }

  /// `records` with `change` applied, as a reader of the journal applies it.
  static func applying(_ change: Change, to records: Records) -> Records {
    var replaying = Replaying(records)
    replaying.apply(change)
    return replaying.records
  }

  // MARK: Reading

  /// Reads the journal that belongs to the store file's version `snapshot` and applies its
  /// lines to `contents`.
  ///
  /// - Throws: ``BookmarkStoreError`` `untrusted` (another user's journal, or one others
  ///   may write), `notAStore` (not a regular file, larger than the size limit), `docbm`
  ///   (a symbolic link, I/O).
  func replay(onto contents: inout Contents, snapshot: String?) throws(Failure) -> Reading {
    guard let snapshot, let bytes = try readBytes() else { return Reading() }
    let newline = UInt8(ascii: "\n")
    // The first line: which version of the store file this journal belongs to. Cut short,
    // the journal was never finished; naming another version, it is left from before a
    // rewrite; unreadable, it is damaged (its lines cannot be trusted, and are kept aside).
    guard let end = bytes.firstIndex(of: newline) else { return Reading() }
    // Unreadable: damaged, as said above.
    guard let header = try? JSONDecoder().decode(Header.self, from: Data(bytes[..<end])),
      header.format == Self.formatName
    else { return Reading(isDamaged: true) }
    guard header.snapshot == snapshot else { return Reading() }
    var offset = end + 1
    var replaying = Replaying(contents.records)
    var reading = Reading()
    let decoder = JSONDecoder()
    while offset < bytes.count, let end = bytes[offset...].firstIndex(of: newline) {
      // An unreadable line marks the journal damaged: nothing after it is applied.
      guard let change = try? decoder.decode(Change.self, from: Data(bytes[offset..<end])) else {
        reading.isDamaged = true
        break
      }
      replaying.apply(change)
      offset = end + 1
    }
    contents.records = replaying.records
    return reading
  }

  /// The journal's bytes, or `nil` when there is none. Opened without following a link or
  /// blocking on a FIFO.
  private func readBytes() throws(Failure) -> [UInt8]? {
    try StoreFileOpener.readWhole(path, options: .noFollow, subject: "the store's journal is ", for: Key.self)
  }

  /// Removes the journal once the store is migrated; a damaged one is kept aside as
  /// `<store>.journal.corrupt-<seconds>` for inspection. Best effort: a journal left behind
  /// names the JSON file's version, which no longer exists, and is ignored.
  func remove(keepingAside: Bool) {
    if keepingAside {
      let stamp = Int(Date().timeIntervalSince1970)
      let aside = path.addingSuffix(".corrupt-\(stamp)")
      // Best effort, as documented: a journal that cannot be kept aside is removed.
      if (try? FileDescriptor.currentWorkingDirectory.renameWithoutReplacing(
        path, to: aside, in: .currentWorkingDirectory)) != nil
      {
        return
      }
    }
    try? FileDescriptor.currentWorkingDirectory.removeEntry(path, isDirectory: false)  // best effort
  }
}

/// Applies journal lines to a list of records. A record named by a line is found in the
/// list's summaries; from the 16th look-up on (a long journal read whole), in a table of
/// where each key is, kept while only replacements and additions happen (the usual lines),
/// so that a long journal costs a lookup per record it names.
private struct Replaying<Key: Hashable & Sendable & Codable, Metadata: Sendable & Codable & Equatable> {
  typealias Record = StoreRecord<Key, Metadata>
  var records: StoreRecordList<Key, Metadata>
  private var positions: [Key: Int]?
  private var lookups = 0

  init(_ records: StoreRecordList<Key, Metadata>) { self.records = records }

  mutating func apply(_ change: StoreJournal<Key, Metadata>.Change) {
    if let remove = change.remove, !remove.isEmpty {
      let gone = Set(remove)
      records.removeAll { gone.contains($0.key) }
      positions = nil
    }
    for record in change.put ?? [] {
      if let index = position(of: record.key) {
        records[index] = record
      } else {
        positions?[record.key] = records.count
        records.append(record)
      }
    }
    for move in change.move ?? [] {
      guard let from = position(of: move.key) else { continue }
      records.move(from: from, to: min(max(move.to, 0), records.count - 1))
      positions = nil
    }
    if let order = change.order {
      let rank = Dictionary(order.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
      // Records the order does not name keep their places relative to each other, after it.
      records = StoreRecordList(
        records.enumerated().sorted {
          (rank[$0.element.key] ?? order.count + $0.offset, $0.offset)
            < (rank[$1.element.key] ?? order.count + $1.offset, $1.offset)
        }.map(\.element))
      positions = nil
    }
  }

  private mutating func position(of key: Key) -> Int? {
    lookups += 1
    guard lookups >= 16 else { return records.index(of: key) }
    if positions == nil {
      positions = Dictionary(
        records.indices.map { (records[$0].key, $0) }, uniquingKeysWith: { first, _ in first })
    }
    return positions?[key]
  }
}
