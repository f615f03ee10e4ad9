import DocbmSystem
import DocumentBookmarks

/// Opens one of a store's files (the store file, a 0.1 store's journal, the last good copy) for
/// reading, the same way for each: without blocking (a FIFO is refused, not waited on), a
/// regular file only, trusted (``trustProblem(_:)``), at most the size limit.
enum StoreFileOpener {
  /// Why a file that is there was not read.
  enum Refusal {
    case notRegular
    case tooLarge
    case untrusted(String)

    /// The store error for it; `subject` begins the reason (`"the store's journal is "`).
    func error<Key: Hashable & Sendable>(at path: FilePath, subject: String = "") -> BookmarkStoreError<Key> {
      switch self {
      case .notRegular: .notAStore(path: path, reason: subject + "not a regular file")
      case .tooLarge:
        .notAStore(path: path, reason: subject + "larger than \(StoreFileOpener.sizeLimit >> 20) MiB")
      case .untrusted(let reason): .untrusted(path: path, reason: reason)
      }
    }
  }

  /// What opening found: nothing at the path, what `read` made of the open file, or a refusal.
  enum Opened<Value> {
    case absent
    case read(Value)
    case refused(Refusal)
  }

  /// The largest file read: far beyond any real list, small enough to bound memory.
  static var sizeLimit: Int { 256 << 20 }

  /// Opens `path` (with `options` besides read-only and non-blocking), checks it (its
  /// size against `limit`, when given), and runs `read` on it; the descriptor is closed
  /// afterwards.
  ///
  /// - Throws: ``SystemCallError`` from opening (ELOOP for a link with `.noFollow`), from
  ///   `statx`, or from `read`.
  static func open<Value>(
    _ path: FilePath, options: FileDescriptor.Options = [], limit: Int? = sizeLimit,
    _ read: (FileDescriptor, FileStatus) throws(SystemCallError) -> Value
  ) throws(SystemCallError) -> Opened<Value> {
    let fd: FileDescriptor
    do throws(SystemCallError) {
      fd = try FileDescriptor.open(path, options.union([.readOnly, .nonBlocking]))
    } catch {
      if error.errno == .noSuchFile { return .absent }
      throw error
    }
    defer { fd.close() }
    let status = try FileStatus.of(fd)
    guard status.kind == .regular else { return .refused(.notRegular) }
    if let problem = trustProblem(status) { return .refused(.untrusted(problem)) }
    if let limit, status.size > UInt64(limit) { return .refused(.tooLarge) }
    return .read(try read(fd, status))
  }

  /// Why a store file, journal, last good copy or lock file is not to be trusted: it
  /// belongs to another user (root aside), or its group or others may write it. Records and
  /// a key someone else could have put there would lead the app to that person's choice of
  /// files.
  static func trustProblem(_ status: FileStatus) -> String? {
    let user = ProcessCredentials.effectiveUser
    if status.owner != user && status.owner != 0 { return "it belongs to user \(status.owner)" }
    if status.permissions & 0o022 != 0 {
      return "its group or others may write it (mode \(String(status.permissions & 0o7777, radix: 8)))"
    }
    return nil
  }

  /// The bytes of the file at `path` (opened with `options` besides those of
  /// ``open(_:options:limit:_:)``, so checked as it does), or `nil` when there is none;
  /// `subject` begins a refusal's reason; `Key` is the store's key type, for its errors.
  ///
  /// - Throws: ``BookmarkStoreError`` `notAStore`, `untrusted` (a refusal), `docbm` (I/O,
  ///   a read fault).
  static func readWhole<Key: Hashable & Sendable>(
    _ path: FilePath, options: FileDescriptor.Options = [], subject: String = "", for _: Key.Type
  ) throws(BookmarkStoreError<Key>) -> [UInt8]? {
    let opened: Opened<[UInt8]>
    do {
      opened = try mappingSystemErrors(.openDocument, path: path) {
        () throws(SystemCallError) -> Opened<[UInt8]> in
        try StoreFaults.checkRead(of: path)
        return try open(path, options: options) { (fd, _) throws(SystemCallError) -> [UInt8] in
          try fd.readWhole(limit: sizeLimit)
        }
      }
    } catch {
      throw .docbm(error)
    }
    switch opened {
    case .absent: return nil
    case .read(let bytes): return bytes
    case .refused(let refusal): throw refusal.error(at: path, subject: subject)
    }
  }
}
