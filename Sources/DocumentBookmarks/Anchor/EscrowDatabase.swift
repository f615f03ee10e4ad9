import DocbmSystem

/// The escrow's SQLite database, `escrow.sqlite` in the escrow folder: one connection,
/// used by one thread (docs/format.md §6).
///
/// The folder is opened and checked first (``EscrowFolder``): nobody else can change it, so
/// the file found there is the user's. The file itself must be a regular file of the
/// user's that nobody else can write; it is given mode 0600 when its mode is wider. SQLite's
/// rollback journal (`escrow.sqlite-journal`) and its locks on the file serialise the
/// processes that write; a writer waits up to ``SQLiteDatabase/busyTimeout`` for another.
/// Every write is one transaction, so a full disk or a kill loses nothing already recorded.
final class EscrowDatabase {
  static let fileName = "escrow.sqlite"

  let connection: SQLiteDatabase
  /// The database file's path.
  let path: FilePath
  /// What opening it imported from a 0.1.0 escrow, when it did.
  private(set) var migration: EscrowMigration?

  /// The escrow database on `connection`, a file at `path` (or its image in memory, read
  /// from there: ``openExport(_:path:)``).
  init(connection: SQLiteDatabase, path: FilePath) {
    self.connection = connection
    self.path = path
  }

  /// Opens the escrow's database; with `create`, makes the folder and the database when
  /// they are missing. A folder that holds a 0.1.0 escrow's entry files is migrated
  /// (``EscrowMigration``) whether or not `create` is set: its keys must stay repairable.
  ///
  /// - Returns: `nil` when there is no database and `create` is not set (and nothing to
  ///   migrate).
  /// - Throws: ``DocbmError`` `escrowUntrusted` for a folder or file someone else could
  ///   change; `escrowDamaged` for a file that is not docbm's escrow, a damaged one, or one
  ///   of a newer version; `noSpace`, `ioError`, `readOnlyFilesystem`, `systemFailure` when
  ///   it cannot be made or read.
  static func open(_ escrow: KeyEscrow, create: Bool) throws(DocbmError) -> EscrowDatabase? {
    let folder: EscrowFolder
    if create {
      folder = try escrow.prepareFolder()
    } else {
      guard let opened = try EscrowFolder.open(escrow.folder) else { return nil }
      folder = opened
    }
    defer { folder.close() }
    let legacy = EscrowMigration.legacyEntryNames(in: folder)
    let path = folder.path.appending(fileName)
    if try !folder.prepareDatabaseFile(fileName) {
      guard create || !legacy.isEmpty else {
        // A maker killed before it named its database.
        NewFile.removeAbandoned(in: folder.descriptor, marker: temporaryMarker)
        return nil
      }
      try makeDatabase(in: folder)
      guard try folder.prepareDatabaseFile(fileName) else {
        throw DocbmError(
          .notFound, path: path, message: "the escrow's database \(path) vanished as it was made")
      }
    }
    let database: EscrowDatabase
    do {
      database = EscrowDatabase(connection: try SQLiteDatabase(path), path: path)
    } catch {
      throw EscrowDatabase.error(error, path: path, doing: "opening")
    }
    try database.prepareSchema()
    if !legacy.isEmpty {
      database.migration = try EscrowMigration.run(legacy, from: folder, into: database)
    }
    return database
  }

  /// The marker of the temporary name a database is made under before it is named
  /// (``NewFile``): `.escrow.sqlite.new-PID-N`.
  static let temporaryMarker = Array(".new-".utf8)

  /// Makes the database with its schema as a ``NewFile`` under a temporary name and names
  /// it unless another process made one first (then that one is used): a database is never
  /// seen half made, and a full disk or a failure leaves no file behind. Temporary files of
  /// makers no longer running (killed) are removed first.
  private static func makeDatabase(in folder: EscrowFolder) throws(DocbmError) {
    let newFile = try mappingSystemErrors(.writeKey, path: folder.path.appending(fileName)) {
      () throws(SystemCallError) in
      try NewFile(FilePath(fileName), in: folder.descriptor, marker: temporaryMarker, needsPath: true)
    }
    // Removes the temporary file unless it has its name.
    defer { newFile.discard() }
    let temporary = folder.path.appending(newFile.temporaryName.bytes)
    do throws(SQLiteError) {
      // No journal: a file that fails half made is removed, never named.
      let connection = try SQLiteDatabase(temporary)
      try connection.execute("PRAGMA journal_mode = OFF")
      try connection.writeTransaction { () throws(SQLiteError) in
        try connection.execute(EscrowSchema.creation)
      }
    } catch {
      throw EscrowDatabase.error(error, path: temporary, doing: "making")
    }
    let outcome = try mappingSystemErrors(.writeKey, path: temporary) { () throws(SystemCallError) in
      try newFile.name(replacing: false)
    }
    switch outcome {
    case .named, .nameTaken:  // taken: another process made it first, and it is used
      return
    case .displaced:
      throw DocbmError(
        .escrowUntrusted, path: folder.path.appending(fileName),
        message:
          "\(folder.path.appending(fileName)) was replaced by another file while it was made; nothing was escrowed: check who else can write \(folder.path)"
      )
    }
  }

