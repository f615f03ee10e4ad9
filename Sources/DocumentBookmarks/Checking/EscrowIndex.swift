import Synchronization

/// The escrow's records of documents as a checker looks them up: by path, else by identity
/// (filesystem and file handle, or inode where there is no handle: inode numbers alone are
/// reused).
///
/// Either the records of the folders a tree check walks, read at once
/// (``loading(inside:)``), with each key and its records read when a document names it;
/// or the records of one file at a time, read from the database when it is checked (for a
/// few documents: a lookup reads two rows, not the whole escrow). Neither reads the
/// records of documents elsewhere that the files checked do not name, so a check's cost
/// follows the tree, not the escrow. Or, for a look at one document (`docbm inspect`), an
/// escrow opened only when that document's verdict depends on its record (``deferred(_:)``).
struct EscrowIndex: Sendable {
  /// Records looked up in memory; one instance shared by the threads of a tree check.
  final class Tables: Sendable {
    /// Each path's most recently confirmed record.
    let byPath: [FilePath: EscrowRecord]
    /// Every record of each inode number.
    let byInode: [UInt64: [EscrowRecord]]
    /// A hash of the last component of every recorded path: a document whose name's hash
    /// is not among them has no record of its path, so its path is not made absolute to be
    /// looked up. A hash that is there only leads to the lookup by path, which decides.
    let nameHashes: Set<Int>

    /// Tables of `records`, in the order they were made.
    init(_ records: [EscrowRecord]) {
      var byPath: [FilePath: EscrowRecord] = [:]
      var byInode: [UInt64: [EscrowRecord]] = [:]
      var nameHashes: Set<Int> = []
      // A record taken from another escrow's export names no document by itself: a
      // document is looked up by this escrow's own records only.
      for record in records where record.document.origin != .transferred {
        let path = record.document.path
        nameHashes.insert(Tables.nameHash(of: path))
        // The later confirmed record of a path wins (the later made, when confirmed alike).
        if byPath[path].map({ $0.document.confirmed <= record.document.confirmed }) ?? true {
          byPath[path] = record
        }
        byInode[record.document.inode, default: []].append(record)
      }
      (self.byPath, self.byInode, self.nameHashes) = (byPath, byInode, nameHashes)
    }

