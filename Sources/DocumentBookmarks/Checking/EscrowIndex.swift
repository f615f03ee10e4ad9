import DocbmSystem
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
    let byPath: [FilePath: EscrowPathRecord]
    /// A hash of the last component of every recorded path: a document whose name's hash
    /// is not among them has no record of its path, so its path is not made absolute to be
    /// looked up. A hash that is there only leads to the lookup by path, which decides.
    let nameHashes: Set<Int>
    /// The inode numbers the records name: only a document with one of them may be a
    /// recorded file found at another path.
    let inodes: Set<UInt64>
    /// Every whole record of each inode number, for tables made of whole records; `nil`
    /// for a tree's, whose records are read whole from the database when a document's
    /// inode number is among ``inodes``.
    let byInode: [UInt64: [EscrowRecord]]?

    /// Tables of whole `records`, in the order they were made.
    convenience init(_ records: [EscrowRecord]) {
      // A record taken from another escrow's export names no document by itself: a
      // document is looked up by this escrow's own records only.
      let own = records.filter { $0.document.origin != .transferred }
      var byInode: [UInt64: [EscrowRecord]] = [:]
      for record in own { byInode[record.document.inode, default: []].append(record) }
      self.init(
        paths: own.enumerated().map { order, record in
          EscrowPathRecord(
            fingerprint: record.fingerprint, path: record.document.path, inode: record.document.inode,
            confirmed: record.document.confirmed, order: Int64(order))
        }, byInode: byInode)
    }

    /// Tables of `paths` (none taken from another escrow's export); `byInode`: the whole
    /// records, when the caller has them.
    init(paths: [EscrowPathRecord], byInode: [UInt64: [EscrowRecord]]? = nil) {
      // Sized for every record up front: a table that grows hashes its entries again.
      var byPath: [FilePath: EscrowPathRecord] = .init(minimumCapacity: paths.count)
      var nameHashes: Set<Int> = .init(minimumCapacity: paths.count)
      var inodes: Set<UInt64> = .init(minimumCapacity: paths.count)
      for record in paths {
        nameHashes.insert(Tables.nameHash(of: record.path))
        inodes.insert(record.inode)
        if byPath[record.path].map({ record.supersedes($0) }) ?? true { byPath[record.path] = record }
      }
      (self.byPath, self.nameHashes, self.inodes, self.byInode) = (byPath, nameHashes, inodes, byInode)
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
    func record(atPath path: FilePath, absolute: FilePath? = nil) -> EscrowPathRecord? {
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

  /// The records of the folders a tree check walks (what finds a document by its path),
  /// and the keys its documents name.
  final class Tree: Sendable {
    let tables: Tables
    let connection: EscrowConnection
    /// Whether its reads share one read transaction (``EscrowConnection/readingShared(_:)``):
    /// for a check whose caller writes nothing to the escrow while it runs.
    let sharesReads: Bool
    /// Each key asked for, with all its records, as the database gave it.
    private let entries = Mutex<[KeyFingerprint: Result<EscrowEntry?, EscrowProblem>]>([:])

    init(_ tables: Tables, connection: EscrowConnection, sharesReads: Bool) {
      (self.tables, self.connection, self.sharesReads) = (tables, connection, sharesReads)
    }

    /// Runs `read` as this tree's reads run: in the shared read transaction, or alone.
    func read<Value: Sendable>(
      _ read: (EscrowDatabase) throws(DocbmError) -> Value
    ) -> Result<Value, DocbmError> {
      sharesReads ? connection.readingShared(read) : connection.withDatabase(read)
    }

    /// The entry of `fingerprint`, read from the database the first time it is asked for
    /// (each key's fingerprint is derived and checked once per check).
    func entry(_ fingerprint: KeyFingerprint) -> Result<EscrowEntry?, EscrowProblem> {
      if let known = entries.withLock({ $0[fingerprint] }) { return known }
      let read = read { (database) throws(DocbmError) in try database.entry(fingerprint) }
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
  func loading(inside folders: [FilePath], sharingReads: Bool = false) -> EscrowIndex {
    if case .deferred(let deferred) = source {
      return deferred.index.loading(inside: folders, sharingReads: sharingReads)
    }
    guard case .perFile(let connection) = source else { return self }
    switch connection.withDatabase({ (database) throws(DocbmError) in
      try database.pathRecords(inside: folders)
    })
    {
    case .success(let records):
      return EscrowIndex(
        source: .tree(Tree(Tables(paths: records), connection: connection, sharesReads: sharingReads)),
        problem: problem,
        migration: migration)
    case .failure(let error):
      return EscrowIndex(
        source: .none, problem: EscrowProblem(file: error.path ?? connection.path, reason: error.message),
        migration: migration)
    }
  }

  /// A tree's connection to the escrow's database, for looking at its transaction.
  var treeConnection: EscrowConnection? {
    if case .tree(let tree) = source { return tree.connection }
    return nil
  }

  /// Ends a tree's shared read transaction when it began more than `age` nanoseconds ago
  /// (0: whatever its age): between documents, and when the check ends.
  func endSharedRead(ifOlderThan age: UInt64 = 0) {
    if case .tree(let tree) = source, tree.sharesReads { tree.connection.endSharedRead(ifOlderThan: age) }
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
  /// more system calls); `inode`, when the caller has it from the folder's listing, spares the `statx`.
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
      if let found = tree.tables.record(atPath: path, absolute: absolute) {
        return Found(fingerprint: found.fingerprint, elsewhere: nil)
      }
      // A file whose inode number a record of the tree names: its records are read whole
      // to compare identities, as for a single file. A file that cannot be looked at has
      // no identity to find it by.
      guard !tree.tables.inodes.isEmpty, let inode = inode ?? (try? FileStatus.of(fd))?.inode,
        tree.tables.inodes.contains(inode)
      else { return nil }
      guard
        case .success(let records) = tree.read({ (database) throws(DocbmError) in
          try database.records(atPath: absolute ?? path.absolute, orInode: inode)
        }), !records.isEmpty
      else { return nil }
      return EscrowIndex.lookUp(
        absolute ?? path.absolute, absolute: absolute ?? path.absolute, in: Tables(records), descriptor: fd,
        inode: inode)
    case .perFile(let connection):
      // A file that cannot be looked at has no identity to find it by.
      guard let inode = inode ?? (try? FileStatus.of(fd))?.inode else { return nil }
      return EscrowIndex.lookUp(absolute ?? path.absolute, descriptor: fd, inode: inode, in: connection)
    }
  }

  /// The record of the file open as `fd` (at `absolute`, with inode number `inode`) among
  /// the records of its path and of its inode number, read from the database.
  private static func lookUp(
    _ absolute: FilePath, descriptor fd: FileDescriptor, inode: UInt64, in connection: EscrowConnection
  ) -> Found? {
    guard
      case .success(let records) = connection.withDatabase({ (database) throws(DocbmError) in
        try database.records(atPath: absolute, orInode: inode)
      }), !records.isEmpty
    else { return nil }
    return EscrowIndex.lookUp(absolute, absolute: absolute, in: Tables(records), descriptor: fd, inode: inode)
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
    // A file whose identity cannot be read is found by no record of it.
    guard let byInode = tables.byInode, !byInode.isEmpty,
      let inode = inode ?? (try? FileStatus.of(fd))?.inode,
      let candidates = byInode[inode], let filesystem = try? FileSystemIdentity.of(fd)
    else { return nil }
    let handle = try? KernelFileHandle.of(fd)  // optional evidence: the inode and filesystem decide
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
  /// When the read transaction that shared reads run in began (``CoarseClock``
  /// nanoseconds, at least 1); 0 when none is open.
  private let sharedReadStart = Atomic<UInt64>(0)
  /// How long reads may share one read transaction: a writer of the escrow (another
  /// process's save, a repair) waits for about this long, and one more document, at most.
  static let sharedReadLength: UInt64 = 20_000_000

  init(_ database: consuming sending EscrowDatabase) {
    path = database.path
    self.database = Mutex(database)
  }

  /// Runs `body` with the database, holding its lock, after ending a shared read (so that
  /// `body` may write).
  func withDatabase<Value: Sendable>(
    _ body: (EscrowDatabase) throws(DocbmError) -> Value
  ) -> Result<Value, DocbmError> {
    database.withLock { database in
      endSharedRead(database)
      do throws(DocbmError) {
        return .success(try body(database))
      } catch {
        return .failure(error)
      }
    }
  }

  /// Runs `body`, which only reads, in the read transaction reads share: begun now when
  /// none is open, or begun again when it is older than ``sharedReadLength``: reads in one
  /// transaction take the file's lock and check its journal once, not each. Until
  /// ``endSharedRead(ifOlderThan:)`` ends it, the reads see one state of the file, and
  /// writers wait.
  func readingShared<Value: Sendable>(
    _ body: (EscrowDatabase) throws(DocbmError) -> Value
  ) -> Result<Value, DocbmError> {
    database.withLock { database in
      let now = max(CoarseClock.nanoseconds, 1)
      let start = sharedReadStart.load(ordering: .relaxed)
      if start != 0, now &- start > EscrowConnection.sharedReadLength { endSharedRead(database) }
      if sharedReadStart.load(ordering: .relaxed) == 0 {
        do throws(SQLiteError) {
          try database.connection.execute("BEGIN DEFERRED")
          sharedReadStart.store(now, ordering: .relaxed)
        } catch {
          // Reads then run without a shared transaction: each statement is one of its own.
        }
      }
      do throws(DocbmError) {
        return .success(try body(database))
      } catch {
        return .failure(error)
      }
    }
  }

  /// Ends the read transaction reads share, when one is open and began more than
  /// `age` nanoseconds ago (0: whatever its age), so that writers of the escrow go on.
  func endSharedRead(ifOlderThan age: UInt64 = 0) {
    let start = sharedReadStart.load(ordering: .relaxed)
    guard start != 0, max(CoarseClock.nanoseconds, 1) &- start >= age else { return }
    database.withLock { endSharedRead($0) }
  }

  /// ``endSharedRead(ifOlderThan:)`` under the lock.
  private func endSharedRead(_ database: EscrowDatabase) {
    guard sharedReadStart.load(ordering: .relaxed) != 0 else { return }
    sharedReadStart.store(0, ordering: .relaxed)
    do throws(SQLiteError) {
      try database.connection.execute("COMMIT")
    } catch {
      // A read transaction that cannot end is rolled back; a failed rollback is undone
      // when the connection closes.
      try? database.connection.execute("ROLLBACK")
    }
  }

  deinit { endSharedRead() }
}
