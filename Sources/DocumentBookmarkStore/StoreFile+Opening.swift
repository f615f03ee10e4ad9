import DocbmSystem
import DocumentBookmarks
import FoundationEssentials

extension StoreFile {
  /// What the bytes at the store's path are.
  enum Found {
    case absent
    case database(Database.FileIdentity)
    /// A store of docbm 0.1 (a JSON file), to migrate.
    case json
    case empty
    case neither
  }

  /// The connection to the store file: the one open, while the path still names the file
  /// it has open, else a new one (the store was replaced: restored, migrated, copied over).
  /// `nil` when there is no store file.
  ///
  /// - Throws: ``BookmarkStoreError`` as ``open()``.
  func connection(_ state: inout State) throws(Failure) -> Database? {
    do {
      try mappingSystemErrors(.openDocument, path: path) { () throws(SystemCallError) in
        try StoreFaults.checkRead(of: path)
      }
    } catch {
      throw .docbm(error)
    }
    // No status: nothing there, or nothing that can be looked at (opening says why).
    guard let status = try? FileStatus.of(path, followSymlinks: false) else {
      if !FileManager.default.fileExists(atPath: path.description) {
        state.database = nil
        state.seen = nil
        return nil
      }
      return try reopen(&state)
    }
    if let database = state.database,
      database.identity == Database.FileIdentity(device: status.device, inode: status.inode)
    {
      return database
    }
    return try reopen(&state)
  }

  private func reopen(_ state: inout State) throws(Failure) -> Database? {
    state.database = nil
    state.seen = nil
    state.database = try open()
    return state.database
  }

  /// Opens the store file: a database of this version or an older one, in a folder only
  /// the user can add files to; a JSON store of docbm 0.1 is migrated first.
  ///
  /// - Throws: ``BookmarkStoreError`` `untrusted` (the file, or a folder someone else could
  ///   add files to: a rollback journal put there would be applied to the store),
  ///   `newerVersion`, `notAStore`, `corrupt`, `docbm` (`permissionDenied`, `ioError`, …).
  func open() throws(Failure) -> Database? {
    for _ in 0..<8 {
      switch try look() {
      case .absent: return nil
      case .json:
        try migrate()
        continue
      case .empty: throw .corrupt(path: path, reason: "the file is empty")
      case .neither: throw .corrupt(path: path, reason: "it is neither a store's database nor a store's JSON")
      case .database(let identity):
        if let problem = folderProblem() { throw .untrusted(path: path, reason: problem) }
        let connection: SQLiteDatabase
        do {
          connection = try SQLiteDatabase(path)
        } catch {
          throw Database.failure(error, path: path, doing: "opening")
        }
        // The file opened is the one looked at (nobody else can swap it in this folder,
        // but this process's own writers can, by restoring or migrating); a file that
        // cannot be looked at now is looked at again.
        guard let now = try? FileStatus.of(path, followSymlinks: false), now.device == identity.device,
          now.inode == identity.inode
        else { continue }
        let database = Database(connection: connection, path: path, identity: identity)
        try checkHeader(database)
        return database
      }
    }
    throw .docbm(
      DocbmError(.ioError, path: path, message: "\(path) kept being replaced while it was opened; try again"))
  }

  /// Looks at the file at the store's path without blocking (a FIFO is refused, not
  /// waited on): a regular file of the user's that nobody else can write, and what its
  /// first bytes say it is.
  func look() throws(Failure) -> Found {
    let opened: StoreFileOpener.Opened<Found>
    do {
      opened = try mappingSystemErrors(.openDocument, path: path) {
        () throws(SystemCallError) -> StoreFileOpener.Opened<Found> in
        try StoreFaults.checkRead(of: path)
        return try StoreFileOpener.open(path, options: .noFollow, limit: nil) {
          (fd, status) throws(SystemCallError) -> Found in
          let head = try Self.firstBytes(16, of: fd)
          if head.isEmpty { return .empty }
          if head == Array("SQLite format 3\0".utf8) {
            return .database(Database.FileIdentity(device: status.device, inode: status.inode))
          }
          let text = head.drop { [0x20, 0x09, 0x0a, 0x0d].contains($0) }
          return text.first == UInt8(ascii: "{") ? .json : .neither
        }
      }
    } catch {
      throw .docbm(error)
    }
    switch opened {
    case .absent: return .absent
    case .read(let found): return found
    case .refused(let refusal): throw refusal.error(at: path)
    }
  }

