import DocbmSystem

/// The user's own record of the keys docbm made on this account and of each key's
/// documents, so that a key lost by a careless save can be put back (``DocumentRepairer``).
///
/// One SQLite database, `escrow.sqlite`, mode 0600, in a folder of mode 0700:
/// `$DOCBM_ESCROW_DIR` when set, else `$XDG_STATE_HOME/docbm`, else `~/.local/state/docbm`.
/// A key's documents are the files docbm itself made so (it made a bookmark on one, saved
/// it, repaired it) and follows as they move; a file seen carrying a key is not one of
/// them, since copies carry keys too. Which file may get a key back is decided by one
/// rule (docs/security.md, "Which file is a key's document"). The format is in docs/format.md §6, the rule in docs/security.md.
///
/// Several processes may use the escrow at once: SQLite's locks serialise their writes,
/// each a single transaction. An escrow of docbm 0.1.0 (one JSON file per key) is imported
/// the first time this version opens it (``EscrowMigration``).
public struct KeyEscrow: Hashable, Sendable {
  /// The escrow folder.
  public let folder: FilePath

  public init(folder: FilePath) {
    self.folder = folder
  }

  /// The user's escrow, at the folder the environment names.
  public static var `default`: KeyEscrow {
    if let folder = ProcessEnvironment.value("DOCBM_ESCROW_DIR"), !folder.isEmpty {
      return KeyEscrow(folder: FilePath(folder))
    }
    if let state = ProcessEnvironment.value("XDG_STATE_HOME"), state.hasPrefix("/") {
      return KeyEscrow(folder: FilePath(state).appending("docbm"))
    }
    let home = ProcessEnvironment.value("HOME") ?? "/"
    return KeyEscrow(folder: FilePath(home).appending(".local").appending("state").appending("docbm"))
  }

  /// The database file.
  public var databasePath: FilePath { folder.appending(EscrowDatabase.fileName) }

  /// The most document records a key keeps; those confirmed longest ago go first. A key
  /// made into many documents (saved copies) must not grow without bound.
  public static let maximumDocumentsPerEntry = 64

  /// Opens the database (``EscrowDatabase/open(_:create:)``).
  func open(create: Bool) throws(DocbmError) -> EscrowDatabase? {
    try EscrowDatabase.open(self, create: create)
  }

  /// Imports a 0.1.0 escrow's files when the folder holds them (``EscrowMigration``); any
  /// other use of the escrow does the same first.
  ///
  /// - Returns: what was imported, or `nil` when there was nothing to import.
  /// - Throws: ``DocbmError`` as the escrow's writers do.
  public func upgrade() throws(DocbmError) -> EscrowMigration? {
    // Most calls find nothing to import: that is told from the folder's names alone. A
    // folder that cannot be opened or trusted is reported by whatever uses the escrow next.
    guard let folder = try? EscrowFolder.open(folder) else { return nil }
    let legacy = EscrowMigration.legacyEntryNames(in: folder)
    folder.close()
    guard !legacy.isEmpty else { return nil }
    return try open(create: false)?.migration
  }

  /// Records `key` as the key of the document at `document`, which docbm made so now
  /// (`origin`): made a bookmark on it, saved it, repaired it.
  ///
  /// Only a document owned by the user is recorded: repair puts keys back only on the
  /// user's own files, so a record of anyone else's would never be used.
  ///
  /// - Throws: ``DocbmError`` when the escrow cannot be written (`noSpace`, `ioError`, …),
  ///   `escrowUntrusted` when its folder or file could be changed by someone else,
  ///   `escrowDamaged` when its database is not docbm's or is damaged.
  /// - Returns: whether the key was escrowed: not when the document is not the user's own
  ///   regular file or folder (a key on another user's file is never escrowed).
  @discardableResult
  package func deposit(
    _ key: DocumentKey, document: FilePath, origin: EscrowEntry.Document.Origin = .bookmarked
  ) throws(DocbmError) -> Bool {
    guard let record = try EscrowEntry.Document.of(document, origin: origin) else { return false }
    try deposit(key, record: record)
    return true
  }

