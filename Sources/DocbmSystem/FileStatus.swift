import CDocbmShims
import Glibc

/// What `statx(2)` tells about one file: type, identity, size, times, mount.
package struct FileStatus: Hashable, Sendable {
  /// The kind of file, from the mode's type bits.
  package enum Kind: Hashable, Sendable {
    case regular, directory, symbolicLink, other
  }

  /// Which special file an ``Kind/other`` is.
  package enum Special: Hashable, Sendable {
    case fifo, socket, characterDevice, blockDevice
  }

  package let kind: Kind
  /// For a special file (``Kind/other``), which one.
  package let special: Special?
  /// Permission bits and set-id/sticky bits (`mode & 07777`).
  package let permissions: UInt32
  package let linkCount: UInt32
  package let owner: UInt32
  package let group: UInt32
  /// The device the file lives on, as `(major, minor)`; not stable across reboots.
  package let device: Device
  package let inode: UInt64
  package let size: UInt64
  /// Creation time, when the filesystem records one.
  package let birthTime: Timestamp?
  package let modificationTime: Timestamp
  package let changeTime: Timestamp
  /// The mount's ID (`stx_mnt_id`), when the kernel reports one.
  package let mountID: UInt64?
  /// Whether the file is the root of a mount.
  package let isMountRoot: Bool
  /// Whether the kernel reported ``isMountRoot`` at all (Linux 5.8 and later).
  package let knowsMountRoot: Bool

  /// A device number split into its parts.
  package struct Device: Hashable, Sendable {
    package let major: UInt32
    package let minor: UInt32
  }

  /// The status of `path`, relative to `directory` when relative.
  ///
  /// - Parameter followSymlinks: whether a final symbolic link is followed.
  /// - Throws: ``SystemCallError`` from `statx` (ENOENT, EACCES, ENOTDIR, ELOOP, …).
  /// The corresponding C function is `statx`.
  package static func of(
    _ path: FilePath, relativeTo directory: FileDescriptor = .currentWorkingDirectory,
    followSymlinks: Bool
  ) throws(SystemCallError) -> FileStatus {
    var raw = cdocbm_file_status()
    let flags = followSymlinks ? 0 : CDOCBM_AT_SYMLINK_NOFOLLOW
    _ = try retryingOnInterrupt("statx", path: path) {
      path.withCString { cdocbm_statx(directory.rawValue, $0, flags, &raw) }
    }
    return FileStatus(raw)
  }

  /// ``of(_:relativeTo:followSymlinks:)`` of a name given as a C string where it lies (a
  /// ``DirectoryListing``'s), with no path made for it.
  ///
  /// - Throws: ``SystemCallError`` from `statx`, without a path (the caller knows it).
  package static func of(
    name: UnsafePointer<CChar>, relativeTo directory: FileDescriptor, followSymlinks: Bool
  ) throws(SystemCallError) -> FileStatus {
    var raw = cdocbm_file_status()
    let flags = followSymlinks ? 0 : CDOCBM_AT_SYMLINK_NOFOLLOW
    _ = try retryingOnInterrupt("statx") { cdocbm_statx(directory.rawValue, name, flags, &raw) }
    return FileStatus(raw)
  }

  /// The status of an open descriptor.
  /// The corresponding C function is `statx` with `AT_EMPTY_PATH`.
  package static func of(_ descriptor: FileDescriptor) throws(SystemCallError) -> FileStatus {
    var raw = cdocbm_file_status()
    _ = try retryingOnInterrupt("statx") {
      cdocbm_statx(descriptor.rawValue, "", CDOCBM_AT_EMPTY_PATH, &raw)
    }
    return FileStatus(raw)
  }

  private init(_ raw: cdocbm_file_status) {
    switch raw.mode & UInt32(S_IFMT) {
    case UInt32(S_IFREG): kind = .regular
    case UInt32(S_IFDIR): kind = .directory
    case UInt32(S_IFLNK): kind = .symbolicLink
    default: kind = .other
    }
    switch raw.mode & UInt32(S_IFMT) {
    case UInt32(S_IFIFO): special = .fifo
    case UInt32(S_IFSOCK): special = .socket
    case UInt32(S_IFCHR): special = .characterDevice
    case UInt32(S_IFBLK): special = .blockDevice
    default: special = nil
    }
    permissions = raw.mode & 0o7777
    linkCount = raw.nlink
    owner = raw.uid
    group = raw.gid
    device = Device(major: raw.dev_major, minor: raw.dev_minor)
    inode = raw.ino
    size = raw.size
    birthTime =
      raw.mask & CDOCBM_STATX_BTIME != 0
      ? Timestamp(seconds: raw.btime_sec, nanoseconds: raw.btime_nsec) : nil
    modificationTime = Timestamp(seconds: raw.mtime_sec, nanoseconds: raw.mtime_nsec)
    changeTime = Timestamp(seconds: raw.ctime_sec, nanoseconds: raw.ctime_nsec)
    mountID = raw.mask & CDOCBM_STATX_MNT_ID != 0 ? raw.mnt_id : nil
    let known = raw.attributes_mask
    knowsMountRoot = known & CDOCBM_STATX_ATTR_MOUNT_ROOT != 0
    isMountRoot =
      known & CDOCBM_STATX_ATTR_MOUNT_ROOT != 0 && raw.attributes & CDOCBM_STATX_ATTR_MOUNT_ROOT != 0
  }
}

