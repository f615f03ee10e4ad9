import DocbmSystem

/// The one place where `errno` values become ``DocbmError`` codes.
extension DocbmError {
  /// What docbm was doing when a system call failed; the same errno means different
  /// things in different operations (EPERM on setting an attribute is an immutable file).
  package enum Operation: Sendable, Equatable {
    case openDocument
    case readKey
    case writeKey
    case inspectTarget
    case search
    case scan
    case save(SaveStep)
    /// Taking a lock (a store's lock file).
    case lock
    /// Writing an export of the escrow.
    case exportEscrow
    /// Reading an export of the escrow.
    case importEscrow
  }

  /// Maps a failed system call to a typed error about `path`.
  package init(_ failure: SystemCallError, operation: Operation, path: FilePath) {
    let what = DocbmError.describe(operation)
    let code: Code
    let message: String
    switch failure.errno {
    case .noSuchFile:
      code = .notFound
      message = "\(path) does not exist"
    case .notDirectory:
      code = .notFound
      message = "a component of \(path) is not a folder"
    case .permissionDenied:
      code = .permissionDenied
      message = "permission denied \(what) \(path)"
    case .notPermitted where operation == .writeKey || operation == .save(.copyAttributes):
      code = .immutable
      message =
        "\(path) refuses new attributes (immutable or append-only, or not a regular file or folder)"
    case .notPermitted:
      code = .permissionDenied
      message = "operation not permitted \(what) \(path)"
    case .readOnlyFileSystem:
      code = .readOnlyFilesystem
      message = "\(path) is on a read-only filesystem"
    case .notSupported, .notImplemented:
      code = .unsupportedFilesystem
      message =
        "the filesystem of \(path) does not support user extended attributes, where a document keeps its key: keep documents on one that does (ext4, XFS, Btrfs; tmpfs from Linux 6.6)"
    case .noSpace, .quotaExceeded, .argumentListTooLong:
      code = .noSpace
      message = "no room \(what) \(path) (filesystem, quota or attribute block full)"
    case .ioError:
      code = .ioError
      message = "input/output error \(what) \(path)"
    case .notConnected:
      code = .ioError
      message = "the filesystem of \(path) is not answering \(what) it (its FUSE server has gone)"
    case .tooManySymbolicLinks:
      code = .unsupportedFileType
      message = "\(path) is a symbolic link where a file or folder was expected"
    case .nameTooLong:
      code = .pathTooLong
      if path.components.contains(where: { $0.count > FilePath.maximumNameLength }) {
        message =
          "a name in \(path) is longer than the \(FilePath.maximumNameLength) bytes a file name may have"
      } else {
        message =
          "\(path) is too long a path for the kernel (\(path.absolute.bytes.count) bytes with its folders; at most \(FilePath.maximumLength))"
      }
    case .isDirectory where operation == .scan:
      code = .unsupportedFileType
      message = "\(path) is a folder; scan the files in it"
    default:
      code = .systemFailure
      message = "\(failure.call) failed \(what) \(path)"
    }
    var step: SaveStep?
    if case .save(let saveStep) = operation { step = saveStep }
    self.init(
      code, path: path, message: message, systemCall: failure.call, errno: failure.errno.rawValue,
      step: step)
  }

  private static func describe(_ operation: Operation) -> String {
    switch operation {
    case .openDocument: "opening the document"
    case .readKey: "reading the key of"
    case .writeKey: "writing the key to"
    case .inspectTarget: "inspecting"
    case .search: "searching"
    case .scan: "scanning"
    case .save: "while saving"
    case .lock: "locking"
    case .exportEscrow: "writing the escrow's export to"
    case .importEscrow: "reading the escrow's export"
    }
  }
}

/// Runs System-layer work and maps its failure to a ``DocbmError`` about `path`.
package func mappingSystemErrors<Value>(
  _ operation: DocbmError.Operation, path: FilePath,
  _ body: () throws(SystemCallError) -> Value
) throws(DocbmError) -> Value {
  do {
    return try body()
  } catch {
    throw DocbmError(error, operation: operation, path: path)
  }
}