  /// Checks that the file is docbm's escrow of this version, and makes the schema in an
  /// empty one (a file of no bytes, as SQLite itself would make).
  private func prepareSchema() throws(DocbmError) {
    let state: (application: Int64, version: Int64, objects: Int64)
    do throws(SQLiteError) {
      // The two pragmas read the file's header; the schema is counted only for a file that
      // is not docbm's, the one case where what it holds decides what is done.
      let application = try scalar("PRAGMA application_id")
      let version = try scalar("PRAGMA user_version")
      let objects =
        application == EscrowSchema.applicationID ? 0 : try scalar("SELECT count(*) FROM sqlite_schema")
      state = (application, version, objects)
    } catch {
      throw EscrowDatabase.error(error, path: path, doing: "reading")
    }
    if state.application == EscrowSchema.applicationID {
      guard state.version <= EscrowSchema.version else {
        throw DocbmError(
          .escrowDamaged, path: path,
          message:
            "the escrow's database \(path) is of version \(state.version), made by a newer docbm than this one (which reads version \(EscrowSchema.version)): use the newer docbm, or set DOCBM_ESCROW_DIR to another folder"
        )
      }
      if state.version == EscrowSchema.version { return }
    }
    guard state.application == 0, state.version == 0, state.objects == 0 else {
      throw DocbmError(
        .escrowDamaged, path: path,
        message:
          "\(path) is an SQLite database but not docbm's escrow (application id \(state.application), version \(state.version)); docbm neither reads nor changes it: move it away, and docbm makes a new escrow there"
      )
    }
    do {
      try connection.writeTransaction { () throws(SQLiteError) in
        // Another process may have made the schema since the check above.
        guard try scalar("SELECT count(*) FROM sqlite_schema") == 0 else { return }
        try connection.execute(EscrowSchema.creation)
      }
    } catch {
      throw EscrowDatabase.error(error, path: path, doing: "making")
    }
    // Made by another process between the two transactions: check what it made.
    guard (try? scalar("PRAGMA application_id")) == EscrowSchema.applicationID else {
      throw DocbmError(
        .escrowDamaged, path: path, message: "\(path) changed while its schema was made; try again")
    }
  }

  /// The first column of the first row of `sql` (0 when there is none).
  func scalar(_ sql: String) throws(SQLiteError) -> Int64 {
    let statement = try connection.prepare(sql)
    return try statement.step() ? statement.int64(0) : 0
  }

  // MARK: - Reading

  /// The key and records of `fingerprint`, or `nil` when the escrow has no such key: read
  /// in one statement (one state of the file), the key joined with its records.
  func entry(_ fingerprint: KeyFingerprint) throws(DocbmError) -> EscrowEntry? {
    do {
      let statement = try connection.prepare(EscrowDatabase.entrySQL)
      try statement.bind(.text(fingerprint.description))
      guard try statement.step() else { return nil }
      let key = statement.bytes(0)
      let created = Timestamp(nanosecondsSince1970: statement.int64(1))
      var records: [(id: Int64, document: EscrowEntry.Document)] = []
      repeat {
        // A key without records joins none: its one row has no record's id.
        guard let id = statement.optionalInt64(2) else { break }
        records.append((id, try EscrowDatabase.record(statement, from: 3).document))
      } while try statement.step()
      records.sort { ($0.document.confirmed, $0.id) < ($1.document.confirmed, $1.id) }
      return try makeEntry(fingerprint, key: key, created: created, records.map(\.document))
    } catch {
      throw EscrowDatabase.error(error, path: path, doing: "reading")
    }
  }

  /// A key and its records, joined (``entry(_:)``).
  private static let entrySQL = """
    SELECT keys.key, keys.created, documents.id, \(EscrowSchema.documentColumns(of: "documents"))
    FROM keys LEFT JOIN documents ON documents.fingerprint = keys.fingerprint
    WHERE keys.fingerprint = ?
    """

