import DocbmSystem

/// What an export must be before anything is read from it into an escrow: exactly the
/// schema docbm writes, no more rows than an escrow holds, and only values docbm writes
/// (docs/security.md, "Exports"). An export is a file from elsewhere, whoever made it: a
/// view, a trigger or a generated column would run an attacker's SQL as it is read, so it is
/// refused before any row is.
extension EscrowDatabase {
  /// The most keys an export may hold: ten times an escrow of 100,000 keys.
  static let maximumImportedKeys = 1_000_000
  /// The longest path a record may name (`PATH_MAX`).
  static let maximumRecordedPath = 4096
  /// The longest kernel file handle a record may hold (`MAX_HANDLE_SZ`).
  static let maximumRecordedHandle = 128

  /// The schema's objects as `sqlite_schema` lists them (type, name, table and SQL text),
  /// from a database made in memory with ``EscrowSchema/creation``: what an export of this
  /// version holds, and nothing else.
  static let expectedSchema: Result<[String], SQLiteError> = Result { () throws(SQLiteError) in
    let database = EscrowDatabase(
      connection: try SQLiteDatabase(inMemoryNamed: FilePath("schema")), path: FilePath("schema"))
    try database.connection.execute(EscrowSchema.creation)
    return try database.schemaObjects()
  }

  /// Every object of `sqlite_schema`, one line each, in a fixed order.
  private func schemaObjects() throws(SQLiteError) -> [String] {
    let statement = try connection.prepare(
      "SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_schema ORDER BY type, name")
    var objects: [String] = []
    while try statement.step() {
      objects.append((0..<4).map { statement.text($0) }.joined(separator: "\u{1F}"))
    }
    return objects
  }

  /// Checks an export opened with ``openExport(_:path:)`` before its rows are read: its
  /// schema is exactly this version's (no view, trigger, extra table, index or column, no
  /// generated column), it holds at most ``maximumImportedKeys`` keys, and every value is
  /// of the type and range docbm writes (a 32-byte key; a record's non-empty path of at most
  /// ``maximumRecordedPath`` bytes without NUL, naming a key of the export; integers where
  /// integers go).
  ///
  /// - Throws: ``SQLiteError`` `SQLITE_CORRUPT` saying what is wrong.
  func checkImportable() throws(SQLiteError) {
    let expected = try EscrowDatabase.expectedSchema.get()
    guard try schemaObjects() == expected else {
      throw EscrowDatabase.damage(
        "its schema is not the one docbm writes (it has tables, views, triggers, indexes or columns of its own)"
      )
    }
    let keys = try scalar("SELECT count(*) FROM keys")
    guard keys <= EscrowDatabase.maximumImportedKeys else {
      throw EscrowDatabase.damage(
        "it holds \(keys) keys, more than an escrow can (\(EscrowDatabase.maximumImportedKeys))")
    }
    let badKeys = try scalar(
      """
      SELECT count(*) FROM keys WHERE typeof(fingerprint) != 'text' OR typeof(key) != 'blob'
        OR length(key) != 32 OR typeof(created) != 'integer'
      """)
    guard badKeys == 0 else {
      throw EscrowDatabase.damage("\(badKeys) of its keys hold values docbm never writes")
    }
    let badRecords = try scalar(
      """
      SELECT count(*) FROM documents WHERE typeof(fingerprint) != 'text' OR typeof(path) != 'blob'
        OR length(path) = 0 OR length(path) > \(EscrowDatabase.maximumRecordedPath) OR instr(path, x'00') > 0
        OR typeof(inode) != 'integer' OR typeof(filesystem) NOT IN ('integer', 'null')
        OR typeof(handle_type) NOT IN ('integer', 'null') OR typeof(handle) NOT IN ('blob', 'null')
        OR (handle_type IS NULL) != (handle IS NULL) OR length(handle) > \(EscrowDatabase.maximumRecordedHandle)
        OR typeof(birth) NOT IN ('integer', 'null') OR typeof(mode) NOT IN ('integer', 'null')
        OR mode < 0 OR mode > 4294967295 OR typeof(origin) != 'text'
        OR typeof(recorded) != 'integer' OR typeof(confirmed) != 'integer'
        OR fingerprint NOT IN (SELECT fingerprint FROM keys)
      """)
    guard badRecords == 0 else {
      throw EscrowDatabase.damage("\(badRecords) of its document records hold values docbm never writes")
    }
  }
}
