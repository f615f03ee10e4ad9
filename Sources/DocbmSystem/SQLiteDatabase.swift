import CSQLite

/// A connection to one SQLite database file, used by one thread at a time.
///
/// Opened without following a symbolic link in the last component, with extended result
/// codes and without trusting the file's schema to run functions; busy for at most
/// ``busyTimeout`` milliseconds before a call fails with `SQLITE_BUSY` (SQLite's own file
/// locks serialise writers across processes). Closed when the last reference goes.
///
/// Statements are compiled once per connection: a statement given back (its
/// ``SQLiteStatement`` released) is reset and kept for the next ``prepare(_:)`` of the same
/// text, so that a connection that looks up one row at a time does not compile its query
/// each time.
package final class SQLiteDatabase {
  /// How long a statement waits for another connection's lock before it fails.
  package static let busyTimeout: Int32 = 10_000

  /// How many compiled statements a connection keeps for reuse.
  static let keptStatements = 32

  private let handle: OpaquePointer
  /// Compiled statements not in use, by their text.
  private var idleStatements: [String: OpaquePointer] = [:]
  /// The file's path.
  package let path: FilePath

  /// Opens the database at `path`, which must exist, for reading and writing (read only
  /// where the file or its filesystem cannot be written, as SQLite does).
  ///
  /// - Throws: ``SQLiteError`` `SQLITE_CANTOPEN` when it is missing, a symbolic link, or
  ///   cannot be opened; SQLite's other codes otherwise.
  package init(_ path: FilePath) throws(SQLiteError) {
    let flags = SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_EXRESCODE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_READWRITE
    var opened: OpaquePointer?
    let result = path.withCString { sqlite3_open_v2($0, &opened, flags, nil) }
    guard result == SQLITE_OK, let opened else {
      let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? ""
      sqlite3_close_v2(opened)
      throw SQLiteError(code: result, message: message)
    }
    handle = opened
    self.path = path
    sqlite3_busy_timeout(handle, SQLiteDatabase.busyTimeout)
    // Functions named in a file's schema (views, triggers, defaults) are not run for it: a
    // database is data, whoever wrote it.
    sqlite3_exec(handle, "PRAGMA trusted_schema = OFF", nil, nil, nil)
  }

  /// Makes the connections this process opens take their page cache's memory a page at a
  /// time, as they read, with none set aside in advance: a short process that reads a few
  /// pages (a command-line call) touches only the memory it uses. Effective only before
  /// the process's first connection; afterwards, or when something else in the process
  /// initialised SQLite first, it changes nothing.
  /// SQLite's configuration is the whole process's, so a program calls this for itself:
  /// docbm's command line does, the library never does.
  package static func allocatePagesOnDemand() {
    _ = cdocbm_sqlite_page_cache_on_demand()
  }

  /// A read-only database held in memory, made from `bytes`: the image of a database file
  /// that the caller read itself (through a descriptor it checked), so that nothing else
  /// can be swapped in between the check and the reading, and nothing is written beside
  /// it. `path` names where the bytes came from, for messages.
  ///
  /// - Throws: ``SQLiteError`` when SQLite cannot take the bytes (too large for it, or out
  ///   of memory); bytes that are not a database fail at the first statement
  ///   (`SQLITE_NOTADB`).
  package convenience init(deserializing bytes: [UInt8], path: FilePath) throws(SQLiteError) {
    let opened = try SQLiteDatabase.openInMemory()
    // SQLite takes memory it allocated itself, and frees it when the connection closes.
    guard let image = sqlite3_malloc64(UInt64(max(bytes.count, 1))) else {
      sqlite3_close_v2(opened)
      throw SQLiteError(code: SQLITE_NOMEM, message: "")
    }
    bytes.withUnsafeBytes { source in
      if let start = source.baseAddress { image.copyMemory(from: start, byteCount: source.count) }
    }
    // On failure SQLite frees the image itself (FREEONCLOSE).
    let loaded = sqlite3_deserialize(
      opened, "main", image.assumingMemoryBound(to: UInt8.self), sqlite3_int64(bytes.count),
      sqlite3_int64(bytes.count),
      UInt32(SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_READONLY))
    guard loaded == SQLITE_OK else {
      let message = String(cString: sqlite3_errmsg(opened))
      sqlite3_close_v2(opened)
      throw SQLiteError(code: loaded, message: message)
    }
    self.init(inMemory: opened, path: path)
  }

  /// An empty database held in memory, for reading and writing; `path` names it in
  /// messages.
  ///
  /// - Throws: ``SQLiteError`` `SQLITE_NOMEM` when SQLite cannot open it.
  package convenience init(inMemoryNamed path: FilePath) throws(SQLiteError) {
    self.init(inMemory: try SQLiteDatabase.openInMemory(), path: path)
  }

  /// A connection to a new, empty database in memory.
  private static func openInMemory() throws(SQLiteError) -> OpaquePointer {
    let flags = SQLITE_OPEN_EXRESCODE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY
    var opened: OpaquePointer?
    let result = sqlite3_open_v2(":memory:", &opened, flags, nil)
    guard result == SQLITE_OK, let opened else {
      sqlite3_close_v2(opened)
      throw SQLiteError(code: result, message: "")
    }
    return opened
  }

  private init(inMemory handle: OpaquePointer, path: FilePath) {
    self.handle = handle
    self.path = path
    sqlite3_exec(handle, "PRAGMA trusted_schema = OFF", nil, nil, nil)
  }

  /// The image of this connection's main database as a file of it would hold it, made in
  /// memory: a consistent state of the database (copied under one read lock with SQLite's
  /// backup, waiting for a writer as a statement would), then rebuilt with `VACUUM`, so that
  /// no free page carries bytes of rows deleted before. Nothing is written to any file, so
  /// the caller decides where, and through which descriptor, the bytes go.
  ///
  /// - Throws: ``SQLiteError``: `SQLITE_BUSY` when another connection held its write lock
  ///   past ``busyTimeout``, `SQLITE_NOMEM`, or the error reading the file.
  package func compactedImage() throws(SQLiteError) -> [UInt8] {
    let copy = try SQLiteDatabase(inMemoryNamed: path)
    guard let backup = sqlite3_backup_init(copy.handle, "main", handle, "main") else {
      throw copy.lastError(SQLITE_ERROR)
    }
    let stepped = sqlite3_backup_step(backup, -1)
    let finished = sqlite3_backup_finish(backup)
    guard stepped == SQLITE_DONE, finished == SQLITE_OK else {
      throw SQLiteError(
        code: stepped == SQLITE_DONE ? finished : stepped, message: String(cString: sqlite3_errstr(stepped)))
    }
    try copy.execute("VACUUM")
    var size: sqlite3_int64 = 0
    guard let image = sqlite3_serialize(copy.handle, "main", &size, 0) else {
      throw SQLiteError(code: SQLITE_NOMEM, message: "")
    }
    defer { sqlite3_free(image) }
    return Array(UnsafeBufferPointer(start: image, count: Int(size)))
  }

  deinit {
    for statement in idleStatements.values { sqlite3_finalize(statement) }
    sqlite3_close_v2(handle)
  }

  /// Runs `sql`, one or more statements with no parameters and no rows wanted.
  package func execute(_ sql: String) throws(SQLiteError) {
    var message: UnsafeMutablePointer<CChar>?
    let result = sqlite3_exec(handle, sql, nil, nil, &message)
    defer { sqlite3_free(message) }
    guard result == SQLITE_OK else {
      throw SQLiteError(
        code: sqlite3_extended_errcode(handle), message: message.map { String(cString: $0) } ?? "")
    }
  }

  /// One statement: compiled now, or the one compiled for the same text before and given
  /// back since. Two statements of one text in use at once are two compilations.
  ///
  /// - Throws: ``SQLiteError`` when `sql` does not compile (its syntax, or a table or
  ///   column the file does not have).
  package func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
    if let idle = idleStatements.removeValue(forKey: sql) {
      return SQLiteStatement(idle, text: sql, database: self)
    }
    var statement: OpaquePointer?
    let result = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
    guard result == SQLITE_OK, let statement else { throw lastError(result) }
    return SQLiteStatement(statement, text: sql, database: self)
  }

  /// Takes back a statement its ``SQLiteStatement`` no longer uses: reset (which ends the
  /// read it was in, releasing its locks) and kept, or finalized when one of its text is
  /// kept already or the connection keeps ``keptStatements``.
  fileprivate func giveBack(_ statement: OpaquePointer, text: String) {
    sqlite3_reset(statement)
    sqlite3_clear_bindings(statement)
    guard idleStatements[text] == nil, idleStatements.count < SQLiteDatabase.keptStatements else {
      sqlite3_finalize(statement)
      return
    }
    idleStatements[text] = statement
  }

  /// Runs `body` in a transaction that takes the write lock at once (`BEGIN IMMEDIATE`),
  /// so that two writers never both read and then fail to write: committed when `body`
  /// returns, rolled back when it throws (or the commit fails).
  package func writeTransaction<Value>(_ body: () throws(SQLiteError) -> Value) throws(SQLiteError) -> Value {
    try transaction("BEGIN IMMEDIATE", body)
  }

  /// Whether a transaction is open on this connection (SQLite's autocommit mode is off).
  package var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

  /// Runs `body` in a read transaction: every statement in it sees one state of the file.
  package func readTransaction<Value>(_ body: () throws(SQLiteError) -> Value) throws(SQLiteError) -> Value {
    try transaction("BEGIN DEFERRED", body)
  }

  /// Runs `body` between `begin` and `COMMIT`, rolling back when it throws or the commit
  /// fails (a failed statement or COMMIT may leave the transaction open, or rolled back
  /// already).
  private func transaction<Value>(
    _ begin: String, _ body: () throws(SQLiteError) -> Value
  ) throws(SQLiteError) -> Value {
    try prepare(begin).run()
    do {
      let value = try body()
      try prepare("COMMIT").run()
      return value
    } catch {
      // Clean-up after the error thrown below; a failed rollback is undone when the connection closes.
      if sqlite3_get_autocommit(handle) == 0 { try? execute("ROLLBACK") }
      throw error
    }
  }

  /// `PRAGMA quick_check`: `ok`, or SQLite's first finding (its structure: pages, b-trees,
  /// the free list, `NOT NULL` and `STRICT` types), in time that follows the file's size.
  package func quickCheck() throws(SQLiteError) -> String {
    let statement = try prepare("PRAGMA quick_check(1)")
    return try statement.step() ? statement.text(0) : ""
  }

  /// `PRAGMA user_version`: the application's own schema version.
  package func userVersion() throws(SQLiteError) -> Int64 {
    let statement = try prepare("PRAGMA user_version")
    guard try statement.step() else { return 0 }
    return statement.int64(0)
  }

  /// The rows changed by the last `INSERT`, `UPDATE` or `DELETE`.
  package var changes: Int { Int(sqlite3_changes64(handle)) }

  /// The row id of the last `INSERT`.
  package var lastInsertedRow: Int64 { sqlite3_last_insert_rowid(handle) }

  func lastError(_ result: Int32) -> SQLiteError {
    let code = sqlite3_extended_errcode(handle)
    return SQLiteError(
      code: code == SQLITE_OK ? result : code, message: String(cString: sqlite3_errmsg(handle)))
  }
}

