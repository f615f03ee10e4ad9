import Synchronization

/// The escrow's records of documents as a checker looks them up: by path, else by identity
/// (filesystem and file handle, or inode where there is no handle: inode numbers alone are
/// reused).
///
/// Either every record and key, read once (``loadingEverything()``, for a tree of
/// documents), or the records of one file at a time, read from the database when it is
/// checked (for a few documents: a lookup reads two rows, not the whole escrow).
struct EscrowIndex: Sendable {
  /// Records (and keys) looked up in memory; one instance shared by the threads of a tree
  /// check.
  final class Tables: Sendable {
    /// Each path's most recently confirmed record.
    let byPath: [FilePath: EscrowRecord]
    /// Every record of each inode number.
    let byInode: [UInt64: [EscrowRecord]]
    /// A hash of the last component of every recorded path: a document whose name's hash
    /// is not among them has no record of its path, so its path is not made absolute to be
    /// looked up. A hash that is there only leads to the lookup by path, which decides.
    let nameHashes: Set<Int>
    /// The records, in the order they were made, and the keys as stored (none for tables
    /// of one file's records), for ``entry(_:)``.
    private let records: [EscrowRecord]
    private let keys: [(KeyFingerprint, EscrowDatabase.StoredKey)]
    /// The database the tables were read from.
    private let file: FilePath?
    /// Each key with its records, made at the first ``entry(_:)``: a tree whose documents
    /// all hold their keys never asks for one.
    private let entries = Mutex<[KeyFingerprint: (EscrowDatabase.StoredKey, [EscrowEntry.Document])]?>(nil)

    /// Tables of `records` (in the order they were made), and of `keys` when given (with
    /// `file`, the database they were read from).
    init(
      _ records: [EscrowRecord], keys: [(KeyFingerprint, EscrowDatabase.StoredKey)] = [],
      file: FilePath? = nil
    ) {
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
      (self.records, self.keys, self.file) = (records, keys, file)
    }

    /// The entry of `fingerprint` as ``EscrowDatabase/entry(_:)`` reads it, `nil` when the
    /// escrow has no such key; the problem when its key is damaged.
    func entry(_ fingerprint: KeyFingerprint) -> Result<EscrowEntry?, EscrowProblem> {
      guard let file else { return .success(nil) }
      let found = entries.withLock { entries in
        if entries == nil {
          var made = Dictionary(keys.map { ($0, ($1, [EscrowEntry.Document]())) }, uniquingKeysWith: { $1 })
          for record in records { made[record.fingerprint]?.1.append(record.document) }
          entries = made
        }
        return entries?[fingerprint]
      }
      guard let (stored, documents) = found else { return .success(nil) }
      // In the order of their confirmation, then of their making.
      let ordered = documents.enumerated().sorted {
        ($0.element.confirmed, $0.offset) < ($1.element.confirmed, $1.offset)
      }.map(\.element)
      do {
        return .success(try EscrowDatabase.entry(fingerprint, stored: stored, documents: ordered, file: file))
      } catch {
        return .failure(EscrowProblem(file: file, reason: error.message))
      }
    }

    var isEmpty: Bool { byPath.isEmpty }

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

  private enum Source: Sendable {
    case none
    case everything(Tables)
    case perFile(EscrowConnection)
  }

  private let source: Source
  /// Why the escrow could not be used (reported as a warning: checks stand without it).
  let problem: EscrowProblem?
  /// What opening the escrow imported from a 0.1.0 escrow.
  let migration: EscrowMigration?

  /// The index of `escrow`, which is opened now (and migrated, when it holds 0.1.0's files).
  init(_ escrow: KeyEscrow?) {
    guard let escrow else {
      (source, problem, migration) = (.none, nil, nil)
      return
    }
    do {
      guard let database = try escrow.open(create: false) else {
        (source, problem, migration) = (.none, nil, nil)
        return
      }
      migration = database.migration
      source = .perFile(EscrowConnection(database))
      problem = nil
    } catch {
      (source, problem, migration) = (
        .none, EscrowProblem(file: error.path ?? escrow.folder, reason: error.message), nil
      )
    }
  }

  private init(source: Source, problem: EscrowProblem?, migration: EscrowMigration?) {
    self.source = source
    self.problem = problem
    self.migration = migration
  }

  /// This index with every record and key read into memory (one read transaction), for
  /// checking many documents; itself when that is done already or there is no escrow.
  func loadingEverything() -> EscrowIndex {
    guard case .perFile(let connection) = source else { return self }
    switch connection.withDatabase({ (database) throws(DocbmError) in try database.snapshot() }) {
    case .success(let (records, keys)):
      return EscrowIndex(
        source: .everything(Tables(records, keys: keys, file: connection.path)), problem: problem,
        migration: migration)
    case .failure(let error):
      return EscrowIndex(
        source: .none, problem: EscrowProblem(file: error.path ?? connection.path, reason: error.message),
        migration: migration)
    }
  }

  /// The key and records of `fingerprint`: from memory when every record was read
  /// (``loadingEverything()``), else through the database this index holds open; none
  /// when the escrow had no database when the index was made, and its problem when it
  /// could not be used.
  func entry(_ fingerprint: KeyFingerprint) -> Result<EscrowEntry?, EscrowProblem> {
    switch source {
    case .none: problem.map { .failure($0) } ?? .success(nil)
    case .everything(let tables): tables.entry(fingerprint)
    case .perFile(let connection):
      connection.withDatabase { (database) throws(DocbmError) in try database.entry(fingerprint) }
        .mapError { EscrowProblem(file: $0.path ?? connection.path, reason: $0.message) }
    }
  }

  /// The escrow's key of a fingerprint, read from memory, when every key is there
  /// (``loadingEverything()``); `nil` for an index that reads the database per document or
  /// has no escrow. A key whose entry is damaged is not given.
  var keysInMemory: (@Sendable (KeyFingerprint) -> DocumentKey?)? {
    guard case .everything(let tables) = source else { return nil }
    return { fingerprint in
      guard case .success(let entry?) = tables.entry(fingerprint) else { return nil }
      return entry.key
    }
  }

  /// Whether the index has nothing to look up.
  var isEmpty: Bool {
    switch source {
    case .none: true
    case .everything(let tables): tables.isEmpty
    case .perFile: false
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
    case .everything(let tables):
      return EscrowIndex.lookUp(path, absolute: absolute, in: tables, descriptor: fd, inode: inode)
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