  /// ``deposit(_:document:origin:)`` for a document already opened and checked. With
  /// `checked`, SQLite's `quick_check` of the whole database runs first unless the file is
  /// still the version that check last found intact and this repairer's last write left
  /// (``CheckedEscrowVersion``), and a database it finds damaged is left as it is (a
  /// repair's record: rare, and after a problem; a deposit per bookmark does not pay for
  /// it).
  ///
  /// - Throws: ``DocbmError`` `escrowDamaged` when the check finds damage; the escrow's
  ///   errors when it cannot be written.
  func deposit(_ key: DocumentKey, record: EscrowEntry.Document, checked: CheckedEscrowVersion? = nil)
    throws(DocbmError)
  {
    guard let database = try open(create: true) else { return }
    if let checked, !checked.isChecked(database.path) {
      let check: String
      do {
        check = try database.connection.quickCheck()
      } catch {
        throw EscrowDatabase.error(error, path: database.path, doing: "checking")
      }
      guard check == "ok" else {
        throw DocbmError(
          .escrowDamaged, path: database.path,
          message:
            "the escrow's database \(database.path) is damaged (SQLite's check says: \(check)); docbm leaves it as it is. Recover what it holds with `sqlite3 \(database.path) .recover | sqlite3 \(database.path).recovered`, then move it away (docbm makes a new one)"
        )
      }
    }
    try database.deposit(key, document: record)
    checked?.recordChecked(database.path)
  }

  /// Escrows the key the document at `document` carries, recording the document with it.
  ///
  /// - Returns: the key's fingerprint, or `nil` when the document has no key.
  /// - Throws: ``DocbmError`` when the key cannot be read or the escrow cannot be written
  ///   (`escrowUntrusted` for a folder someone else could change).
  @discardableResult
  public func escrowKey(of document: FilePath) throws(DocbmError) -> KeyFingerprint? {
    guard let key = try KeyAttribute.read(atPath: document).key(of: document) else { return nil }
    try deposit(key, document: document)
    return key.fingerprint
  }

  /// Records that the document at `document`, which docbm saved (`replaceDocument`,
  /// `saveCopy` with its key), is a document of the key it carries, when the escrow holds
  /// that key. The key is read from the escrow, never from the document: a document cannot
  /// add a key to the escrow this way.
  ///
  /// - Returns: whether the escrow holds the key.
  @discardableResult
  package func recordSave(of fingerprint: KeyFingerprint, at document: FilePath) throws(DocbmError) -> Bool {
    guard let database = try open(create: false), let entry = try database.entry(fingerprint),
      let record = try EscrowEntry.Document.of(document, origin: .saved, requiring: fingerprint)
    else { return false }
    try database.deposit(entry.key, document: record)
    return true
  }

  /// The records of documents at `path`, with their keys' fingerprints; none when the
  /// escrow has no database yet.
  ///
  /// - Throws: ``DocbmError`` `escrowUntrusted`, `escrowDamaged` when the escrow cannot be read.
  func records(at path: FilePath) throws(DocbmError) -> [EscrowRecord] {
    guard let database = try open(create: false) else { return [] }
    return try database.records(atPath: path, orInode: nil)
  }

  /// Records that a document of key `fingerprint` is now at `document`: when the file there
  /// is one the escrow records for that key (same filesystem and file handle) at another
  /// path, its record follows it, and the path it left is no longer one of the key's
  /// documents. Any other file there, even one carrying the key (a copy), is not recorded.
  ///
  /// - Returns: whether a record moved.
  /// - Throws: ``DocbmError`` when the escrow cannot be written.
  @discardableResult
  public func recordMove(of fingerprint: KeyFingerprint, to document: FilePath) throws(DocbmError) -> Bool {
    try followDocument(of: fingerprint, to: document) != nil
  }

  /// ``recordMove(of:to:)``, returning the record as it was before it moved (for
  /// ``putBack(_:)``), or `nil` when none moved.
  package func followDocument(of fingerprint: KeyFingerprint, to document: FilePath) throws(DocbmError)
    -> EscrowRecord?
  {
    guard let record = try EscrowEntry.Document.of(document, origin: .moved, requiring: fingerprint) else {
      return nil
    }
    return try recordMoves([EscrowRecord(fingerprint: fingerprint, document: record)]).first
  }

