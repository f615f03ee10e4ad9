import CDocbmShims
import Glibc

/// Which filesystem a file lives on: `statfs(2)`'s `f_fsid` and type, and the mount point.
///
/// `f_fsid` is derived from the UUID on ext4 and btrfs but from the device number on XFS and
/// others, so it is a hint, never a gate.
package struct FileSystemIdentity: Hashable, Sendable {
  /// `f_fsid` packed into 64 bits.
  package let fsid: UInt64
  /// `f_type`, the filesystem's magic number (0xEF53 for ext4, 0x01021994 for tmpfs).
  package let type: Int64

  /// The filesystem of an open descriptor (any descriptor, `O_PATH` included).
  /// The corresponding C function is `fstatfs`.
  package static func of(_ descriptor: FileDescriptor) throws(SystemCallError) -> FileSystemIdentity {
    var fsid: UInt64 = 0
    var type: Int64 = 0
    _ = try retryingOnInterrupt("fstatfs") { cdocbm_filesystem_id(descriptor.rawValue, &fsid, &type) }
    return FileSystemIdentity(fsid: fsid, type: type)
  }

  /// Whether this is overlayfs (`OVERLAYFS_SUPER_MAGIC`), where a file of a lower layer is
  /// copied up to the upper layer by its first write: it keeps its inode number but gets
  /// the upper file's birth time.
  package var isOverlay: Bool { type == 0x794c_7630 }

  /// Whether this is a FUSE filesystem (`FUSE_SUPER_MAGIC`), whose file handles hold the
  /// node ID the FUSE server handed out: a libfuse server gives a node a new one after every
  /// mount and whenever it forgot the node, so unequal handles say nothing there.
  package var isFUSE: Bool { type == 0x6573_5546 }

  /// The filesystem that holds `path` (following symbolic links).
  package static func of(path: FilePath) throws(SystemCallError) -> FileSystemIdentity {
    let fd = try FileDescriptor.open(path, .path)
    return try fd.closeAfter { fd throws(SystemCallError) in try of(fd) }
  }

  /// `statfs(2)`'s `f_type` of FUSE filesystems (`fuse`, `fuse.portal`, `fuse.sshfs`, …).
  package static let fuseType: Int64 = 0x6573_5546

  /// What one `statfs` of a path says about FUSE.
  package enum FUSEAnswer: Sendable {
    /// FUSE, or `statfs` failed otherwise than by ENOENT (the portal refuses it on some
    /// of its entries).
    case mayBeFUSE
    /// The kernel names another filesystem type.
    case notFUSE
    /// Nothing is at the path (ENOENT).
    case missing
  }

  /// Whether `path` may be on a FUSE filesystem, is not, or does not exist: one `statfs`.
  /// The corresponding C function is `statfs`.
  package static func fuseAnswer(path: FilePath) -> FUSEAnswer {
    var type: Int64 = 0
    let status = path.withCString { cdocbm_path_filesystem_type($0, &type) }
    guard status == 0 else { return Errno.current == .noSuchFile ? .missing : .mayBeFUSE }
    return type == fuseType ? .mayBeFUSE : .notFUSE
  }

  /// The mount point of the filesystem holding `path` (an absolute path without symbolic
  /// links): the nearest ancestor that statx marks as a mount root, which costs one
  /// `statx` per folder level. Falls back to `/proc/self/mountinfo` on kernels that do
  /// not report `STATX_ATTR_MOUNT_ROOT` (before 5.8).
  package static func mountPoint(of path: FilePath, status: FileStatus) -> FilePath? {
    var current = path
    var currentStatus = status
    while true {
      guard currentStatus.knowsMountRoot else {
        return status.mountID.flatMap(mountPoint(ofMountID:))
      }
      if currentStatus.isMountRoot || current.isRoot { return current }
      current = current.removingLastComponent
      // A folder that cannot be looked at leaves the answer to the mount table.
      guard let next = try? FileStatus.of(current, followSymlinks: false) else {
        return status.mountID.flatMap(mountPoint(ofMountID:))
      }
      currentStatus = next
    }
  }

  /// The mount point of the mount with ID `mountID`, read from `/proc/self/mountinfo`;
  /// `nil` when no such mount is listed, or the table cannot be read.
  package static func mountPoint(ofMountID mountID: UInt64) -> FilePath? {
    // A hint: a bookmark's volume records no mount point when it cannot be told.
    (try? MountTable.current())?.mount(withID: mountID)?.mountPoint
  }
}

/// Reads a whole (small) file, such as a `/proc` table or an escrow entry of 0.1.0, up to
/// `limit` bytes. A file whose size is known is read straight into a buffer of that size
/// (plus one byte, to notice growth); `/proc` files, which report no size, in chunks.
package func readWholeFile(_ path: FilePath, limit: Int = 16 << 20) throws(SystemCallError) -> [UInt8] {
  let fd = try FileDescriptor.open(path, .readOnly)
  return try fd.closeAfter { fd throws(SystemCallError) in try fd.readWhole(limit: limit) }
}

/// Reads a whole regular file, up to `limit` bytes, as a folder others can write may hold
/// it: opened without blocking (a FIFO is never waited on), a final symbolic link followed
/// only when `followSymlinks`; its bytes and the status they were read under (owner, mode:
/// for the caller to judge who could have written them), or `nil` when what is there is not
/// a regular file (a FIFO, a device, a socket, a folder).
///
/// - Throws: ``SystemCallError`` from `open` (`ELOOP` for a link not followed), `fstat`
///   or `read`.
package func readRegularFile(_ path: FilePath, limit: Int, followSymlinks: Bool) throws(SystemCallError)
  -> (bytes: [UInt8], status: FileStatus)?
{
  let options: FileDescriptor.Options =
    followSymlinks ? [.readOnly, .nonBlocking] : [.readOnly, .nonBlocking, .noFollow]
  let fd = try FileDescriptor.open(path, options)
  return try fd.closeAfter { fd throws(SystemCallError) -> (bytes: [UInt8], status: FileStatus)? in
    let status = try FileStatus.of(fd)
    guard status.kind == .regular else { return nil }
    return (try fd.readWhole(limit: limit), status)
  }
}

extension FileDescriptor {
  /// Reads from the current offset to the end, up to `limit` bytes (see
  /// ``readWholeFile(_:limit:)``); a non-blocking descriptor is waited on
  /// (``readWaiting(into:)``).
  ///
  /// - Throws: ``SystemCallError`` from `read` or `poll`; the bytes read before are lost,
  ///   so that part of a file is never taken for all of it.
  package func readWhole(limit: Int = 16 << 20) throws(SystemCallError) -> [UInt8] {
    let fd = self
    var result: [UInt8] = []
    // The size only sizes the buffer: without it, the file is read in chunks.
    let size = (try? FileStatus.of(fd)).map { Int(clamping: $0.size) } ?? 0
    if size > 0 {
      let capacity = min(size + 1, limit)
      var failure: SystemCallError?
      result = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
        while initialized < capacity {
          do throws(SystemCallError) {
            let count = try fd.readWaiting(
              into: UnsafeMutableRawBufferPointer(
                UnsafeMutableBufferPointer(rebasing: buffer[initialized...])))
            if count == 0 { return }
            initialized += count
          } catch {
            failure = error
            return
          }
        }
      }
      if let failure { throw failure }
      if result.count < capacity || result.count >= limit { return result }
    }
    let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 65536, alignment: 1)
    defer { chunk.deallocate() }
    while result.count < limit {
      let count = try fd.readWaiting(into: chunk)
      if count == 0 { break }
      result.append(contentsOf: chunk[..<count])
    }
    return result
  }
}
