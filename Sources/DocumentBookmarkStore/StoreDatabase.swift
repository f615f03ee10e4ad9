import DocbmSystem
import DocumentBookmarks
import FoundationEssentials

/// One connection to a store file (``StoreSchema``), used by one thread at a time: the
/// rows it reads and writes, each call one statement, inside the transactions
/// ``StoreFile`` runs. SQLite's rollback journal (`<store>-journal`) and its locks on the
/// file make every change whole or absent, and serialise the processes that change it.
final class StoreDatabase<Key: Hashable & Sendable & Codable, Metadata: Sendable & Codable & Equatable> {
  typealias Record = StoreRecord<Key, Metadata>
  typealias Failure = BookmarkStoreError<Key>

  let connection: SQLiteDatabase
  let path: FilePath
  /// The file the connection has open (`nil`: a database in memory): when the path names
  /// another, the store was replaced (restored, migrated, copied over) and is opened again.
  let identity: FileIdentity?

  /// A file by device and inode.
  struct FileIdentity: Equatable {
    let device: FileStatus.Device
    let inode: UInt64
  }

  init(connection: SQLiteDatabase, path: FilePath, identity: FileIdentity?) {
    self.connection = connection
    self.path = path
    self.identity = identity
  }

  /// Which store and which version of it: the name made with the store, and its version.
  struct Stamp: Equatable, Sendable {
    let name: String
    let version: Int64
  }

  // MARK: Encoding

  private let encoder: JSONEncoder = {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return encoder
  }()
  private let decoder = JSONDecoder()
  /// The decoder of rows whose `others` column says they hold only the members this
  /// version writes.
  private let knownMembersDecoder: JSONDecoder = {
    let decoder = JSONDecoder()
    decoder.userInfo[.recordHoldsOnlyKnownMembers] = true
    return decoder
  }()

  /// A key as the `key` column holds it: its JSON, members sorted.
  func keyText(_ key: Key) throws(Failure) -> String {
    do {
      return String(decoding: try encoder.encode(key), as: UTF8.self)
    } catch {
      throw .docbm(
        DocbmError(.systemFailure, path: nil, message: "the key \(key) cannot be encoded as JSON: \(error)"))
    }
  }

  /// The key a `key` column holds, or `nil` when this version cannot read it.
  func key(fromText text: String) -> Key? {
    // A key another version wrote in a form this one cannot read is passed over.
    return try? decoder.decode(Key.self, from: Data(text.utf8))
  }

  /// The columns of a row that make its record, in the order ``decodeRecord(_:from:)``
  /// reads them.
  private static var recordColumns: String { "record, others" }

  /// A row's record, its columns ``recordColumns`` from `column` on, or `nil` when this
  /// version cannot read it (the row is then left as it is).
  private func decodeRecord(_ statement: SQLiteStatement, from column: Int32) -> Record? {
    let decoder = statement.int64(column + 1) == 0 ? knownMembersDecoder : decoder
    return statement.withBytes(column) { bytes in
      // A row this version cannot read is skipped, not an error: it is kept for the
      // version that wrote it.
      try? decoder.decode(Record.self, from: Data(buffer: bytes))
    }
  }

  // MARK: Reading

  /// The store's name and version.
  func stamp() throws(SQLiteError) -> Stamp {
    let statement = try connection.prepare(
      "SELECT (SELECT value FROM meta WHERE name = 'name'), (SELECT value FROM meta WHERE name = 'version')")
    guard try statement.step() else { return Stamp(name: "", version: 0) }
    return Stamp(name: statement.text(0), version: statement.int64(1))
  }

  /// The oldest version whose removals are all kept.
  func horizon() throws(SQLiteError) -> Int64 {
    try integer("SELECT value FROM meta WHERE name = 'horizon'") ?? 0
  }

  /// Every record this version reads, in order, with its position.
  func allRecords() throws(SQLiteError) -> [(record: Record, position: Int64)] {
    let statement = try connection.prepare(
      "SELECT position, \(Self.recordColumns) FROM records ORDER BY position, key")
    var rows: [(record: Record, position: Int64)] = []
    while try statement.step() {
      if let record = decodeRecord(statement, from: 1) { rows.append((record, statement.int64(0))) }
    }
    return rows
  }