  /// Every key and its records, in the order of their fingerprints.
  func entries() throws(DocbmError) -> [EscrowEntry] {
    do {
      return try connection.readTransaction { () throws(SQLiteError) in
        var byKey: [KeyFingerprint: [EscrowEntry.Document]] = [:]
        for record in try documents(
          "SELECT \(EscrowSchema.documentColumns) FROM documents ORDER BY confirmed, id")
        {
          byKey[record.fingerprint, default: []].append(record.document)
        }
        let statement = try connection.prepare(
          "SELECT fingerprint, key, created FROM keys ORDER BY fingerprint")
        var entries: [EscrowEntry] = []
        while try statement.step() {
          guard let fingerprint = KeyFingerprint(statement.text(0)) else {
            throw EscrowDatabase.damage("a key's fingerprint is not one")
          }
          entries.append(
            try makeEntry(
              fingerprint, key: statement.bytes(1),
              created: Timestamp(nanosecondsSince1970: statement.int64(2)),
              byKey[fingerprint] ?? []))
        }
        return entries
      }
    } catch {
      throw EscrowDatabase.error(error, path: path, doing: "reading")
    }
  }

  /// The records of documents at `path` or, when `inode` is given, of that inode number
  /// (any filesystem: the caller compares identities).
  func records(atPath path: FilePath, orInode inode: UInt64?) throws(DocbmError) -> [EscrowRecord] {
    do {
      let sql = "SELECT \(EscrowSchema.documentColumns) FROM documents WHERE path = ?1 OR inode = ?2"
      return try documents(sql, .blob(path.bytes), inode.map { .integer(Int64(bitPattern: $0)) } ?? .null)
    } catch {
      throw EscrowDatabase.error(error, path: self.path, doing: "reading")
    }
  }

  /// What a tree check keeps of the records of documents inside `folders` (absolute,
  /// normalized paths): one range of the path index per folder, read in one statement.
  /// Records taken from another escrow's export are left out: they name no document here.
  func pathRecords(inside folders: [FilePath]) throws(DocbmError) -> [EscrowPathRecord] {
    guard !folders.isEmpty else { return [] }
    var ranges: [String] = []
    var values: [SQLiteValue] = [.text(EscrowEntry.Document.Origin.transferred.rawValue)]
    for folder in folders {
      // Every path below `folder/`: from `folder/` up to `folder0` ('0' follows '/').
      let prefix = folder.bytes.last == UInt8(ascii: "/") ? Array(folder.bytes.dropLast()) : folder.bytes
      ranges.append("(path >= ?\(values.count + 1) AND path < ?\(values.count + 2))")
      values += [.blob(prefix + [UInt8(ascii: "/")]), .blob(prefix + [UInt8(ascii: "0")])]
    }
    do throws(SQLiteError) {
      let statement = try connection.prepare(
        "SELECT id, fingerprint, path, inode, confirmed FROM documents WHERE (\(ranges.joined(separator: " OR "))) AND origin <> ?1"
      )
      try statement.bind(values)
      var records: [EscrowPathRecord] = []
      while try statement.step() {
        guard let fingerprint = statement.withBytes(1, KeyFingerprint.init(printed:)) else {
          throw EscrowDatabase.damage("a document record names no key")
        }
        records.append(
          EscrowPathRecord(
            fingerprint: fingerprint, path: FilePath(uncheckedBytes: statement.bytes(2)),
            inode: UInt64(bitPattern: statement.int64(3)),
            confirmed: Timestamp(nanosecondsSince1970: statement.int64(4)), order: statement.int64(0)))
      }
      return records
    } catch {
      throw EscrowDatabase.error(error, path: path, doing: "reading")
    }
  }

  /// The records `sql` selects (``EscrowSchema/documentColumns``), given `values` as its
  /// parameters.
  func documents(_ sql: String, _ values: SQLiteValue...) throws(SQLiteError) -> [EscrowRecord] {
    try documents(sql, values)
  }

  /// The records `sql` selects, given `values` as its parameters.
  func documents(_ sql: String, _ values: [SQLiteValue]) throws(SQLiteError) -> [EscrowRecord] {
    let statement = try connection.prepare(sql)
    try statement.bind(values)
    var records: [EscrowRecord] = []
    while try statement.step() {
      records.append(try EscrowDatabase.record(statement))
    }
    return records
  }

