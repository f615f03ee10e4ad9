import DocbmSystem

/// The escrow folder, opened and found trustworthy: every read and write of the escrow goes
/// through one of these.
///
/// The escrow holds keys, so whoever can change its files can make `repair` put a key of
/// their choosing on a document (and read keys back). A folder is trusted only when:
///
/// - it is a folder, not a symbolic link to one, owned by the user docbm runs as, and not
///   writable by group or others;
/// - each folder above it (after resolving links) is owned by that user or by root, and is
///   not writable by others unless it is sticky (as `/tmp` is), nor by a group other than
///   the user's own.
///
/// Files in it are opened by name relative to the open folder, never through a link, and
/// read only when they are regular files owned by the user and writable by nobody else
/// (a FIFO there is refused, never waited on).
struct EscrowFolder {
  /// The folder's path, as the escrow names it.
  let path: FilePath
  /// The open folder.
  let descriptor: FileDescriptor
  /// Its permission bits when it was opened.
  let permissions: UInt32

  /// Opens and checks the escrow folder at `path`.
  ///
  /// - Returns: `nil` when there is no folder there yet (an escrow nobody wrote to).
  /// - Throws: ``DocbmError`` `escrowUntrusted` naming what is wrong; the `openDocument`
  ///   codes (`permissionDenied`, `ioError`, …) when it cannot be opened.
  static func open(_ path: FilePath) throws(DocbmError) -> EscrowFolder? {
    let fd: FileDescriptor
    do {
      fd = try FileDescriptor.open(path, [.directory, .noFollow, .readOnly])
    } catch {
      switch error.errno {
      case .noSuchFile: return nil
      case .tooManySymbolicLinks, .notDirectory:
        throw untrusted(path, "is a symbolic link or not a folder; the escrow must be a real folder of yours")
      default: throw DocbmError(error, operation: .openDocument, path: path)
      }
    }
    let status: FileStatus
    do throws(DocbmError) {
      status = try mappingSystemErrors(.openDocument, path: path) { () throws(SystemCallError) in
        try FileStatus.of(fd)
      }
      try checkOwned(status, path)
      try checkAncestors(of: path)
    } catch {
      fd.close()
      throw error
    }
    return EscrowFolder(path: path, descriptor: fd, permissions: status.permissions & 0o7777)
  }

  func close() { descriptor.close() }

  /// The bytes of the file `name` in the folder, or `nil` when there is none.
  ///
  /// - Throws: ``EscrowProblem`` when the file is not a regular file owned by the user and
  ///   writable by nobody else, when it is larger than `limit` bytes, or cannot be read.
  func read(_ name: [UInt8], limit: Int) -> Result<[UInt8]?, EscrowProblem> {
    read(name, limit: limit, unlessVersion: nil).map { read in
      guard case .read(let bytes, _)? = read else { return nil }
      return bytes
    }
  }

  /// What ``read(_:limit:unlessVersion:)`` found of a file that exists.
  enum FileRead {
    /// The file is still the version the caller has.
    case unchanged
    /// The file's bytes, and the version they are.
    case read([UInt8], FileStatus.Version)
  }

  /// The file `name` in the folder, under the rules of ``read(_:limit:)``, read only when it
  /// is not the version `seen` (the caller keeps what it read of that one); `nil` when
  /// there is no such file.
  func read(_ name: [UInt8], limit: Int, unlessVersion seen: FileStatus.Version?) -> Result<
    FileRead?, EscrowProblem
  > {
    let file = path.appending(name)
    let fd: FileDescriptor
    do {
      fd = try FileDescriptor.open(
        FilePath(uncheckedBytes: name), [.readOnly, .noFollow, .nonBlocking], relativeTo: descriptor)
    } catch {
      switch error.errno {
      case .noSuchFile: return .success(nil)
      case .tooManySymbolicLinks:
        return .failure(
          EscrowProblem(
            file: file, reason: "is a symbolic link (refused: links are never followed)"))
      default: return .failure(EscrowProblem(file: file, reason: "cannot be opened: \(error.errno)"))
      }
    }
    defer { fd.close() }
    let bytes: [UInt8]
    let version: FileStatus.Version
    do {
      let status = try FileStatus.of(fd)
      guard status.kind == .regular else {
        return .failure(
          EscrowProblem(file: file, reason: "is not a regular file (refused, never read)"))
      }
      if let reason = EscrowFolder.ownershipProblem(status) {
        return .failure(EscrowProblem(file: file, reason: reason))
      }
      guard status.size <= UInt64(limit) else {
        return .failure(EscrowProblem(file: file, reason: "is larger than \(limit) bytes (damaged entry)"))
      }
      version = status.version
      if version == seen { return .success(.unchanged) }
      bytes = try fd.readWhole(limit: limit + 1)
    } catch {
      return .failure(EscrowProblem(file: file, reason: "cannot be read: \(error.errno)"))
    }
    guard bytes.count <= limit else {
      return .failure(EscrowProblem(file: file, reason: "is larger than \(limit) bytes (damaged entry)"))
    }
    return .success(.read(bytes, version))
  }