  /// Up to `count` bytes from the start of `fd` (fewer when the file is shorter).
  private static func firstBytes(_ count: Int, of fd: FileDescriptor) throws(SystemCallError) -> [UInt8] {
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 1)
    defer { buffer.deallocate() }
    var filled = 0
    while filled < count {
      let read = try fd.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
      if read == 0 { break }
      filled += read
    }
    return Array(buffer[..<filled])
  }

  /// Why the store's folder cannot be trusted with a database: another user could change
  /// it or a folder above it (``FolderChainTrust``), or add files to it, sticky or not, and
  /// SQLite applies a rollback journal it finds beside the database when it opens it.
  func folderProblem() -> String? {
    let folder = path.removingLastComponent
    if let (above, problem) = FolderChainTrust.problem(from: folder) {
      return "the folder \(above) \(problem), so another user could replace the store"
    }
    // A folder that cannot be looked at cannot be opened in either: opening says why.
    guard let status = try? FileStatus.of(folder, followSymlinks: true) else { return nil }
    let writable =
      status.permissions & 0o002 != 0
      || (status.permissions & 0o020 != 0 && status.group != ProcessCredentials.effectiveGroup)
    guard writable else { return nil }
    return
      "its folder \(folder) lets other users add files (mode \(String(status.permissions & 0o7777, radix: 8))), and a rollback journal one of them put beside the store would be applied to it; keep the store in a folder only you can write"
  }

  /// Checks that the database is a docbm store this version reads.
  private func checkHeader(_ database: Database) throws(Failure) {
    let (application, version) = try database.sqlite("reading") {
      () throws(SQLiteError) -> (Int64, Int64) in
      (
        try database.integer("PRAGMA application_id") ?? 0,
        try database.connection.userVersion()
      )
    }
    guard application == StoreSchema.applicationID else {
      throw .notAStore(
        path: path, reason: "an SQLite database, but not a docbm store (application id \(application))")
    }
    if version > StoreSchema.version { throw .newerVersion(schemaVersion: Int(version), path: path) }
  }

  // MARK: Making and migrating

  /// Runs `body` holding `<store>.lock`: the lock docbm 0.1 took for every change, taken
  /// now to make the store or migrate it, so that two processes never both do.
  private func locked<Value>(_ body: () throws(Failure) -> Value) throws(Failure) -> Value {
    makeFolder()
    let opened: FileDescriptor.LockFile
    do {
      opened = try mappingSystemErrors(.lock, path: lockPath) { () throws(SystemCallError) in
        try FileDescriptor.openLocked(lockPath) { StoreFileOpener.trustProblem($0) == nil }
      }
    } catch {
      throw .docbm(error)
    }
    let lock: FileDescriptor
    switch opened {
    case .locked(let fd): lock = fd
    case .refused(let status) where status.kind != .regular:
      throw .docbm(
        DocbmError(
          .unsupportedFileType, path: lockPath,
          message:
            "the store's lock file \(lockPath) is a \(status.kindDescription), not a regular file, so the store cannot be made; remove it (docbm makes a new one)"
        ))
    case .refused(let status):
      throw .docbm(
        DocbmError(
          .permissionDenied, path: lockPath,
          message:
            "the store's lock file \(lockPath) is not trusted (\(StoreFileOpener.trustProblem(status) ?? "it is not yours")), so the store cannot be made here"
        ))
    }
    defer { lock.close() }
    return try body()
  }

  /// Makes the store's folder (and those above it) when missing, private (0700).
  private func makeFolder() {
    let folder = path.removingLastComponent.description
    if FileManager.default.fileExists(atPath: folder) { return }
    // A folder that cannot be made makes the save that follows fail, with the reason.
    try? FileManager.default.createDirectory(
      atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
  }

  /// Makes an empty store when there is none: made whole in memory and saved with
  /// `replaceDocument`, private (0600), so that no process sees it half made.
  func makeStore() throws(Failure) {
    if let problem = folderProblem() { throw .untrusted(path: path, reason: problem) }
    try locked { () throws(Failure) in
      if FileManager.default.fileExists(atPath: path.description) { return }
      try save(image(of: Contents()), isNew: true)
    }
  }

  /// Migrates a JSON store of docbm 0.1 (its journal applied) to a database, under the
  /// lock 0.1 takes: the same records in the same order, records this version cannot read
  /// and members it does not know kept. Saved with `replaceDocument`, so the store keeps
  /// its key, mode and owner; its last good copy becomes the new database and its journal
  /// goes.
  private func migrate() throws(Failure) {
    if let problem = folderProblem() { throw .untrusted(path: path, reason: problem) }
    try locked { () throws(Failure) in
      guard case .json = try look() else { return }
      let legacy = try LegacyStoreFile<Key, Metadata>(path: path).read()
      try save(image(of: legacy.contents), isNew: false)
      legacy.journal.remove(keepingAside: legacy.journalDamaged)
    }
  }

  /// The contents read from the store's JSON when it cannot be migrated here (a read-only
  /// disk, a folder that is not the user's).
  func readLegacy() throws(Failure) -> Contents {
    try LegacyStoreFile<Key, Metadata>(path: path).read().contents
  }

  /// A database holding `contents`, made in memory, as the bytes of its file.
  private func image(of contents: Contents) throws(Failure) -> [UInt8] {
    do throws(SQLiteError) {
      let connection = try SQLiteDatabase(inMemoryNamed: path)
      try connection.execute(StoreSchema.creation)
      let database = Database(connection: connection, path: path, identity: nil)
      try connection.writeTransaction { () throws(SQLiteError) in
        try connection.prepare(
          "INSERT INTO meta(name, value) VALUES ('name', ?1), ('version', 1), ('horizon', 0), ('lastGood', 1)"
        ).bind(.text(Self.newName())).run()
        var position: Int64 = 0
        do throws(Failure) {
          for record in contents.records {
            position += StorePositions<Key, Metadata>.spacing
            try database.put(record, at: position, version: 1)
          }
        } catch {
          throw SQLiteError(code: 1, message: "\(error)")
        }
        for (index, raw) in contents.unreadable.enumerated() {
          position += StorePositions<Key, Metadata>.spacing
          let key: String
          // A JSON value always encodes; a row with no readable key gets a name of its own.
          if case .object(let members) = raw, let value = members["key"],
            let encoded = try? Self.canonical(value)
          {
            key = encoded
          } else {
            key = "unreadable-\(index)"
          }
          // A JSON value always encodes, so "null" is never written in its place.
          try connection.prepare(
            "INSERT OR IGNORE INTO records(key, position, inode, path, changed, record) VALUES (?1, ?2, NULL, X'', 1, ?3)"
          ).bind(.text(key), .integer(position), .text((try? Self.canonical(raw)) ?? "null")).run()
        }
        for (name, value) in contents.unknownMembers {
          // As above: a JSON value always encodes.
          try connection.prepare("INSERT INTO meta(name, value) VALUES (?1, ?2)").bind(
            .text("member:" + name), .text((try? Self.canonical(value)) ?? "null")
          ).run()
        }
      }
      return try connection.compactedImage()
    } catch {
      throw Database.failure(error, path: path, doing: "making")
    }
  }

  private static func canonical(_ value: JSONValue) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(value), as: UTF8.self)
  }

  /// Saves `image` as the store file with `replaceDocument` (keeping the key, mode and
  /// owner of the file it replaces; a new one is made private, 0600), and as its last good
  /// copy.
  private func save(_ image: [UInt8], isNew: Bool) throws(Failure) {
    do {
      try document.replaceDocument(with: Data(image))
      if isNew {
        // The file was made with the umask's mode; a failure leaves that mode, which the
        // trust check accepts only when others cannot write it.
        try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path.description)
      }
      try document.saveUnflushedCopy(to: lastGoodPath, data: Data(image))
    } catch {
      throw .docbm(error)
    }
  }

  /// A new store's name: 16 random bytes in hexadecimal.
  static func newName() -> String {
    var generator = SystemRandomNumberGenerator()
    return (0..<2).map { _ in
      let value = generator.next() as UInt64
      let hex = String(value, radix: 16)
      return String(repeating: "0", count: 16 - hex.count) + hex
    }.joined()
  }

  // MARK: The last good copy

  /// Writes the last good copy when the changes since the last one reach a sixteenth of
  /// the store's pages: at every change while the store is a few pages, so that a small store's
  /// copy holds its last change, and ever more rarely as it grows, in proportion to the
  /// copy's size. Best effort: the store itself is saved already.
  func refreshLastGoodIfDue(_ database: Database) {
    // Any failure to read these leaves the copy for a later change.
    guard let version = try? database.integer("SELECT value FROM meta WHERE name = 'version'"),
      let copied = try? database.integer("SELECT value FROM meta WHERE name = 'lastGood'"),
      let pages = try? database.integer("PRAGMA page_count"),
      (version - copied) * 16 >= pages
    else { return }
    // A copy that fails is tried again at the next change.
    try? writeLastGood(database)
  }

  /// Writes the store's current version as its last good copy, with the store's key.
  func writeLastGood(_ database: Database) throws(Failure) {
    let image = try database.sqlite("copying") { () throws(SQLiteError) in
      try database.connection.compactedImage()
    }
    do {
      try document.saveUnflushedCopy(to: lastGoodPath, data: Data(image))
    } catch {
      throw .docbm(error)
    }
    try database.sqlite("writing") { () throws(SQLiteError) in
      try database.connection.execute(
        "UPDATE meta SET value = (SELECT value FROM meta WHERE name = 'version') WHERE name = 'lastGood'")
    }
  }

  /// The store file is damaged: if the last good copy reads (a store database, or a JSON
  /// store of docbm 0.1 to migrate), the damaged file is kept under
  /// `<store>.corrupt-<seconds>[-n]` (a hard link to it, so nothing is copied) and the
  /// last good copy is saved over it with the copy's attributes (the key among them, even
  /// when whatever damaged the file also dropped its key). The changes made since the copy
  /// was written are lost with the damaged file.
  ///
  /// The copy is checked when read, and its attributes (the key) are copied from its path
  /// by the save: so it is restored only when no other user could swap it in between, that
  /// is when the store's folder and those above it pass ``FolderChainTrust``. Otherwise the
  /// store is left as it is and the error is `untrusted`.
  func restoreLastGood(reason: String) throws(Failure) {
    if let (folder, problem) = FolderChainTrust.problem(from: path.removingLastComponent) {
      throw .untrusted(
        path: lastGoodPath,
        reason:
          "\(reason); the folder \(folder) \(problem), so another user could swap the last good copy while it is restored: restore it by hand"
      )
    }
    // A copy that is missing or cannot be read is no copy to restore: the error says so.
    guard let bytes = try? LegacyStoreFile<Key, Metadata>.readBytes(lastGoodPath), Self.isReadable(bytes)
    else {
      throw .corrupt(path: path, reason: reason + "; there is no readable last good copy (\(lastGoodPath))")
    }
    let stamp = Int(Date().timeIntervalSince1970)
    var quarantine = path.addingSuffix(".corrupt-\(stamp)")
    var attempt = 1
    // A name that is taken, or a link that fails, tries the next name; after 100 the error stands.
    while (try? FileManager.default.linkItem(atPath: path.description, toPath: quarantine.description)) == nil
    {
      attempt += 1
      guard attempt < 100 else {
        throw .corrupt(path: path, reason: reason + "; it could not be quarantined")
      }
      quarantine = path.addingSuffix(".corrupt-\(stamp)-\(attempt)")
    }
    do {
      try service.documents(anchoredOn: lastGoodPath).saveCopy(
        to: path, key: .carry, options: ReplaceOptions(hardLinks: .split), data: Data(bytes))
    } catch {
      throw .docbm(error)
    }
  }

  /// Whether `bytes` are a store this version reads: a docbm store database whose
  /// structure checks, or a JSON store.
  private static func isReadable(_ bytes: [UInt8]) -> Bool {
    if case .success = StoreFormat<Key, Metadata>.decode(bytes) { return true }
    do {
      let copy = try SQLiteDatabase(deserializing: bytes, path: FilePath("last-good"))
      let statement = try copy.prepare("PRAGMA application_id")
      guard try statement.step(), statement.int64(0) == StoreSchema.applicationID,
        try copy.userVersion() <= StoreSchema.version
      else { return false }
      return try copy.quickCheck() == "ok"
    } catch {
      // A copy SQLite cannot open or check is not one this version can restore.
      return false
    }
  }
}