  /// The document record in the current row of a statement that selected
  /// ``EscrowSchema/documentColumns`` from column `first` on.
  private static func record(_ row: SQLiteStatement, from first: Int32 = 0) throws(SQLiteError)
    -> EscrowRecord
  {
    func column(_ index: Int32) -> Int32 { first + index }
    guard let fingerprint = row.withBytes(column(0), KeyFingerprint.init(printed:)),
      let origin = EscrowEntry.Document.Origin(rawValue: row.text(column(8)))
    else { throw damage("a document record names no key or no origin") }
    let handle = row.optionalInt64(column(4)).map {
      KernelFileHandle(type: Int32(truncatingIfNeeded: $0), bytes: row.bytes(column(5)))
    }
    let document = EscrowEntry.Document(
      path: FilePath(uncheckedBytes: row.bytes(column(1))),
      inode: UInt64(bitPattern: row.int64(column(3))), fileHandle: handle,
      filesystemID: row.optionalInt64(column(2)).map { UInt64(bitPattern: $0) },
      birthTime: row.optionalInt64(column(6)).map(Timestamp.init(nanosecondsSince1970:)),
      permissions: row.optionalInt64(column(7)).map { UInt32(truncatingIfNeeded: $0) }, origin: origin,
      recorded: Timestamp(nanosecondsSince1970: row.int64(column(9))),
      confirmed: Timestamp(nanosecondsSince1970: row.int64(column(10))))
    return EscrowRecord(fingerprint: fingerprint, document: document)
  }

  private func makeEntry(
    _ fingerprint: KeyFingerprint, key bytes: [UInt8], created: Timestamp, _ documents: [EscrowEntry.Document]
  ) throws(SQLiteError) -> EscrowEntry {
    try EscrowDatabase.makeEntry(fingerprint, key: bytes, created: created, documents, file: path)
  }

  private static func makeEntry(
    _ fingerprint: KeyFingerprint, key bytes: [UInt8], created: Timestamp,
    _ documents: [EscrowEntry.Document],
    file: FilePath
  ) throws(SQLiteError) -> EscrowEntry {
    guard let key = DocumentKey(bytes: bytes), key.fingerprint == fingerprint else {
      throw EscrowDatabase.damage("the key recorded as \(fingerprint) does not have that fingerprint")
    }
    return EscrowEntry(fingerprint: fingerprint, created: created, documents: documents, file: file, key: key)
  }

  /// A damage SQLite itself cannot see: a value no docbm wrote.
  static func damage(_ what: String) -> SQLiteError {
    SQLiteError(code: 11 /* SQLITE_CORRUPT */, message: what)
  }

  // MARK: - Writing

  /// How long a record found as it is stays confirmed before a deposit confirms it again
  /// (one write per document per interval, not one per bookmark made).
  static let confirmationInterval: Int64 = 3600

  /// Records `document` as a document of `key`, in one transaction.
  ///
  /// The key is added when the escrow lacks it. The document's record follows the file: a
  /// record of this key with the same identity is moved to the document's path, else one at
  /// the same path takes the new identity (a save gave it a new inode), else a record is
  /// added. Any other record of the path or of the identity, of any key, goes: a path and a
  /// file are one key's document at a time. A key keeps at most
  /// ``KeyEscrow/maximumDocumentsPerEntry`` records, dropping those confirmed longest ago.
  /// Nothing is written when the record is there as it is and was confirmed within
  /// ``confirmationInterval``.
  func deposit(_ key: DocumentKey, document: EscrowEntry.Document) throws(DocbmError) {
    let fingerprint = key.fingerprint.description
    do {
      let existing = try records(atPath: document.path, orInode: document.inode)
      if existing.contains(where: {
        $0.fingerprint == key.fingerprint && $0.document.describesSameDocument(as: document)
          && $0.document.permissions == document.permissions
          && document.confirmed.seconds - $0.document.confirmed.seconds < EscrowDatabase.confirmationInterval
      }) {
        return
      }
    }
    do {
      try connection.writeTransaction { () throws(SQLiteError) in
        try connection.prepare("INSERT OR IGNORE INTO keys (fingerprint, key, created) VALUES (?, ?, ?)")
          .bind(.text(fingerprint), .blob(key.bytes), .integer(document.recorded.nanosecondsSince1970)).run()
        let rows = try documentRows(atPath: document.path, orInode: document.inode)
        let mine = rows.filter { $0.record.fingerprint == key.fingerprint }
        let kept =
          mine.first(where: { $0.record.document.hasSameIdentity(as: document) })
          ?? mine.first(where: { $0.record.document.path == document.path })
        for row in rows where row.id != kept?.id {
          if row.record.document.path == document.path || row.record.document.hasSameIdentity(as: document) {
            try connection.prepare("DELETE FROM documents WHERE id = ?").bind(.integer(row.id)).run()
          }
        }
        if let kept {
          let followed = kept.record.document.following(document, as: document.origin)
          try update(kept.id, to: followed)
        } else {
          try insert(document, fingerprint: fingerprint)
        }
        try keepNewestRecords(of: fingerprint)
      }
    } catch {
      throw EscrowDatabase.error(error, path: path, doing: "writing")
    }
  }