  /// What changed after `version`: the records put since (in order, with their positions)
  /// and the keys removed since: only those rows are read, found through the index of
  /// versions. `+position` leaves the index of positions out of the plan, which would
  /// give the order by reading every row; the rows found are sorted instead.
  func changes(since version: Int64) throws(SQLiteError) -> (
    put: [(record: Record, position: Int64)], removed: [Key]
  ) {
    let rows = try connection.prepare(
      "SELECT position, \(Self.recordColumns) FROM records WHERE changed > ?1 ORDER BY +position, key"
    ).bind(.integer(version))
    var put: [(record: Record, position: Int64)] = []
    while try rows.step() {
      if let record = decodeRecord(rows, from: 1) { put.append((record, rows.int64(0))) }
    }
    let gone = try connection.prepare("SELECT key FROM removed WHERE changed > ?1").bind(.integer(version))
    var removed: [Key] = []
    while try gone.step() {
      if let key = key(fromText: gone.text(0)) { removed.append(key) }
    }
    return (put, removed)
  }

  /// The records with `keys` (those this version reads), with their positions.
  func records(withKeys keys: [Key]) throws(Failure) -> [(record: Record, position: Int64)] {
    var found: [(record: Record, position: Int64)] = []
    for key in keys {
      let text = try keyText(key)
      try sqlite("reading") { () throws(SQLiteError) in
        let statement = try connection.prepare(
          "SELECT position, \(Self.recordColumns) FROM records WHERE key = ?1"
        ).bind(
          .text(text))
        if try statement.step(), let record = decodeRecord(statement, from: 1) {
          found.append((record, statement.int64(0)))
        }
      }
    }
    return found
  }

  /// The records whose target has `inode` or whose last known path is `path`: those that
  /// may hold the same target (to be confirmed).
  func records(withInode inode: UInt64?, orPath path: FilePath) throws(Failure) -> [(
    record: Record, position: Int64
  )] {
    try sqlite("reading") { () throws(SQLiteError) in
      let statement = try connection.prepare(
        "SELECT position, \(Self.recordColumns) FROM records WHERE inode = ?1 UNION SELECT position, \(Self.recordColumns) FROM records WHERE path = ?2 ORDER BY 1"
      ).bind(inode.map { .integer(Int64(bitPattern: $0)) } ?? .null, .blob(path.bytes))
      var found: [(record: Record, position: Int64)] = []
      while try statement.step() {
        if let record = decodeRecord(statement, from: 1) { found.append((record, statement.int64(0))) }
      }
      return found
    }
  }

  /// The first and last positions taken, or `nil` when the store has no row.
  func positionBounds() throws(SQLiteError) -> (first: Int64, last: Int64)? {
    let statement = try connection.prepare("SELECT min(position), max(position) FROM records")
    guard try statement.step(), !statement.isNull(0) else { return nil }
    return (statement.int64(0), statement.int64(1))
  }

  /// How many rows the store has, readable or not.
  func rowCount() throws(SQLiteError) -> Int {
    Int(try integer("SELECT count(*) FROM records") ?? 0)
  }

  /// Members of a migrated JSON file this version does not know, by name.
  func unknownMembers() throws(SQLiteError) -> [String: JSONValue] {
    let statement = try connection.prepare(
      "SELECT substr(name, 8), value FROM meta WHERE name LIKE 'member:%'")
    var members: [String: JSONValue] = [:]
    while try statement.step() {
      // A member that does not decode was not written by docbm; it is left in the file.
      if let value = try? decoder.decode(JSONValue.self, from: Data(statement.text(1).utf8)) {
        members[statement.text(0)] = value
      }
    }
    return members
  }

  /// The rows this version cannot read, as their JSON.
  func unreadableRows() throws(SQLiteError) -> [JSONValue] {
    let statement = try connection.prepare("SELECT \(Self.recordColumns) FROM records ORDER BY position, key")
    var rows: [JSONValue] = []
    while try statement.step() {
      guard decodeRecord(statement, from: 0) == nil else { continue }
      // A row that is not even JSON is left out of an export (it stays in the file).
      if let value = try? decoder.decode(JSONValue.self, from: Data(statement.text(0).utf8)) {
        rows.append(value)
      }
    }
    return rows
  }

  /// The first column of the first row of `sql`, or `nil` when there is none or it is NULL.
  func integer(_ sql: String) throws(SQLiteError) -> Int64? {
    let statement = try connection.prepare(sql)
    guard try statement.step(), !statement.isNull(0) else { return nil }
    return statement.int64(0)
  }

  // MARK: Writing (inside a write transaction)

