import DocumentBookmarks
import FoundationEssentials

/// `<store>.journal`: the changes made since the store file was last written whole, one
/// JSON line each, so that a change to a large store costs a short append and one flush
/// instead of a rewrite of every record (docs/format.md, "Store files").
///
/// The first line names the version of the store file the journal belongs to (the store
/// file's `journal` member); a journal that names another version is left over from before
/// a rewrite and is ignored. Each later line is one change: the records it adds or replaces,
/// the keys it removes, and where records moved. A line counts only when it is whole (it
/// ends with a line break, decodes and applies); reading stops at the first that is not,
/// so a change cut short by a crash is as if it had not begun.
///
/// Written only under the store's lock: a writer appends after the whole lines (cutting off
/// a change cut short first) and flushes before the change counts as made.
struct StoreJournal<Key: Hashable & Sendable & Codable, Metadata: Sendable & Codable & Equatable>: Sendable {
  typealias Contents = StoreContents<Key, Metadata>
  typealias Record = StoreRecord<Key, Metadata>
  typealias Records = StoreRecordList<Key, Metadata>
  typealias Failure = BookmarkStoreError<Key>

  static var formatName: String { "docbm-store-journal" }
  static var schemaVersion: Int { 1 }

  /// The journal's path: `<store>.journal`.
  let path: FilePath
  /// The store file, whose saves the process-wide save faults name.
  let storePath: FilePath