  /// Removes every record of `path`, of any key, in one transaction.
  ///
  /// - Returns: the keys whose records were removed, in order.
  func forgetRecords(at path: FilePath) throws(DocbmError) -> [KeyFingerprint] {
    do {
      return try connection.writeTransaction { () throws(SQLiteError) in
        let keys = try documents(
          "SELECT \(EscrowSchema.documentColumns) FROM documents WHERE path = ?", .blob(path.bytes)
        ).map(\.fingerprint)
        try connection.prepare("DELETE FROM documents WHERE path = ?").bind(.blob(path.bytes)).run()
        var seen: Set<KeyFingerprint> = []
        return keys.filter { seen.insert($0).inserted }
      }
    } catch {
      throw EscrowDatabase.error(error, path: self.path, doing: "writing")
    }
  }

  /// Removes the records of the key `fingerprint` beyond the
  /// ``KeyEscrow/maximumDocumentsPerEntry`` confirmed last (inside the caller's transaction).
  func keepNewestRecords(of fingerprint: String) throws(SQLiteError) {
    try connection.prepare(
      """
      DELETE FROM documents WHERE fingerprint = ?1 AND id NOT IN
        (SELECT id FROM documents WHERE fingerprint = ?1 ORDER BY confirmed DESC, id DESC LIMIT ?2)
      """
    ).bind(.text(fingerprint), .integer(Int64(KeyEscrow.maximumDocumentsPerEntry))).run()
  }

  /// Moves each record whose identity a file in `moves` has to that file's path (a document
  /// seen where the escrow did not know it: it moved, or was renamed), in one transaction;
  /// records of other files at those paths go. A record whose path holds the document's
  /// successor stays (``EscrowRule/successorHoldsPath(of:)``: the file elsewhere is an
  /// editor's backup).
  ///
  /// - Returns: the records that moved, as they were before.
  @discardableResult
  func recordMoves(_ moves: [EscrowRecord]) throws(DocbmError) -> [EscrowRecord] {
    guard !moves.isEmpty else { return [] }
    do {
      return try connection.writeTransaction { () throws(SQLiteError) in
        var moved: [EscrowRecord] = []
        for move in moves {
          let rows = try documentRows(atPath: move.document.path, orInode: move.document.inode)
          guard let followed = EscrowDatabase.row(of: move.fingerprint, sameFileAs: move.document, in: rows),
            followed.record.document.path != move.document.path,
            !EscrowRule.successorHoldsPath(of: followed.record.document)
          else { continue }
          try rewrite(
            followed, to: followed.record.document.following(move.document, as: .moved), among: rows)
          moved.append(followed.record)
        }
        return moved
      }
    } catch {
      throw EscrowDatabase.error(error, path: path, doing: "writing")
    }
  }

  /// Puts `previous`, a record as it was before ``recordMoves(_:)`` moved it, back as it was
  /// (the move turned out to be an editor's backup rename: the document stays at its path).
  func putBack(_ previous: EscrowRecord) throws(DocbmError) {
    do {
      try connection.writeTransaction { () throws(SQLiteError) in
        let rows = try documentRows(atPath: previous.document.path, orInode: previous.document.inode)
        guard
          let moved = EscrowDatabase.row(of: previous.fingerprint, sameFileAs: previous.document, in: rows)
        else { return }
        try rewrite(moved, to: previous.document, among: rows)
      }
    } catch {
      throw EscrowDatabase.error(error, path: path, doing: "writing")
    }
  }

  /// The row of `rows` that records `fingerprint` for the file `file` is (same identity).
  private static func row(
    of fingerprint: KeyFingerprint, sameFileAs file: EscrowEntry.Document,
    in rows: [(id: Int64, record: EscrowRecord)]
  ) -> (id: Int64, record: EscrowRecord)? {
    rows.first { $0.record.fingerprint == fingerprint && $0.record.document.hasSameIdentity(as: file) }
  }