    /// The hash of the bytes after the last slash of `path`.
    static func nameHash(of path: FilePath) -> Int {
      path.bytes.withUnsafeBufferPointer { bytes in
        let start = bytes.lastIndex(of: UInt8(ascii: "/")).map { $0 + 1 } ?? 0
        var hasher = Hasher()
        hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[start...])))
        return hasher.finalize()
      }
    }

    /// The record of `path` (made absolute, unless `absolute` is given), when some
    /// record's name hashes as its name does.
    func record(atPath path: FilePath, absolute: FilePath? = nil) -> EscrowRecord? {
      guard nameHashes.contains(Tables.nameHash(of: path)) else { return nil }
      return byPath[absolute ?? path.absolute]
    }
  }

  /// What a lookup found.
  struct Found {
    /// The key recorded for the file.
    let fingerprint: KeyFingerprint
    /// The record found by the file's identity at another path, when it was not found by
    /// its path.
    let elsewhere: EscrowRecord?
  }

  /// The records of the folders a tree check walks, and the keys its documents name.
  final class Tree: Sendable {
    let tables: Tables
    let connection: EscrowConnection
    /// Each key asked for, with all its records, as the database gave it.
    private let entries = Mutex<[KeyFingerprint: Result<EscrowEntry?, EscrowProblem>]>([:])

    init(_ tables: Tables, connection: EscrowConnection) {
      (self.tables, self.connection) = (tables, connection)
    }

    /// The entry of `fingerprint`, read from the database the first time it is asked for
    /// (each key's fingerprint is derived and checked once per check).
    func entry(_ fingerprint: KeyFingerprint) -> Result<EscrowEntry?, EscrowProblem> {
      if let known = entries.withLock({ $0[fingerprint] }) { return known }
      let read = connection.withDatabase { (database) throws(DocbmError) in try database.entry(fingerprint) }
        .mapError { EscrowProblem(file: $0.path ?? connection.path, reason: $0.message) }
      entries.withLock { $0[fingerprint] = read }
      return read
    }
  }

  /// An escrow opened at its first look-up, at most once.
  final class Deferred: Sendable {
    let escrow: KeyEscrow
    private let opened = Mutex<EscrowIndex?>(nil)

    init(_ escrow: KeyEscrow) { self.escrow = escrow }

    /// The escrow's index, opened now when it was not yet.
    var index: EscrowIndex {
      opened.withLock { opened in
        if let opened { return opened }
        let index = EscrowIndex(escrow)
        opened = index
        return index
      }
    }

    /// The index when the escrow was opened; `nil` when nothing asked for it yet.
    var openedIndex: EscrowIndex? { opened.withLock { $0 } }
  }

  private enum Source: Sendable {
    case none
    case tree(Tree)
    case perFile(EscrowConnection)
    case deferred(Deferred)
  }

  private let source: Source
  private let ownProblem: EscrowProblem?
  private let ownMigration: EscrowMigration?

  /// Why the escrow could not be used (reported as a warning: checks stand without it).
  var problem: EscrowProblem? {
    if case .deferred(let deferred) = source { return deferred.openedIndex?.problem }
    return ownProblem
  }
  /// What opening the escrow imported from a 0.1.0 escrow.
  var migration: EscrowMigration? {
    if case .deferred(let deferred) = source { return deferred.openedIndex?.migration }
    return ownMigration
  }
  /// Whether the escrow is opened only when a document's verdict depends on its record.
  var isDeferred: Bool {
    if case .deferred = source { return true }
    return false
  }

  /// The index of `escrow`, opened at its first look-up (none when `escrow` is `nil`).
  static func deferred(_ escrow: KeyEscrow?) -> EscrowIndex {
    guard let escrow else { return EscrowIndex(nil) }
    return EscrowIndex(source: .deferred(Deferred(escrow)), problem: nil, migration: nil)
  }

  /// The index of `escrow`, which is opened now (and migrated, when it holds 0.1.0's files).
  init(_ escrow: KeyEscrow?) {
    guard let escrow else {
      (source, ownProblem, ownMigration) = (.none, nil, nil)
      return
    }
    do {
      guard let database = try escrow.open(create: false) else {
        (source, ownProblem, ownMigration) = (.none, nil, nil)
        return
      }
      ownMigration = database.migration
      source = .perFile(EscrowConnection(database))
      ownProblem = nil
    } catch {
      (source, ownProblem, ownMigration) = (
        .none, EscrowProblem(file: error.path ?? escrow.folder, reason: error.message), nil
      )
    }
  }

  private init(source: Source, problem: EscrowProblem?, migration: EscrowMigration?) {
    self.source = source
    ownProblem = problem
    ownMigration = migration
  }

  /// This index with the records of every document inside `folders` (absolute and
  /// normalized) read into memory at once, for checking the trees there; keys, and the
  /// records of documents elsewhere, are read when a document checked names them
  /// (``lookUp(_:descriptor:inode:namedBy:)``, ``entry(_:)``). Itself when that is done
  /// already or there is no escrow.
  func loading(inside folders: [FilePath]) -> EscrowIndex {
    if case .deferred(let deferred) = source { return deferred.index.loading(inside: folders) }
    guard case .perFile(let connection) = source else { return self }
    switch connection.withDatabase({ (database) throws(DocbmError) in try database.records(inside: folders) })
    {
    case .success(let records):
      return EscrowIndex(
        source: .tree(Tree(Tables(records), connection: connection)), problem: problem, migration: migration)
    case .failure(let error):
      return EscrowIndex(
        source: .none, problem: EscrowProblem(file: error.path ?? connection.path, reason: error.message),
        migration: migration)
    }
  }

  /// The key and records of `fingerprint`, through the database this index holds open
  /// (for a tree, read once per check); none when the escrow had no database when the
  /// index was made, and its problem when it could not be used.
  func entry(_ fingerprint: KeyFingerprint) -> Result<EscrowEntry?, EscrowProblem> {
    switch source {
    case .none: problem.map { .failure($0) } ?? .success(nil)
    case .tree(let tree): tree.entry(fingerprint)
    case .deferred(let deferred): deferred.index.entry(fingerprint)
    case .perFile(let connection):
      connection.withDatabase { (database) throws(DocbmError) in try database.entry(fingerprint) }
        .mapError { EscrowProblem(file: $0.path ?? connection.path, reason: $0.message) }
    }
  }

  /// The escrow's key of a fingerprint, for a tree's index (``loading(inside:)``): each
  /// key read once per check; `nil` for an index that reads the database per document or
  /// has no escrow. A key whose entry is damaged is not given.
  var escrowedKeys: (@Sendable (KeyFingerprint) -> DocumentKey?)? {
    guard case .tree(let tree) = source else { return nil }
    return { fingerprint in
      guard case .success(let entry?) = tree.entry(fingerprint) else { return nil }
      return entry.key
    }
  }

  /// The key recorded for the document at `path`, open as `fd`: by its path, else by its
  /// identity (which also finds it after a move, or through a link).
  ///
  /// Only a document whose inode number some record names is looked up by identity (two
  /// more system calls); `inode`, when the caller has it from `readdir`, spares the `statx`.
  /// `absolute`: `path` made absolute and normalized, when the caller knows it.
  func lookUp(
    _ path: FilePath, absolute: FilePath? = nil, descriptor fd: FileDescriptor, inode: UInt64? = nil
  ) -> Found? {
    switch source {
    case .none:
      return nil
    case .deferred(let deferred):
      return deferred.index.lookUp(path, absolute: absolute, descriptor: fd, inode: inode)
    case .tree(let tree):
      return EscrowIndex.lookUp(path, absolute: absolute, in: tree.tables, descriptor: fd, inode: inode)
    case .perFile(let connection):
      let absolute = absolute ?? path.absolute
      guard let inode = inode ?? (try? FileStatus.of(fd))?.inode,
        case .success(let records) = connection.withDatabase({ (database) throws(DocbmError) in
          try database.records(atPath: absolute, orInode: inode)
        }), !records.isEmpty
      else { return nil }
      return EscrowIndex.lookUp(
        absolute, absolute: absolute, in: Tables(records), descriptor: fd, inode: inode)
    }
  }

  /// For a tree's index, the record of the document open as `fd` (at `absolute`) among
  /// those of the keys `fingerprints` (its own key, the keys its bookmarks name), when
  /// ``lookUp(_:absolute:descriptor:inode:)`` found none: a document moved into the tree
  /// from elsewhere. Only a document whose inode number such a record names costs more
  /// system calls. `nil` for the other indexes, whose first look-up asked the database by
  /// inode already.
  func lookUp(
    _ absolute: FilePath, descriptor fd: FileDescriptor, inode: UInt64?,
    namedBy fingerprints: [KeyFingerprint]
  ) -> Found? {
    guard case .tree(let tree) = source, !fingerprints.isEmpty else { return nil }
    var records: [EscrowRecord] = []
    for fingerprint in Set(fingerprints) {
      guard case .success(let entry?) = tree.entry(fingerprint) else { continue }
      records += entry.documents.map { EscrowRecord(fingerprint: fingerprint, document: $0) }
    }
    guard !records.isEmpty else { return nil }
    return EscrowIndex.lookUp(absolute, absolute: absolute, in: Tables(records), descriptor: fd, inode: inode)
  }

  private static func lookUp(
    _ path: FilePath, absolute: FilePath?, in tables: Tables, descriptor fd: FileDescriptor, inode: UInt64?
  ) -> Found? {
    if let found = tables.record(atPath: path, absolute: absolute) {
      return Found(fingerprint: found.fingerprint, elsewhere: nil)
    }
    guard !tables.byInode.isEmpty, let inode = inode ?? (try? FileStatus.of(fd))?.inode,
      let candidates = tables.byInode[inode], let filesystem = try? FileSystemIdentity.of(fd)
    else { return nil }
    let handle = try? KernelFileHandle.of(fd)
    let now = EscrowEntry.Document(
      path: absolute ?? path.absolute, inode: inode, fileHandle: handle ?? nil, filesystemID: filesystem.fsid,
      origin: .moved,
      recorded: .now)
    guard
      let found = candidates.filter({ $0.document.hasSameIdentity(as: now) }).max(by: {
        $0.document.confirmed < $1.document.confirmed
      })
    else { return nil }
    return Found(fingerprint: found.fingerprint, elsewhere: found)
  }
}

/// One open escrow database shared by the threads of a checker, one at a time.
final class EscrowConnection: Sendable {
  private let database: Mutex<EscrowDatabase>
  let path: FilePath

  init(_ database: consuming sending EscrowDatabase) {
    path = database.path
    self.database = Mutex(database)
  }

  /// Runs `body` with the database, holding its lock.
  func withDatabase<Value: Sendable>(
    _ body: (EscrowDatabase) throws(DocbmError) -> Value
  ) -> Result<Value, DocbmError> {
    database.withLock { database in
      do throws(DocbmError) {
        return .success(try body(database))
      } catch {
        return .failure(error)
      }
    }
  }
}