/// One compiled statement of a ``SQLiteDatabase``, in use until released (then reset and
/// given back to its connection). Parameters are numbered from 1, columns from 0, as in
/// SQLite's C API.
package final class SQLiteStatement {
  private let handle: OpaquePointer
  /// The SQL it was compiled from.
  private let text: String
  private let database: SQLiteDatabase

  init(_ handle: OpaquePointer, text: String, database: SQLiteDatabase) {
    self.handle = handle
    self.text = text
    self.database = database
  }

  deinit {
    database.giveBack(handle, text: text)
  }

  /// Binds the values in order to parameters 1, 2, …, after resetting the statement.
  @discardableResult
  package func bind(_ values: SQLiteValue...) throws(SQLiteError) -> SQLiteStatement {
    try bind(values)
  }

  /// ``bind(_:)-(SQLiteValue...)`` with the values in an array.
  @discardableResult
  package func bind(_ values: [SQLiteValue]) throws(SQLiteError) -> SQLiteStatement {
    sqlite3_reset(handle)
    sqlite3_clear_bindings(handle)
    for (offset, value) in values.enumerated() {
      let index = Int32(offset + 1)
      let result: Int32
      switch value {
      case .null: result = sqlite3_bind_null(handle, index)
      case .integer(let number): result = sqlite3_bind_int64(handle, index, number)
      case .text(let text): result = sqlite3_bind_text(handle, index, text, -1, cdocbm_sqlite_transient)
      case .textBytes(let bytes):
        result = bytes.withUnsafeBytes {
          sqlite3_bind_text64(
            handle, index,
            ($0.baseAddress ?? UnsafeRawPointer(bitPattern: 1))?.assumingMemoryBound(to: CChar.self),
            UInt64($0.count), cdocbm_sqlite_transient, UInt8(SQLITE_UTF8))
        }
      case .blob(let bytes):
        result = bytes.withUnsafeBytes {
          // An empty blob is bound as a zero-length blob, never as NULL.
          sqlite3_bind_blob64(
            handle, index, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), UInt64($0.count),
            cdocbm_sqlite_transient)
        }
      }
      guard result == SQLITE_OK else { throw database.lastError(result) }
    }
    return self
  }

  /// Runs the statement to its next row: `true` when there is one to read, `false` when it
  /// has finished.
  package func step() throws(SQLiteError) -> Bool {
    let result = sqlite3_step(handle)
    switch result {
    case SQLITE_ROW: return true
    case SQLITE_DONE: return false
    default:
      let error = database.lastError(result)
      sqlite3_reset(handle)
      throw error
    }
  }

  /// Runs a statement that returns no rows.
  package func run() throws(SQLiteError) {
    while try step() {}
  }

  /// Whether column `column` of the current row is NULL.
  package func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

  /// Column `column` as an integer (0 for NULL).
  package func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

  /// Column `column` as an integer, or `nil` for NULL.
  package func optionalInt64(_ column: Int32) -> Int64? { isNull(column) ? nil : int64(column) }

  /// Column `column` as bytes (empty for NULL).
  package func bytes(_ column: Int32) -> [UInt8] {
    let count = Int(sqlite3_column_bytes(handle, column))
    guard count > 0, let base = sqlite3_column_blob(handle, column) else { return [] }
    return Array(UnsafeRawBufferPointer(start: base, count: count))
  }

  /// Calls `body` with the bytes of column `column` (none for NULL) where SQLite holds
  /// them, valid until the statement moves on.
  package func withBytes<Result>(_ column: Int32, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
    let count = Int(sqlite3_column_bytes(handle, column))
    guard count > 0, let base = sqlite3_column_blob(handle, column) else {
      return body(UnsafeBufferPointer(start: nil, count: 0))
    }
    return body(UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: count))
  }

  /// Column `column` as text (empty for NULL), its bytes taken as UTF-8.
  package func text(_ column: Int32) -> String {
    let count = Int(sqlite3_column_bytes(handle, column))
    guard count > 0, let base = sqlite3_column_text(handle, column) else { return "" }
    return String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self)
  }
}

/// A value bound to a statement's parameter.
package enum SQLiteValue: Sendable {
  case null
  case integer(Int64)
  case text(String)
  /// Text given as bytes, bound as they are (a file name that is not UTF-8 stays its bytes).
  case textBytes([UInt8])
  case blob([UInt8])
}
