import CDocbmShims
import Glibc

/// The inode flags that `chattr` sets and `lsattr` shows, as far as docbm needs them.
package struct InodeFlags: OptionSet, Hashable, Sendable {
  package let rawValue: UInt32
  package init(rawValue: UInt32) { self.rawValue = rawValue }

  /// `chattr +i`: the file cannot be changed, renamed, replaced or removed, not even by
  /// root; a folder gets no new entries.
  package static let immutable = InodeFlags(rawValue: CDOCBM_FS_IMMUTABLE_FL)
  /// `chattr +a`: a file can only be appended to, and cannot be renamed, replaced or
  /// removed; a folder gets new entries but loses none.
  package static let appendOnly = InodeFlags(rawValue: CDOCBM_FS_APPEND_FL)
}

extension FileDescriptor {
  /// The file's inode flags; `nil` when its filesystem keeps none (ENOTTY, EOPNOTSUPP,
  /// EINVAL: tmpfs before Linux 6.0, FUSE, NFS, …). The descriptor must not be `O_PATH`.
  /// The corresponding C call is `ioctl(FS_IOC_GETFLAGS)`.
  package func inodeFlags() throws(SystemCallError) -> InodeFlags? {
    var flags: UInt32 = 0
    do {
      _ = try retryingOnInterrupt("ioctl(FS_IOC_GETFLAGS)") { cdocbm_inode_flags(rawValue, &flags) }
    } catch  where [.inappropriateIoctl, .notSupported, .invalidArgument].contains(error.errno) {
      return nil
    }
    return InodeFlags(rawValue: flags)
  }

  /// Sets the file's inode flags. Clearing `immutable` or `appendOnly` needs
  /// CAP_LINUX_IMMUTABLE (root). The corresponding C call is `ioctl(FS_IOC_SETFLAGS)`.
  package func setInodeFlags(_ flags: InodeFlags) throws(SystemCallError) {
    _ = try retryingOnInterrupt("ioctl(FS_IOC_SETFLAGS)") { cdocbm_set_inode_flags(rawValue, flags.rawValue) }
  }
}