/// A point in time as seconds and nanoseconds since 1970-01-01 UTC, as the kernel keeps it.
public struct Timestamp: Hashable, Sendable, Comparable, Codable, CustomStringConvertible {
  public let seconds: Int64
  public let nanoseconds: UInt32

  public init(seconds: Int64, nanoseconds: UInt32) {
    self.seconds = seconds
    self.nanoseconds = nanoseconds
  }

  /// The current time of the realtime clock.
  public static var now: Timestamp {
    var spec = timespec()
    clock_gettime(CLOCK_REALTIME, &spec)
    return Timestamp(seconds: Int64(spec.tv_sec), nanoseconds: UInt32(spec.tv_nsec))
  }

  /// The current time of the clock Linux stamps new files with (their birth and change
  /// times): the realtime clock as it stood at the last tick, `CLOCK_REALTIME_COARSE`. A
  /// file made after this call is never stamped earlier than it; one made in the same tick
  /// is stamped the same, before or after.
  package static var fileClockNow: Timestamp {
    var spec = timespec()
    clock_gettime(CLOCK_REALTIME_COARSE, &spec)
    return Timestamp(seconds: Int64(spec.tv_sec), nanoseconds: UInt32(spec.tv_nsec))
  }

  public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
    (lhs.seconds, lhs.nanoseconds) < (rhs.seconds, rhs.nanoseconds)
  }

  /// ISO 8601 in UTC with nanoseconds, e.g. `2026-11-29T15:04:05.123456789Z`.
  public var description: String {
    let fraction = String(min(nanoseconds, 999_999_999))
    return "\(dateAndTime(separator: "T")).\(String(repeating: "0", count: 9 - fraction.count) + fraction)Z"
  }

  /// The time to the second in UTC, for people, e.g. `2026-11-29 15:04:05 UTC`.
  package var secondsDescription: String { "\(dateAndTime(separator: " ")) UTC" }

  /// `YYYY-MM-DD`, `separator`, `hh:mm:ss`, in UTC.
  private func dateAndTime(separator: String) -> String {
    var time = time_t(seconds)
    var parts = tm()
    gmtime_r(&time, &parts)
    func pad(_ value: Int32, _ width: Int) -> String {
      let text = String(value)
      return String(repeating: "0", count: max(0, width - text.count)) + text
    }
    return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))"
      + "\(separator)\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2))"
  }
}

extension FileStatus.Kind: CustomStringConvertible {
  /// The kind in words, for messages: "regular file", "folder", …
  package var description: String {
    switch self {
    case .regular: "regular file"
    case .directory: "folder"
    case .symbolicLink: "symbolic link"
    case .other: "special file (a device, FIFO or socket)"
    }
  }
}

extension FileStatus {
  /// The file's kind in words, a special file named for what it is: "regular file",
  /// "FIFO (named pipe)", "socket", "character device", …
  package var kindDescription: String {
    switch special {
    case .fifo: "FIFO (named pipe)"
    case .socket: "socket"
    case .characterDevice: "character device"
    case .blockDevice: "block device"
    case nil: kind.description
    }
  }
}

extension FileStatus {
  /// One version of a file's contents, as `statx` tells versions apart: the same device,
  /// inode, size, and modification and change times. A file replaced by rename has another
  /// inode, and a write in place changes its times, so a file whose version is unchanged
  /// need not be read again.
  package struct Version: Hashable, Sendable {
    package let device: Device
    package let inode: UInt64
    package let size: UInt64
    package let modificationTime: Timestamp
    package let changeTime: Timestamp
  }

  /// The version of the file's contents this status describes.
  package var version: Version {
    Version(
      device: device, inode: inode, size: size, modificationTime: modificationTime, changeTime: changeTime)
  }
}