  /// Puts a record that ``followDocument(of:to:)`` moved back as it was: a watcher that saw
  /// a new file take the name the document left (an editor's backup-rename save) keeps the
  /// document at its name, and the backup is a copy.
  package func putBack(_ previous: EscrowRecord) throws(DocbmError) {
    guard let database = try open(create: false) else { return }
    try database.putBack(previous)
  }

  /// ``recordMove(of:to:)`` for many files as they are now, in one transaction.
  ///
  /// - Returns: the records that moved, as they were before.
  func recordMoves(_ moves: [EscrowRecord]) throws(DocbmError) -> [EscrowRecord] {
    guard !moves.isEmpty, let database = try open(create: false) else { return [] }
    return try database.recordMoves(moves)
  }

  /// Forgets every record of a document at `path`, whatever its key: the way out when the
  /// recorded document is gone and another file took its name (a document deleted and
  /// made again, a store made anew), which the escrow's rule will not take for the recorded
  /// one, so that a new bookmark on it could only fail with `documentUnproven`. The keys
  /// stay in the escrow, and any other document of theirs stays recorded.
  ///
  /// Afterwards a bookmark on the file at `path` gets a key of its own, and repair no
  /// longer puts a forgotten key on a file at `path` unless told to
  /// (``DocumentRepairer/Policy/allowsUnrecordedDocuments``). `path` is made absolute and
  /// its folder's symbolic links resolved, as the escrow records paths.
  ///
  /// - Returns: the keys whose records of `path` were forgotten (none when there were
  ///   none).
  /// - Throws: ``DocbmError`` when the escrow cannot be written (`escrowUntrusted`,
  ///   `escrowDamaged`, `noSpace`, ...).
  @discardableResult
  public func forgetRecords(at path: FilePath) throws(DocbmError) -> [KeyFingerprint] {
    let absolute = path.absolute.lexicallyNormalized
    // A folder that is gone, or cannot be resolved, is recorded as it reads.
    let folder =
      (try? SymbolicLink.canonicalPath(absolute.removingLastComponent)) ?? absolute.removingLastComponent
    let recorded = folder.appending(absolute.lastComponent)
    guard let database = try open(create: false) else { return [] }
    return try database.forgetRecords(at: recorded)
  }

  /// Every key, and what could not be read (the folder or the database, when it cannot be
  /// trusted or read: then there are no entries).
  public func entries() -> (entries: [EscrowEntry], problems: [EscrowProblem]) {
    do {
      return (try listedEntries(), [])
    } catch {
      return ([], [EscrowProblem(file: error.path ?? folder, reason: error.message)])
    }
  }

  /// Every key; none when no key was escrowed yet.
  ///
  /// - Throws: ``DocbmError`` `escrowUntrusted` or `escrowDamaged` when the folder or the
  ///   database cannot be trusted or read, as ``entries()`` reports as a problem.
  package func listedEntries() throws(DocbmError) -> [EscrowEntry] {
    guard let database = try open(create: false) else { return [] }
    return try database.entries()
  }

  /// The entry for `fingerprint`, if the escrow has one that reads.
  public func entry(for fingerprint: KeyFingerprint) -> EscrowEntry? {
    try? lookup(fingerprint).get()  // as documented; `lookup(_:)` tells the problems
  }

  /// The entry for `fingerprint`: `nil` when there is none, a problem when the escrow
  /// cannot be trusted or read.
  func lookup(_ fingerprint: KeyFingerprint) -> Result<EscrowEntry?, EscrowProblem> {
    do {
      guard let database = try open(create: false) else { return .success(nil) }
      return .success(try database.entry(fingerprint))
    } catch {
      return .failure(EscrowProblem(file: error.path ?? folder, reason: error.message))
    }
  }

