import Glibc

/// An error number reported by a system call.
///
/// Only the System layer creates these; the layers above see them inside a
/// ``SystemCallError`` and turn them into ``DocbmError`` values in one place.
package struct Errno: Error, Hashable, Sendable, CustomStringConvertible {
  /// The C `errno` value.
  package let rawValue: Int32

  package init(rawValue: Int32) {
    self.rawValue = rawValue
  }

  /// The calling thread's current `errno`.
  package static var current: Errno { Errno(rawValue: errno) }

  package static let notPermitted = Errno(rawValue: EPERM)
  package static let noSuchFile = Errno(rawValue: ENOENT)
  package static let interrupted = Errno(rawValue: EINTR)
  package static let ioError = Errno(rawValue: EIO)
  package static let permissionDenied = Errno(rawValue: EACCES)
  package static let fileExists = Errno(rawValue: EEXIST)
  package static let notDirectory = Errno(rawValue: ENOTDIR)
  package static let isDirectory = Errno(rawValue: EISDIR)
  package static let noSpace = Errno(rawValue: ENOSPC)
  package static let readOnlyFileSystem = Errno(rawValue: EROFS)
  package static let outOfRange = Errno(rawValue: ERANGE)
  package static let noData = Errno(rawValue: ENODATA)
  package static let notSupported = Errno(rawValue: EOPNOTSUPP)
  package static let tooManySymbolicLinks = Errno(rawValue: ELOOP)
  package static let nameTooLong = Errno(rawValue: ENAMETOOLONG)
  package static let argumentListTooLong = Errno(rawValue: E2BIG)
  package static let quotaExceeded = Errno(rawValue: EDQUOT)
  package static let overflow = Errno(rawValue: EOVERFLOW)
  package static let notImplemented = Errno(rawValue: ENOSYS)
  package static let invalidArgument = Errno(rawValue: EINVAL)
  package static let crossDevice = Errno(rawValue: EXDEV)
  package static let notEmpty = Errno(rawValue: ENOTEMPTY)
  /// ENOTTY: the descriptor does not support the ioctl.
  package static let inappropriateIoctl = Errno(rawValue: ENOTTY)
  /// ENOTCONN: a FUSE filesystem whose server has gone ("transport endpoint is not connected").
  package static let notConnected = Errno(rawValue: ENOTCONN)
  /// EAGAIN: a resource is short for now (a thread, from `pthread_create`).
  package static let tryAgain = Errno(rawValue: EAGAIN)

  /// Whether the error says the storage failed (EIO, or a FUSE filesystem whose server has
  /// gone), not that a file is absent or refused: what was looked for may still be there.
  package var isStorageFailure: Bool { self == .ioError || self == .notConnected }

  /// The symbolic name (`ENOENT`) followed by the C library's message.
  package var description: String {
    let message = String(cString: strerror(rawValue))
    return "\(name) (\(message))"
  }

  /// The symbolic name of the error, or `errno N` for the rarer ones.
  package var name: String {
    switch rawValue {
    case EPERM: "EPERM"
    case ENOENT: "ENOENT"
    case EINTR: "EINTR"
    case EAGAIN: "EAGAIN"
    case EIO: "EIO"
    case EACCES: "EACCES"
    case EEXIST: "EEXIST"
    case EXDEV: "EXDEV"
    case ENOTDIR: "ENOTDIR"
    case EISDIR: "EISDIR"
    case EINVAL: "EINVAL"
    case ENOSPC: "ENOSPC"
    case EROFS: "EROFS"
    case ERANGE: "ERANGE"
    case ENODATA: "ENODATA"
    case EOPNOTSUPP: "EOPNOTSUPP"
    case ELOOP: "ELOOP"
    case ENAMETOOLONG: "ENAMETOOLONG"
    case E2BIG: "E2BIG"
    case EDQUOT: "EDQUOT"
    case EOVERFLOW: "EOVERFLOW"
    case ENOSYS: "ENOSYS"
    case ESTALE: "ESTALE"
    case ENOTTY: "ENOTTY"
    case EBADF: "EBADF"
    case EBUSY: "EBUSY"
    case ENOTCONN: "ENOTCONN"
    default: "errno \(rawValue)"
    }
  }
}

/// A failed system call: which call, on which path, and the error number.
package struct SystemCallError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The C function's name, such as `fsetxattr`.
  package let call: String
  /// The error number the call reported.
  package let errno: Errno
  /// The path the call was about, when there is one.
  package let path: FilePath?

  package init(_ call: String, _ errno: Errno, path: FilePath? = nil) {
    self.call = call
    self.errno = errno
    self.path = path
  }

  package var description: String {
    if let path { return "\(call)(\(path)): \(errno)" }
    return "\(call): \(errno)"
  }
}

/// Runs a system call that returns -1 and sets `errno` on failure, retrying on EINTR.
@inline(__always)
package func retryingOnInterrupt<Value: BinaryInteger>(
  _ call: String, path: FilePath? = nil, _ body: () -> Value
) throws(SystemCallError) -> Value {
  while true {
    let result = body()
    if result != -1 { return result }
    let error = Errno.current
    if error == .interrupted { continue }
    throw SystemCallError(call, error, path: path)
  }
}
