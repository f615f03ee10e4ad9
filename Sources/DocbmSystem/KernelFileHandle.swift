import CDocbmShims
import Glibc

/// A file handle from `name_to_handle_at(2)`: the filesystem's own name for an inode.
///
/// Equal handles on the same filesystem mean the same object, never a reused inode number,
/// which makes them the best unprivileged same-file test on Linux. Getting one needs no
/// privilege; opening by handle does, and docbm never opens by handle.
public struct KernelFileHandle: Hashable, Sendable, Codable {
  /// The handle type (`FILEID_INO32_GEN` is 1 on ext4).
  public let type: Int32
  /// The opaque handle bytes (at most 128).
  public let bytes: [UInt8]

  public init(type: Int32, bytes: [UInt8]) {
    self.type = type
    self.bytes = bytes
  }

  /// Whether the handle is Btrfs's (`FILEID_BTRFS_WITHOUT_PARENT`, `_WITH_PARENT`,
  /// `_WITH_PARENT_ROOT`: 0x4d to 0x4f), which names the subvolume as well as the inode.
  /// On Btrfs, inode numbers are unique only within a subvolume, and a snapshot's files keep
  /// the original's inode numbers and birth times: only the handle tells them apart.
  package var namesSubvolume: Bool { KernelFileHandle.namesSubvolume(type: type) }

  /// Whether handles of `type` are Btrfs's (``namesSubvolume``).
  package static func namesSubvolume(type: Int32) -> Bool { (0x4d...0x4f).contains(type) }

  /// The handle of `path` (relative to `directory` when relative), or `nil` when the
  /// filesystem gives none (EOPNOTSUPP on /proc, some network filesystems; ENOSYS).
  ///
  /// - Throws: ``SystemCallError`` for the other failures (ENOENT, EACCES, …).
  /// The corresponding C function is `name_to_handle_at`.
  package static func of(
    _ path: FilePath, relativeTo directory: FileDescriptor = .currentWorkingDirectory,
    followSymlinks: Bool
  ) throws(SystemCallError) -> KernelFileHandle? {
    try make(path: path) { buffer, length, type, mount in
      path.withCString { cPath in
        cdocbm_name_to_handle_at(
          directory.rawValue, cPath, followSymlinks ? CDOCBM_AT_SYMLINK_FOLLOW : 0,
          buffer, Int(CDOCBM_MAX_HANDLE_SZ), &length, &type, &mount)
      }
    }
  }

  /// The handle of an open descriptor, or `nil` when the filesystem gives none.
  /// The corresponding C function is `name_to_handle_at` with `AT_EMPTY_PATH`.
  package static func of(_ descriptor: FileDescriptor) throws(SystemCallError) -> KernelFileHandle? {
    try make(path: nil) { buffer, length, type, mount in
      cdocbm_name_to_handle_at(
        descriptor.rawValue, "", CDOCBM_AT_EMPTY_PATH, buffer, Int(CDOCBM_MAX_HANDLE_SZ),
        &length, &type, &mount)
    }
  }

  private static func make(
    path: FilePath?,
    _ call: (UnsafeMutablePointer<UInt8>, inout Int, inout Int32, inout Int32) -> Int32
  ) throws(SystemCallError) -> KernelFileHandle? {
    var buffer = [UInt8](repeating: 0, count: Int(CDOCBM_MAX_HANDLE_SZ))
    var length = 0
    var type: Int32 = 0
    var mount: Int32 = 0
    while true {
      let result = buffer.withUnsafeMutableBufferPointer {
        call($0.baseAddress!, &length, &type, &mount)
      }
      if result == 0 { return KernelFileHandle(type: type, bytes: Array(buffer[..<length])) }
      let error = Errno.current
      switch error {
      case .interrupted: continue
      case .notSupported, .notImplemented, .overflow: return nil
      default: throw SystemCallError("name_to_handle_at", error, path: path)
      }
    }
  }
}