  init(storePath: FilePath) {
    self.storePath = storePath
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

  /// How far a reader got in a journal file: which file (device and inode), and the
  /// length of its whole lines, the header included.
  struct Position: Hashable, Sendable {
    let device: FileStatus.Device
    let inode: UInt64
    let length: Int
  }

  /// What reading the journal found.
  struct Reading: Sendable {
    /// Where the lines that belong to the store file's version end; `nil` when no journal
    /// belongs to it (none, another version's, or one whose first line was cut short).
    var position: Position?
    /// Whether a whole line after `position` does not decode or apply: damage, not a
    /// change cut short. The next change rewrites the store file and keeps this journal
    /// aside.
    var isDamaged = false

    static var none: Reading { Reading(position: nil) }
  }

  /// What ``replay(onto:snapshot:from:)`` found.
  enum Replay {
    case read(Reading)
    /// The journal is not the one `from` was read from, or it shrank: read the store file
    /// and its journal again from the start.
    case startOver
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

  /// The line that records `change`, line break included.
  static func line(for change: Change) throws -> [UInt8] {
    Array(try encoder.encode(change)) + [UInt8(ascii: "\n")]
  }

  private static var encoder: JSONEncoder {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return encoder
  }

  // MARK: Reading

  /// Reads the journal that belongs to the store file's version `snapshot` and applies its
  /// lines to `contents`: all of them, or, with `from`, those after the lines already
  /// applied there.
  ///
  /// - Throws: ``BookmarkStoreError`` `untrusted` (another user's journal, or one others
  ///   may write), `notAStore` (not a regular file, larger than the size limit), `docbm`
  ///   (a symbolic link, I/O).
  func replay(onto contents: inout Contents, snapshot: String?, from: Position?) throws(Failure) -> Replay {
    guard let snapshot, let (bytes, status) = try readBytes(from: from) else {
      return from == nil ? .read(.none) : .startOver
    }
    let newline = UInt8(ascii: "\n")
    var offset = 0
    if from == nil {
      // The first line: which version of the store file this journal belongs to. Cut
      // short, the journal was never finished; naming another version, it is left from
      // before a rewrite; unreadable, it is damaged (its lines cannot be trusted, and are
      // kept aside at the next change).
      guard let end = bytes.firstIndex(of: newline) else { return .read(.none) }
      guard let header = try? JSONDecoder().decode(Header.self, from: Data(bytes[..<end])),
        header.format == Self.formatName
      else { return .read(Reading(position: nil, isDamaged: true)) }
      guard header.snapshot == snapshot else { return .read(.none) }
      offset = end + 1
    }
    var replaying = Replaying(contents.records)
    var reading = Reading.none
    let decoder = JSONDecoder()
    while offset < bytes.count, let end = bytes[offset...].firstIndex(of: newline) {
      guard let change = try? decoder.decode(Change.self, from: Data(bytes[offset..<end])) else {
        reading.isDamaged = true
        break
      }
      replaying.apply(change)
      offset = end + 1
    }
    contents.records = replaying.records
    reading.position = Position(
      device: status.device, inode: status.inode, length: (from?.length ?? 0) + offset)
    return .read(reading)
  }

  /// The journal's bytes after `from` (all of them without), with its status; `nil` when
  /// there is no journal, or (with `from`) when it is another file or shorter than `from`.
  /// Opened without following a link or blocking on a FIFO.
  private func readBytes(from: Position?) throws(Failure) -> ([UInt8], FileStatus)? {
    let opened: StoreFileOpener.Opened<([UInt8], FileStatus)?>
    do {
      opened = try mappingSystemErrors(.openDocument, path: path) {
        () throws(SystemCallError) -> StoreFileOpener.Opened<([UInt8], FileStatus)?> in
        try StoreFileOpener.open(path, options: .noFollow) {
          (fd, status) throws(SystemCallError) -> ([UInt8], FileStatus)? in
          if let from {
            guard status.device == from.device, status.inode == from.inode, status.size >= UInt64(from.length)
            else { return nil }
            try fd.seek(to: from.length)
          }
          return (try fd.readWhole(limit: StoreFileOpener.sizeLimit), status)
        }
      }
    } catch {
      throw .docbm(error)
    }
    switch opened {
    case .absent: return nil
    case .read(let found): return found
    case .refused(let refusal): throw refusal.error(at: path, subject: "the store's journal is ")
    }
  }

  // MARK: Writing

  /// Appends `line` (one change, from ``line(for:)``) after the lines `reading` found,
  /// cutting off a change cut short there first, or starts a journal for the store file's
  /// version `snapshot` when none belongs to it. The line is flushed to the device (and a
  /// new journal's name with it) before this returns: then the change is made.
  ///
  /// - Returns: the journal's position after the line.
  /// - Throws: ``BookmarkStoreError`` `docbm` (`noSpace`, `ioError`, …) with the line cut
  ///   off again where that can be done, so that no reader takes it for a change.
  func append(_ line: [UInt8], snapshot: String, after reading: Reading) throws(Failure) -> Position {
    do {
      return try mappingSystemErrors(.save(.write), path: path) { () throws(SystemCallError) -> Position in
        if let position = reading.position, let fd = try? FileDescriptor.open(path, [.readWrite, .noFollow]) {
          defer { fd.close() }
          let status = try FileStatus.of(fd)
          if status.device == position.device, status.inode == position.inode {
            try write(line, to: fd, at: position.length, size: status.size, isNew: false)
            return Position(
              device: position.device, inode: position.inode, length: position.length + line.count)
          }
        }
        // No journal for this version yet (or another version's): a new one, header first.
        let header = Self.headerLine(snapshot: snapshot)
        let folder = try FileDescriptor.open(path.removingLastComponent, [.directory, .readOnly])
        defer { folder.close() }
        let name = FilePath(bytes: path.lastComponent) ?? path
        do throws(SystemCallError) {
          try folder.removeEntry(name, isDirectory: false)
        } catch  where error.errno == .noSuchFile {}
        let fd = try FileDescriptor.open(
          name, [.writeOnly, .create, .exclusive, .noFollow], permissions: 0o600, relativeTo: folder)
        defer { fd.close() }
        try write(header + line, to: fd, at: 0, size: 0, isNew: true)
        // The new name must last as long as the line in it; when it may not, the journal
        // goes again, and the change with it, as the error says.
        do throws(SystemCallError) {
          try SaveFaults.check(.syncFolder, call: "fsync", destination: storePath)
          try folder.sync()
        } catch {
          try? folder.removeEntry(name, isDirectory: false)
          throw error
        }
        let status = try FileStatus.of(fd)
        return Position(device: status.device, inode: status.inode, length: header.count + line.count)
      }
    } catch {
      throw .docbm(error)
    }
  }

  private static func headerLine(snapshot: String) -> [UInt8] {
    let header = Header(format: formatName, schemaVersion: schemaVersion, snapshot: snapshot)
    // Three strings and an integer always encode.
    return Array((try? encoder.encode(header)) ?? Data()) + [UInt8(ascii: "\n")]
  }

  /// Writes `bytes` at `offset` (cutting off what follows) and flushes them: the data for an
  /// append, data and metadata for a new file. On failure, takes them back: a line not
  /// written whole is cut off (no reader applies a line without its line break); a whole
  /// line whose flush failed may have been read by another process already, so the journal
  /// is replaced by a copy without it (``replace(_:keeping:)``).
  private func write(
    _ bytes: [UInt8], to fd: FileDescriptor, at offset: Int, size: UInt64, isNew: Bool
  ) throws(SystemCallError) {
    if size > UInt64(offset) { try fd.truncate(to: offset) }
    try fd.seek(to: offset)
    var written = false
    do throws(SystemCallError) {
      try SaveFaults.check(.write, call: "write", destination: storePath)
      try fd.writeAll(bytes)
      written = true
      try SaveFaults.check(.syncFile, call: isNew ? "fsync" : "fdatasync", destination: storePath)
      if isNew { try fd.sync() } else { try fd.syncData() }
    } catch {
      if written && !isNew { replace(fd, keeping: offset) } else { try? fd.truncate(to: offset) }
      throw error
    }
  }

  /// Replaces the journal by a copy of its first `length` bytes, under a new inode, so that
  /// a process that applied the lines after them reads the journal again from the start
  /// (its position names the old inode). Falls back to cutting the journal at `length`.
  private func replace(_ fd: FileDescriptor, keeping length: Int) {
    let copyPath = path.addingSuffix(".new")
    do throws(SystemCallError) {
      try fd.seek(to: 0)
      let bytes = try fd.readWhole(limit: StoreFileOpener.sizeLimit)
      guard bytes.count >= length else { throw SystemCallError("read", .ioError, path: path) }
      do throws(SystemCallError) {
        try FileDescriptor.currentWorkingDirectory.removeEntry(copyPath, isDirectory: false)
      } catch  where error.errno == .noSuchFile {}
      let copy = try FileDescriptor.open(
        copyPath, [.writeOnly, .create, .exclusive, .noFollow], permissions: 0o600)
      defer { copy.close() }
      try copy.writeAll(bytes[..<length])
      try copy.sync()
      try FileDescriptor.currentWorkingDirectory.rename(copyPath, to: path, in: .currentWorkingDirectory)
    } catch {
      try? FileDescriptor.currentWorkingDirectory.removeEntry(copyPath, isDirectory: false)
      try? fd.truncate(to: length)
    }
  }

  /// Removes the journal after the store file was written whole; a damaged one is kept
  /// aside as `<store>.journal.corrupt-<seconds>` for inspection. Best effort: a journal
  /// left behind names the version before and is ignored.
  func remove(keepingAside: Bool) {
    if keepingAside {
      let stamp = Int(Date().timeIntervalSince1970)
      let aside = path.addingSuffix(".corrupt-\(stamp)")
      if (try? FileDescriptor.currentWorkingDirectory.renameWithoutReplacing(
        path, to: aside, in: .currentWorkingDirectory)) != nil
      {
        return
      }
    }
    try? FileDescriptor.currentWorkingDirectory.removeEntry(path, isDirectory: false)
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
