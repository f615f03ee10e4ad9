import CDocbmShims
package import FoundationEssentials
import Glibc

/// An open file descriptor. The owner closes it, usually through ``closeAfter(_:)``.
package struct FileDescriptor: Hashable, Sendable {
  /// The raw descriptor number.
  package let rawValue: Int32

  package init(rawValue: Int32) {
    self.rawValue = rawValue
  }

  /// Stands for the current working folder in the `…at` calls.
  package static let currentWorkingDirectory = FileDescriptor(rawValue: AT_FDCWD)
  /// Descriptor 0.
  package static let standardInput = FileDescriptor(rawValue: 0)
  /// Descriptor 1.
  package static let standardOutput = FileDescriptor(rawValue: 1)
  /// Descriptor 2.
  package static let standardError = FileDescriptor(rawValue: 2)

  /// How a path is opened.
  package struct Options: OptionSet, Sendable {
    package let rawValue: Int32
    package init(rawValue: Int32) { self.rawValue = rawValue }

    // A literal, union and membership that are not generic, so that other modules' uses
    // are plain calls (docs/design.md, "Calls across the fence").
    package init(arrayLiteral elements: Options...) {
      rawValue = elements.reduce(0) { $0 | $1.rawValue }
    }
    package func union(_ other: Options) -> Options { Options(rawValue: rawValue | other.rawValue) }
    package func contains(_ member: Options) -> Bool { rawValue & member.rawValue == member.rawValue }

    package static let readOnly = Options([])
    package static let writeOnly = Options(rawValue: O_WRONLY)
    package static let readWrite = Options(rawValue: O_RDWR)
    package static let create = Options(rawValue: O_CREAT)
    package static let exclusive = Options(rawValue: O_EXCL)
    package static let truncate = Options(rawValue: O_TRUNC)
    package static let directory = Options(rawValue: O_DIRECTORY)
    package static let noFollow = Options(rawValue: O_NOFOLLOW)
    package static let path = Options(rawValue: CDOCBM_O_PATH)
    package static let nonBlocking = Options(rawValue: O_NONBLOCK)
    package static let append = Options(rawValue: O_APPEND)
    /// Reads do not update the access time (only for the owner, or with CAP_FOWNER).
    package static let noAccessTime = Options(rawValue: CDOCBM_O_NOATIME)
  }

  /// Opens `path` (relative to `directory` when it is relative), always with `O_CLOEXEC`.
  ///
  /// - Throws: ``SystemCallError`` from `openat`, e.g. ENOENT, EACCES, ELOOP with
  ///   `.noFollow` on a symbolic link.
  /// The corresponding C function is `openat`.
  package static func open(
    _ path: FilePath, _ options: Options, permissions: UInt32 = 0,
    relativeTo directory: FileDescriptor = .currentWorkingDirectory
  ) throws(SystemCallError) -> FileDescriptor {
    let flags = options.rawValue | O_CLOEXEC
    do {
      let fd = try retryingOnInterrupt("openat", path: path) {
        path.withCString { openat(directory.rawValue, $0, flags, mode_t(permissions)) }
      }
      return FileDescriptor(rawValue: fd)
    } catch  where error.errno == .tooManySymbolicLinks && options.contains(.noFollow) {
      return try openRefusingNoFollow(
        path, flags: flags, permissions: permissions, relativeTo: directory, error)
    }
  }

  /// ``open(_:_:permissions:relativeTo:)`` of a name in `directory` given as a C string
  /// where it lies (a name in a ``DirectoryListing``): no copy of it is made, unless the
  /// call fails (for the error) or needs the FUSE fallback below.
  package static func open(
    name: UnsafePointer<CChar>, _ options: Options, relativeTo directory: FileDescriptor
  ) throws(SystemCallError) -> FileDescriptor {
    let flags = options.rawValue | O_CLOEXEC
    while true {
      let fd = openat(directory.rawValue, name, flags)
      if fd >= 0 { return FileDescriptor(rawValue: fd) }
      let error = Errno.current
      if error == .interrupted { continue }
      let path = FilePath(uncheckedBytes: Array(UnsafeRawBufferPointer(start: name, count: strlen(name))))
      let failure = SystemCallError("openat", error, path: path)
      guard error == .tooManySymbolicLinks && options.contains(.noFollow) else { throw failure }
      return try openRefusingNoFollow(path, flags: flags, permissions: 0, relativeTo: directory, failure)
    }
  }

  /// Some FUSE filesystems (the Documents portal's) fail every `O_NOFOLLOW` open of a
  /// regular file with ELOOP. When the entry is not a symbolic link, it is opened without
  /// the flag and kept only when it is the very entry looked at (same device and inode),
  /// so that a link put there in between is still refused.
  private static func openRefusingNoFollow(
    _ path: FilePath, flags: Int32, permissions: UInt32, relativeTo directory: FileDescriptor,
    _ loop: SystemCallError
  ) throws(SystemCallError) -> FileDescriptor {
    // An entry that cannot be looked at is not shown to be safe: the refusal stands.
    guard let entry = try? FileStatus.of(path, relativeTo: directory, followSymlinks: false),
      entry.kind != .symbolicLink, flags & O_CREAT == 0
    else { throw loop }
    let fd = try retryingOnInterrupt("openat", path: path) {
      path.withCString { openat(directory.rawValue, $0, flags & ~O_NOFOLLOW, mode_t(permissions)) }
    }
    let opened = FileDescriptor(rawValue: fd)
    // As above: a file that cannot be looked at is not shown to be the entry.
    guard let status = try? FileStatus.of(opened), status.device == entry.device, status.inode == entry.inode
    else {
      opened.close()
      throw loop
    }
    return opened
  }

  /// Closes the descriptor. EINTR is not retried: on Linux the descriptor is gone anyway.
  /// The corresponding C function is `close`.
  package func close() {
    _ = Glibc.close(rawValue)
  }

  /// Runs `body` with this descriptor and closes it afterwards, whatever `body` does.
  package func closeAfter<Result, Failure: Error>(
    _ body: (FileDescriptor) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    defer { close() }
    return try body(self)
  }

  /// Flushes the file's data and metadata to the device. A failure is final: the caller
  /// must not retry and assume success (see "fsyncgate").
  /// The corresponding C function is `fsync`.
  package func sync() throws(SystemCallError) {
    _ = try retryingOnInterrupt("fsync") { Glibc.fsync(rawValue) }
  }

  /// Flushes the file's data, and the metadata needed to read it back (its size), to the
  /// device: enough for bytes appended to a file whose name is already durable. A failure
  /// is final, as for ``sync()``.
  /// The corresponding C function is `fdatasync`.
  package func syncData() throws(SystemCallError) {
    _ = try retryingOnInterrupt("fdatasync") { Glibc.fdatasync(rawValue) }
  }

  /// Cuts (or extends with zeros) the file to `length` bytes; the offset does not move.
  /// The corresponding C function is `ftruncate`.
  package func truncate(to length: Int) throws(SystemCallError) {
    _ = try retryingOnInterrupt("ftruncate") { Glibc.ftruncate(rawValue, off_t(length)) }
  }

  /// Moves the offset to `offset` bytes from the start.
  /// The corresponding C function is `lseek`.
  package func seek(to offset: Int) throws(SystemCallError) {
    _ = try retryingOnInterrupt("lseek") { Glibc.lseek(rawValue, off_t(offset), SEEK_SET) }
  }

  /// Cuts the file to no bytes and moves the offset back to its start.
  /// The corresponding C functions are `ftruncate` and `lseek`.
  package func truncate() throws(SystemCallError) {
    _ = try retryingOnInterrupt("ftruncate") { Glibc.ftruncate(rawValue, 0) }
    _ = try retryingOnInterrupt("lseek") { Glibc.lseek(rawValue, 0, SEEK_SET) }
  }

  /// Reads up to `count` bytes at the current offset; an empty result means end of file.
  /// The corresponding C function is `read`.
  package func read(into buffer: UnsafeMutableRawBufferPointer) throws(SystemCallError) -> Int {
    try retryingOnInterrupt("read") { Glibc.read(rawValue, buffer.baseAddress, buffer.count) }
  }

  /// ``read(into:)``, waiting until the descriptor is readable when it is non-blocking (a
  /// standard input another program left so) and has nothing yet.
  /// The corresponding C functions are `read` and `poll`.
  package func readWaiting(into buffer: UnsafeMutableRawBufferPointer) throws(SystemCallError) -> Int {
    while true {
      do throws(SystemCallError) {
        return try read(into: buffer)
      } catch  where error.errno == .tryAgain {
        _ = try Poller.wait([.readable(rawValue)], timeout: -1)
      }
    }
  }

  /// Writes every byte of `bytes`, looping over short writes.
  /// The corresponding C function is `write`.
  package func writeAll(_ bytes: UnsafeRawBufferPointer) throws(SystemCallError) {
    var offset = 0
    while offset < bytes.count {
      let written = try retryingOnInterrupt("write") {
        Glibc.write(rawValue, bytes.baseAddress! + offset, bytes.count - offset)
      }
      offset += written
    }
  }

  /// Writes every byte of `bytes` (an array, `Data`, …).
  package func writeAll(_ bytes: some ContiguousBytes) throws(SystemCallError) {
    // `withUnsafeBytes` rethrows untyped errors; carry the typed one out by hand.
    var failure: SystemCallError?
    bytes.withUnsafeBytes { buffer in
      do throws(SystemCallError) { try writeAll(buffer) } catch { failure = error }
    }
    if let failure { throw failure }
  }

  /// The inode generation number, where the filesystem keeps one (ext2/3/4, btrfs, f2fs);
  /// `nil` where it does not (ENOTTY, EOPNOTSUPP, EINVAL).
  /// The corresponding C call is `ioctl(FS_IOC_GETVERSION)`.
  package func inodeGeneration() -> UInt32? {
    var generation: UInt32 = 0
    return cdocbm_inode_generation(rawValue, &generation) == 0 ? generation : nil
  }
}