  /// Counts one more version and returns it; removals older than ``StoreSchema/removalsKept``
  /// versions are dropped.
  func nextVersion() throws(SQLiteError) -> Int64 {
    try connection.prepare("UPDATE meta SET value = value + 1 WHERE name = 'version'").run()
    let version = try integer("SELECT value FROM meta WHERE name = 'version'") ?? 0
    if version % 64 == 0 {
      let horizon = version - StoreSchema.removalsKept
      try connection.prepare("DELETE FROM removed WHERE changed <= ?1").bind(.integer(horizon)).run()
      try connection.prepare("INSERT OR REPLACE INTO meta(name, value) VALUES ('horizon', ?1)").bind(
        .integer(horizon)
      ).run()
    }
    return version
  }

  /// Writes `record` at `position`, changed at `version`.
  func put(_ record: Record, at position: Int64, version: Int64) throws(Failure) {
    let key = try keyText(record.key)
    let json: Data
    do {
      json = try encoder.encode(record)
    } catch {
      throw .corrupt(path: path, reason: "the record \(record.key) cannot be encoded: \(error)")
    }
    try sqlite("writing") { () throws(SQLiteError) in
      try connection.prepare(
        """
        INSERT INTO records(key, position, inode, path, changed, record, others)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
        ON CONFLICT(key) DO UPDATE SET position = excluded.position, inode = excluded.inode,
        path = excluded.path, changed = excluded.changed, record = excluded.record, others = excluded.others
        """
      ).bind(
        .text(key), .integer(position),
        record.identity.map { .integer(Int64(bitPattern: $0.inode)) } ?? .null,
        .blob(record.lastKnownPath.bytes), .integer(version), .textBytes(Array(json)),
        .integer(record.unknownMembers.isEmpty ? 0 : 1)
      ).run()
      try connection.prepare("DELETE FROM removed WHERE key = ?1").bind(.text(key)).run()
    }
  }

  /// Moves the record with `key` to `position`, changed at `version`.
  func move(_ key: Key, to position: Int64, version: Int64) throws(Failure) {
    let key = try keyText(key)
    try sqlite("writing") { () throws(SQLiteError) in
      try connection.prepare("UPDATE records SET position = ?2, changed = ?3 WHERE key = ?1").bind(
        .text(key), .integer(position), .integer(version)
      ).run()
    }
  }

  /// Removes the record with `key` at `version`.
  func remove(_ key: Key, version: Int64) throws(Failure) {
    let key = try keyText(key)
    try sqlite("writing") { () throws(SQLiteError) in
      try connection.prepare("DELETE FROM records WHERE key = ?1").bind(.text(key)).run()
      try connection.prepare("INSERT OR REPLACE INTO removed(key, changed) VALUES (?1, ?2)").bind(
        .text(key), .integer(version)
      ).run()
    }
  }

  /// Runs `body`, turning an SQLite failure into the store's error for `doing`.
  func sqlite<Value>(_ doing: String, _ body: () throws(SQLiteError) -> Value) throws(Failure) -> Value {
    do {
      return try body()
    } catch {
      throw Self.failure(error, path: path, doing: doing)
    }
  }

  /// The store's error for an SQLite failure while `doing` (`reading`, `writing`, …) the
  /// store at `path`.
  static func failure(_ error: SQLiteError, path: FilePath, doing: String) -> Failure {
    let what = "\(doing) the store \(path) failed (\(error))"
    if error.isDamaged { return .corrupt(path: path, reason: "\(error)") }
    if error.isFull {
      return .docbm(
        DocbmError(.noSpace, path: path, message: "\(what): free some space; nothing saved was lost"))
    }
    if error.isInputOutput {
      return .docbm(
        DocbmError(.ioError, path: path, message: "\(what): the storage failed; nothing saved was lost"))
    }
    if error.isBusy {
      return .docbm(
        DocbmError(
          .systemFailure, path: path,
          message:
            "\(what): another program kept it locked for over \(SQLiteDatabase.busyTimeout / 1000) s; try again"
        ))
    }
    if error.isReadOnly {
      return .docbm(
        DocbmError(.readOnlyFilesystem, path: path, message: "\(what): it cannot be written here"))
    }
    if error.cannotOpen {
      return .docbm(DocbmError(.permissionDenied, path: path, message: "\(what): it cannot be opened here"))
    }
    return .docbm(DocbmError(.systemFailure, path: path, message: what))
  }
}