  /// Rewrites `row` as `document`, and removes the other rows of `rows` at its path.
  private func rewrite(
    _ row: (id: Int64, record: EscrowRecord), to document: EscrowEntry.Document,
    among rows: [(id: Int64, record: EscrowRecord)]
  ) throws(SQLiteError) {
    for other in rows where other.id != row.id && other.record.document.path == document.path {
      try connection.prepare("DELETE FROM documents WHERE id = ?").bind(.integer(other.id)).run()
    }
    try update(row.id, to: document)
  }

  private func documentRows(atPath path: FilePath, orInode inode: UInt64) throws(SQLiteError) -> [(
    id: Int64, record: EscrowRecord
  )] {
    let statement = try connection.prepare(
      "SELECT id, \(EscrowSchema.documentColumns) FROM documents WHERE path = ?1 OR inode = ?2")
    try statement.bind(.blob(path.bytes), .integer(Int64(bitPattern: inode)))
    var rows: [(id: Int64, record: EscrowRecord)] = []
    while try statement.step() {
      rows.append((statement.int64(0), try EscrowDatabase.record(statement, from: 1)))
    }
    return rows
  }

  func insert(_ document: EscrowEntry.Document, fingerprint: String) throws(SQLiteError) {
    try connection.prepare(
      """
      INSERT INTO documents (\(EscrowSchema.documentColumns))
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      """
    ).bind(
      [.text(fingerprint)] + EscrowDatabase.fileValues(document)
        + [
          .integer(document.recorded.nanosecondsSince1970), .integer(document.confirmed.nanosecondsSince1970),
        ]
    ).run()
  }

  private func update(_ id: Int64, to document: EscrowEntry.Document) throws(SQLiteError) {
    try connection.prepare(
      """
      UPDATE documents SET path = ?, filesystem = ?, inode = ?, handle_type = ?, handle = ?, birth = ?,
        mode = ?, origin = ?, confirmed = ? WHERE id = ?
      """
    ).bind(
      EscrowDatabase.fileValues(document) + [.integer(document.confirmed.nanosecondsSince1970), .integer(id)]
    )
    .run()
  }

  /// A record's columns from `path` to `origin`, in the schema's order.
  private static func fileValues(_ document: EscrowEntry.Document) -> [SQLiteValue] {
    [
      .blob(document.path.bytes), document.filesystemID.map { .integer(Int64(bitPattern: $0)) } ?? .null,
      .integer(Int64(bitPattern: document.inode)),
      document.fileHandle.map { .integer(Int64($0.type)) } ?? .null,
      document.fileHandle.map { .blob($0.bytes) } ?? .null,
      document.birthTime.map { .integer($0.nanosecondsSince1970) } ?? .null,
      document.permissions.map { .integer(Int64($0)) } ?? .null, .text(document.origin.rawValue),
    ]
  }

  // MARK: - Errors

  /// The ``DocbmError`` for an SQLite failure while `doing` (opening, reading, writing,
  /// making) the database at `path`, with a sentence saying what to do.
  static func error(_ error: SQLiteError, path: FilePath, doing: String) -> DocbmError {
    let what = "\(doing) the escrow's database \(path) failed (\(error))"
    if error.isFull {
      return DocbmError(.noSpace, path: path, message: "\(what): free some space; nothing recorded was lost")
    }
    if error.isInputOutput {
      return DocbmError(
        .ioError, path: path, message: "\(what): the storage failed; nothing recorded was lost")
    }
    if error.isDamaged {
      return DocbmError(
        .escrowDamaged, path: path,
        message:
          "\(what): it is damaged or not an SQLite database; docbm neither trusts nor changes it. Recover what it holds with `sqlite3 \(path) .recover | sqlite3 \(path).recovered`, then move it away (docbm makes a new one)"
      )
    }
    if error.isBusy {
      return DocbmError(
        .systemFailure, path: path,
        message:
          "\(what): another program kept it locked for over \(SQLiteDatabase.busyTimeout / 1000) s; try again"
      )
    }
    if error.isReadOnly {
      return DocbmError(.readOnlyFilesystem, path: path, message: "\(what): it cannot be written here")
    }
    return DocbmError(.systemFailure, path: path, message: what)
  }
}

/// One document record with the key it is recorded for.
package struct EscrowRecord: Hashable, Sendable {
  package let fingerprint: KeyFingerprint
  package let document: EscrowEntry.Document
}