  /// The escrow folder, opened and checked (``EscrowFolder``), made first (with its parents)
  /// when it is missing, mode 0700; an own folder's wider mode is narrowed to 0700.
  ///
  /// - Throws: `escrowUntrusted` for a folder someone else could change; the `writeKey`
  ///   codes when it cannot be made.
  func prepareFolder() throws(DocbmError) -> EscrowFolder {
    if let existing = try EscrowFolder.open(folder) {
      do throws(DocbmError) {
        try mappingSystemErrors(.writeKey, path: folder) { () throws(SystemCallError) in
          if existing.permissions != 0o700 { try existing.descriptor.changeMode(0o700) }
        }
      } catch {
        existing.close()
        throw error
      }
      return existing
    }
    try mappingSystemErrors(.writeKey, path: folder) { () throws(SystemCallError) in
      var current = FilePath.root
      for component in folder.absolute.components {
        current = current.appending(component)
        do throws(SystemCallError) {
          try FileDescriptor.currentWorkingDirectory.makeDirectory(current, permissions: 0o700)
        } catch  where error.errno == .fileExists {
          continue
        }
      }
    }
    guard let made = try EscrowFolder.open(folder) else {
      throw DocbmError(
        .notFound, path: folder, message: "the escrow folder \(folder) vanished as it was made")
    }
    return made
  }
}

extension EscrowEntry.Document {
  /// The record of the file at `path` as it is now, or `nil` when it is not the user's own
  /// regular file or folder, or when `fingerprint` is given and the file does not carry
  /// that key. Through the Documents portal, the file is recorded at its host path when the
  /// portal says it and this process sees the same file (with the same key) there, and not
  /// at all otherwise: a portal path means nothing once the portal stops.
  static func of(
    _ path: FilePath, origin: Origin, requiring fingerprint: KeyFingerprint? = nil, mayBePortal: Bool = true
  ) throws(DocbmError) -> EscrowEntry.Document? {
    if mayBePortal, let portal = PortalDocument.of(path) {
      // A key that cannot be read is not shown to be there: no record, as documented.
      guard let host = portal.hostPath, host != path,
        case .key(let key)? = try? KeyAttribute.read(atPath: path),
        fingerprint == nil || fingerprint == key.fingerprint
      else { return nil }
      // In a sandbox the host path is usually not there (or is another file): no record.
      guard (try? FileStatus.of(host, followSymlinks: true)) != nil, PortalDocument.of(host) == nil else {
        return nil
      }
      return try of(host, origin: origin, requiring: key.fingerprint, mayBePortal: false)
    }
    return try mappingSystemErrors(.inspectTarget, path: path) { () throws(SystemCallError) in
      let fd = try FileDescriptor.open(path, [.readOnly, .nonBlocking])
      defer { fd.close() }
      let status = try FileStatus.of(fd)
      guard status.owner == ProcessCredentials.effectiveUser,
        status.kind == .regular || status.kind == .directory
      else { return nil }
      if let fingerprint {
        // As above: a key that cannot be read is not shown to be that key.
        guard case .key(let key)? = try? KeyAttribute.read(from: fd, path: path),
          key.fingerprint == fingerprint
        else { return nil }
      }
      return of(fd, status: status, path: path, origin: origin)
    }
  }

  /// The record of the file open as `fd` (its status `status`), reached at `path`, whose
  /// canonical path is `real` when the caller knows it (else it is looked up).
  static func of(
    _ fd: FileDescriptor, status: FileStatus, path: FilePath, real: FilePath? = nil, origin: Origin
  ) -> EscrowEntry.Document {
    // A path that cannot be resolved is recorded as it reads.
    let real = real ?? (try? TargetSnapshot.canonicalPath(path)) ?? path.absolute
    // The handle and filesystem ID are optional evidence: the record goes without them.
    return EscrowEntry.Document(
      path: real, inode: status.inode, fileHandle: try? KernelFileHandle.of(fd),
      filesystemID: (try? FileSystemIdentity.of(fd))?.fsid, birthTime: status.birthTime,
      permissions: status.permissions & 0o7777, origin: origin, recorded: .fileClockNow)
  }
}
