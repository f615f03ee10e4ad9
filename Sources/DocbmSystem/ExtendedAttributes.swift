import CDocbmShims
import Glibc

/// Extended attributes of one file, reached through a descriptor or a path.
///
/// Absent attributes read as `nil` (ENODATA), buffers grow on ERANGE (the value can change
/// between the size query and the read), and every other failure is a ``SystemCallError``.
/// Path-based calls follow a final symbolic link or not (the `l…` variants), as the subject
/// says.
package enum ExtendedAttributes {
  /// Where the calls act: an open descriptor or a path.
  package enum Subject: Sendable {
    case descriptor(FileDescriptor)
    case path(FilePath, followSymlinks: Bool)
  }

  /// The largest value the kernel accepts (XATTR_SIZE_MAX).
  package static let maximumValueSize = 65536

  /// The value of `name`, or `nil` when the file has no such attribute.
  /// The corresponding C functions are `fgetxattr`, `getxattr` and `lgetxattr`.
  package static func value(
    _ name: String, of subject: Subject, sizeHint: Int = 256
  ) throws(SystemCallError) -> [UInt8]? {
    try value(named: Array(name.utf8), of: subject, sizeHint: sizeHint)
  }

  /// The value of the attribute whose name is `name`'s bytes (names need not be UTF-8).
  package static func value(
    named name: [UInt8], of subject: Subject, sizeHint: Int = 256
  ) throws(SystemCallError) -> [UInt8]? {
    var capacity = max(sizeHint, 1)
    while true {
      var buffer = [UInt8](repeating: 0, count: capacity)
      let result: Int = buffer.withUnsafeMutableBytes { raw in
        FilePath(uncheckedBytes: name).withCString { cName in
          switch subject {
          case .descriptor(let fd):
            return cdocbm_fgetxattr(fd.rawValue, cName, raw.baseAddress, raw.count)
          case .path(let path, let follow):
            return path.withCString { cPath in
              follow
                ? cdocbm_getxattr(cPath, cName, raw.baseAddress, raw.count)
                : cdocbm_lgetxattr(cPath, cName, raw.baseAddress, raw.count)
            }
          }
        }
      }
      if result >= 0 {
        buffer.removeSubrange(result...)
        return buffer
      }
      let error = Errno.current
      switch error {
      case .interrupted: continue
      case .noData: return nil
      case .outOfRange where capacity < maximumValueSize:
        capacity = min(capacity * 4, maximumValueSize)
      default: throw SystemCallError(subject.call("getxattr"), error, path: subject.path)
      }
    }
  }

  /// What ``readSmallValue(named:of:into:)`` found.
  package enum SmallRead {
    /// The value, this many bytes at the start of the buffer.
    case value(Int)
    /// The file has no such attribute.
    case absent
    /// Anything else: a longer value, an error.
    case unread
  }

  /// Reads the value of the attribute whose name is the C string `cName` into `buffer`
  /// (temporary storage of the caller's, on the stack), with no array made for it. The hot
  /// paths read a document's key this way; for anything but a value that fits
  /// (``SmallRead/unread``) the caller takes ``value(named:of:sizeHint:)``, which says why.
  /// The corresponding C functions are `fgetxattr`, `getxattr` and `lgetxattr`.
  package static func readSmallValue(
    named cName: UnsafePointer<CChar>, of subject: Subject, into buffer: UnsafeMutableRawBufferPointer
  ) -> SmallRead {
    var length: Int
    repeat {
      switch subject {
      case .descriptor(let fd):
        length = cdocbm_fgetxattr(fd.rawValue, cName, buffer.baseAddress, buffer.count)
      case .path(let path, let follow):
        length = path.withCString { cPath in
          follow
            ? cdocbm_getxattr(cPath, cName, buffer.baseAddress, buffer.count)
            : cdocbm_lgetxattr(cPath, cName, buffer.baseAddress, buffer.count)
        }
      }
    } while length < 0 && Errno.current == .interrupted
    if length < 0 { return Errno.current == .noData ? .absent : .unread }
    return .value(length)
  }

  /// How a value is set.
  package enum SetMode: Sendable {
    /// Create or replace.
    case any
    /// Fail with EEXIST when the name exists (XATTR_CREATE).
    case createOnly
  }

  /// Sets `name` to `value`.
  /// The corresponding C functions are `fsetxattr` and `lsetxattr`.
  package static func set(
    _ name: String, to value: [UInt8], on subject: Subject, mode: SetMode = .any
  ) throws(SystemCallError) {
    let flags: Int32 =
      switch mode {
      case .any: 0
      case .createOnly: CDOCBM_XATTR_CREATE
      }
    _ = try retryingOnInterrupt(subject.call("setxattr"), path: subject.path) {
      value.withUnsafeBytes { raw in
        name.withCString { cName in
          switch subject {
          case .descriptor(let fd):
            return cdocbm_fsetxattr(fd.rawValue, cName, raw.baseAddress, raw.count, flags)
          case .path(let path, let follow):
            return path.withCString {
              follow
                ? cdocbm_setxattr($0, cName, raw.baseAddress, raw.count, flags)
                : cdocbm_lsetxattr($0, cName, raw.baseAddress, raw.count, flags)
            }
          }
        }
      }
    }
  }

  /// The names of every attribute the caller may see, in the kernel's order.
  /// The corresponding C functions are `flistxattr` and `llistxattr`.
  package static func names(of subject: Subject) throws(SystemCallError) -> [[UInt8]] {
    var capacity = 1024
    while true {
      var buffer = [UInt8](repeating: 0, count: capacity)
      let result: Int = buffer.withUnsafeMutableBytes { raw in
        let pointer = raw.baseAddress?.assumingMemoryBound(to: CChar.self)
        switch subject {
        case .descriptor(let fd): return cdocbm_flistxattr(fd.rawValue, pointer, raw.count)
        case .path(let path, let follow):
          return path.withCString {
            follow ? cdocbm_listxattr($0, pointer, raw.count) : cdocbm_llistxattr($0, pointer, raw.count)
          }
        }
      }
      if result >= 0 {
        // The names, each ended by a zero byte.
        var names: [[UInt8]] = []
        var start = 0
        for index in 0..<result where buffer[index] == 0 {
          if index > start { names.append(Array(buffer[start..<index])) }
          start = index + 1
        }
        if start < result { names.append(Array(buffer[start..<result])) }
        return names
      }
      let error = Errno.current
      switch error {
      case .interrupted: continue
      case .notSupported: return []
      case .outOfRange where capacity < maximumValueSize:
        capacity = min(capacity * 4, maximumValueSize)
      default: throw SystemCallError(subject.call("listxattr"), error, path: subject.path)
      }
    }
  }

  /// Removes `name`; returns `false` when there was no such attribute.
  /// The corresponding C functions are `fremovexattr` and `lremovexattr`.
  @discardableResult
  package static func remove(_ name: String, from subject: Subject) throws(SystemCallError) -> Bool {
    do {
      _ = try retryingOnInterrupt(subject.call("removexattr"), path: subject.path) {
        name.withCString { cName in
          switch subject {
          case .descriptor(let fd): return cdocbm_fremovexattr(fd.rawValue, cName)
          case .path(let path, let follow):
            return path.withCString {
              follow ? cdocbm_removexattr($0, cName) : cdocbm_lremovexattr($0, cName)
            }
          }
        }
      }
      return true
    } catch  where error.errno == .noData {
      return false
    }
  }
}

extension ExtendedAttributes.Subject {
  fileprivate func call(_ base: String) -> String {
    switch self {
    case .descriptor: "f" + base
    case .path(_, let follow): follow ? base : "l" + base
    }
  }

  fileprivate var path: FilePath? {
    if case .path(let path, _) = self { return path }
    return nil
  }
}
