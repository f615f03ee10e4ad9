import DocbmSystem

/// Moving keys and records into and out of the escrow: the 0.1.0 migration's import, and
/// an export read on another machine (docs/format.md §6.2).
extension EscrowDatabase {
  /// One key and its document records, as an import brings them.
  struct ImportedEntry {
    let key: DocumentKey
    let created: Timestamp
    let documents: [EscrowEntry.Document]
  }

  /// Adds `entries` to the escrow, in one write transaction: each key it lacks,
  /// and each record of a document that none of the key's records names already (by path
  /// or identity), then one row in `imports` saying what came from where (`source`, the
  /// file or folder `origin`). A key keeps at most ``KeyEscrow/maximumDocumentsPerEntry``
  /// records, those confirmed last, as a deposit leaves it.
  ///
  /// A key whose fingerprint the escrow holds with other bytes fails the whole import: a
  /// fingerprint names one key, and the key the escrow has stays.
  ///
  /// - Returns: how many keys and records were added.
  func importEntries(_ entries: [ImportedEntry], source: String, from origin: FilePath) throws(SQLiteError)
    -> (keys: Int, documents: Int)
  {
    try connection.writeTransaction { () throws(SQLiteError) in
      try addEntries(entries, source: source, from: origin)
    }
  }

  /// ``importEntries(_:source:from:)``'s work, inside its transaction.
  private func addEntries(_ entries: [ImportedEntry], source: String, from origin: FilePath)
    throws(SQLiteError)
    -> (keys: Int, documents: Int)
  {
    var keys = 0
    var documents = 0
    for entry in entries {
      let fingerprint = entry.key.fingerprint.description
      try connection.prepare("INSERT OR IGNORE INTO keys (fingerprint, key, created) VALUES (?, ?, ?)")
        .bind(.text(fingerprint), .blob(entry.key.bytes), .integer(entry.created.nanosecondsSince1970))
        .run()
      keys += connection.changes
      let known = try self.documents(
        "SELECT \(EscrowSchema.documentColumns) FROM documents WHERE fingerprint = ?", .text(fingerprint)
      ).map(\.document)
      // The records a key keeps, and no more: the ones confirmed last.
      let newest = entry.documents.sorted { $0.confirmed > $1.confirmed }
        .prefix(KeyEscrow.maximumDocumentsPerEntry)
      var added = false
      for document in newest
      where !known.contains(where: { $0.path == document.path || $0.hasSameIdentity(as: document) }) {
        try insert(document, fingerprint: fingerprint)
        documents += 1
        added = true
      }
      if added { try keepNewestRecords(of: fingerprint) }
    }
    // Each key as the database now holds it must be the key of its fingerprint.
    for entry in entries {
      let statement = try connection.prepare("SELECT key FROM keys WHERE fingerprint = ?")
      guard try statement.bind(.text(entry.key.fingerprint.description)).step(),
        statement.withBytes(0, { $0.elementsEqual(entry.key.bytes) })
      else {
        // A constraint of the caller's: a fingerprint names one key.
        throw SQLiteError(
          code: 19 /* SQLITE_CONSTRAINT */,
          message:
            "this escrow holds another key under fingerprint \(entry.key.fingerprint), which the import also names"
        )
      }
    }
    try connection.prepare(
      "INSERT INTO imports (source, folder, keys, documents, imported) VALUES (?, ?, ?, ?, ?)"
    ).bind(
      .text(source), .blob(origin.bytes), .integer(Int64(keys)), .integer(Int64(documents)),
      .integer(Timestamp.now.nanosecondsSince1970)
    )
    .run()
    return (keys, documents)
  }

  /// The number of keys and of document records.
  func counts() throws(DocbmError) -> (keys: Int, documents: Int) {
    do {
      return try connection.readTransaction { () throws(SQLiteError) in
        (Int(try scalar("SELECT count(*) FROM keys")), Int(try scalar("SELECT count(*) FROM documents")))
      }
    } catch {
      throw EscrowDatabase.error(error, path: path, doing: "reading")
    }
  }

  /// An export read into memory (`bytes`, from `path`), opened read-only and checked: docbm's
  /// escrow of a version this docbm reads, of exactly its schema, undamaged, with only
  /// values docbm writes (``checkImportable()``).
  ///
  /// - Throws: ``DocbmError`` `escrowDamaged` for bytes that are not an SQLite database, a
  ///   database that is not docbm's escrow, one of a newer version, one with a schema or
  ///   values of its own, or a damaged one.
  static func openExport(_ bytes: [UInt8], path: FilePath) throws(DocbmError) -> EscrowDatabase {
    let database: EscrowDatabase
    let state: (application: Int64, version: Int64)
    do throws(SQLiteError) {
      database = EscrowDatabase(connection: try SQLiteDatabase(deserializing: bytes, path: path), path: path)
      state = (try database.scalar("PRAGMA application_id"), try database.scalar("PRAGMA user_version"))
    } catch {
      throw DocbmError(
        .escrowDamaged, path: path,
        message: "\(path) is not an escrow export docbm can read (\(error)); nothing was imported")
    }
    guard state.application == EscrowSchema.applicationID else {
      throw DocbmError(
        .escrowDamaged, path: path,
        message:
          "\(path) is an SQLite database but not a docbm escrow (application id \(state.application)); nothing was imported"
      )
    }
    guard state.version == EscrowSchema.version else {
      throw DocbmError(
        .escrowDamaged, path: path,
        message:
          "\(path) is an escrow of version \(state.version); this docbm reads version \(EscrowSchema.version): import it with the docbm that made it, or a newer one"
      )
    }
    let check: String
    do throws(SQLiteError) {
      // The schema first: SQLite's own check reads every table and index the file names.
      try database.checkImportable()
      check = try database.connection.quickCheck()
    } catch {
      throw DocbmError(
        .escrowDamaged, path: path,
        message: "\(path) cannot be imported: \(error.message); nothing was imported")
    }
    guard check == "ok" else {
      throw DocbmError(
        .escrowDamaged, path: path,
        message: "\(path) is damaged (SQLite's check says: \(check)); nothing was imported")
    }
    return database
  }
}