  /// Makes sure the database file `name` is one the escrow can use: a regular file of the
  /// user's that nobody else can write, opened without following a link or blocking (a FIFO
  /// is refused, never waited on), given mode 0600 when its mode is wider.
  ///
  /// - Returns: `false` when there is no such file.
  /// - Throws: ``DocbmError`` `escrowUntrusted` for a file someone else could change; the
  ///   `openDocument` codes when it cannot be opened.
  func prepareDatabaseFile(_ name: String) throws(DocbmError) -> Bool {
    let file = path.appending(name)
    let fd: FileDescriptor
    do {
      fd = try FileDescriptor.open(
        FilePath(name), [.readOnly, .noFollow, .nonBlocking], relativeTo: descriptor)
    } catch {
      switch error.errno {
      case .noSuchFile: return false
      case .tooManySymbolicLinks:
        throw EscrowFolder.untrustedFile(file, "is a symbolic link (refused: links are never followed)")
      case .permissionDenied:
        // Another user's database (mode 0600) is theirs, not a document of the user's. An
        // entry that cannot be looked at either is refused as unreadable, below.
        if let entry = try? FileStatus.of(FilePath(name), relativeTo: descriptor, followSymlinks: false),
          let reason = EscrowFolder.ownershipProblem(entry)
        {
          throw EscrowFolder.untrustedFile(file, reason)
        }
        throw DocbmError(
          .permissionDenied, path: file,
          message:
            "the escrow's database \(file) cannot be read by you (\(error.errno)); nothing was read from it"
        )
      default: throw DocbmError(error, operation: .openDocument, path: file)
      }
    }
    defer { fd.close() }
    let status = try mappingSystemErrors(.openDocument, path: file) { () throws(SystemCallError) in
      try FileStatus.of(fd)
    }
    guard status.kind == .regular else {
      throw EscrowFolder.untrustedFile(file, "is not a regular file (refused, never read)")
    }
    if let reason = EscrowFolder.ownershipProblem(status) {
      throw EscrowFolder.untrustedFile(file, reason)
    }
    if status.permissions & 0o077 != 0 {
      try mappingSystemErrors(.writeKey, path: file) { () throws(SystemCallError) in try fd.changeMode(0o600)
      }
    }
    // SQLite opens its rollback journal by name, blocking, to see whether it is hot: a FIFO
    // or a device there would hang every reader. It must be a regular file of the user's,
    // or absent.
    let journal = FilePath(name + "-journal")
    let journalEntry: FileStatus?
    do {
      journalEntry = try FileStatus.of(journal, relativeTo: descriptor, followSymlinks: false)
    } catch  where error.errno == .noSuchFile {
      journalEntry = nil
    } catch {
      throw DocbmError(error, operation: .openDocument, path: path.appending(journal.bytes))
    }
    if let entry = journalEntry {
      guard entry.kind == .regular else {
        throw EscrowFolder.untrustedFile(
          path.appending(journal.bytes),
          "is a \(entry.kindDescription), not SQLite's journal (refused, never opened)")
      }
      if let reason = EscrowFolder.ownershipProblem(entry) {
        throw EscrowFolder.untrustedFile(path.appending(journal.bytes), reason)
      }
    }
    return true
  }

  static func untrustedFile(_ file: FilePath, _ reason: String) -> DocbmError {
    DocbmError(
      .escrowUntrusted, path: file,
      message:
        "the escrow's database \(file) \(reason); docbm reads keys only from a file of yours that no one else can change: remove it, or set DOCBM_ESCROW_DIR to a folder of your own (mode 0700)"
    )
  }

  /// Why a file or folder with `status` cannot be trusted, or `nil` when it can: a phrase
  /// that follows its name ("belongs to user 0, not to you (1000); refused").
  static func ownershipProblem(_ status: FileStatus) -> String? {
    let user = ProcessCredentials.effectiveUser
    guard status.owner == user else {
      return "belongs to user \(status.owner), not to you (\(user)); refused"
    }
    guard status.permissions & 0o022 == 0 else {
      let mode = String(status.permissions & 0o777, radix: 8)
      return "is writable by group or others (mode \(mode)); refused"
    }
    return nil
  }

  private static func checkOwned(_ status: FileStatus, _ path: FilePath) throws(DocbmError) {
    guard status.kind == .directory else {
      throw untrusted(path, "is not a folder")
    }
    if let reason = ownershipProblem(status) { throw untrusted(path, reason) }
  }

  /// Every folder above the escrow folder must be one that no other user can rename
  /// entries in (``FolderChainTrust``).
  private static func checkAncestors(of path: FilePath) throws(DocbmError) {
    if let (folder, problem) = FolderChainTrust.problem(from: path.absolute.removingLastComponent) {
      throw untrusted(path, "the folder above it, \(folder), \(problem); refused")
    }
  }

  static func untrusted(_ path: FilePath, _ reason: String) -> DocbmError {
    DocbmError(
      .escrowUntrusted, path: path,
      message:
        "the escrow folder \(path) \(reason). docbm reads keys only from a folder that no one else can change: remove it, or set DOCBM_ESCROW_DIR to a folder of your own (mode 0700)"
    )
  }
}
