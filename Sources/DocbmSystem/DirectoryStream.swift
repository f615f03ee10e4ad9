import CDocbmShims
import Glibc
import Synchronization

/// The entries of one folder, read with `fdopendir`/`readdir` from a descriptor.
package final class DirectoryStream {
  /// One entry: its name, inode number and type as `readdir` gives them.
  package struct Entry: Sendable {
    package let name: [UInt8]
    package let inode: UInt64
    /// `d_type`; `.unknown` on filesystems that do not fill it in.
    package let type: EntryType
  }

  /// `readdir`'s `d_type`.
  package enum EntryType: Sendable {
    case regular, directory, symbolicLink, other, unknown

    init(_ type: UInt8) {
      switch Int32(type) {
      case Int32(DT_REG): self = .regular
      case Int32(DT_DIR): self = .directory
      case Int32(DT_LNK): self = .symbolicLink
      case Int32(DT_UNKNOWN): self = .unknown
      default: self = .other
      }
    }
  }

  /// Counts the folder reads (`getdents64` through ``entries(of:)``, `readdir` through
  /// ``next()``) made on the current task while it is set; for tests that check what a
  /// call lists.
  package final class ReadCounter: Sendable {
    private let reads = Atomic<Int>(0)
    /// A counter, and from now on every read looks for the current task's.
    package init() { DirectoryStream.countsReads.store(true, ordering: .relaxed) }
    package var count: Int { reads.load(ordering: .relaxed) }
    func add() { reads.add(1, ordering: .relaxed) }
  }

  @TaskLocal package static var readCounter: ReadCounter?

  /// Whether a test may have set ``readCounter``: checked first, so that a process that
  /// counts nothing never touches the task-local (whose first use costs a type's metadata
  /// at start-up). Set by the first ``ReadCounter``, never cleared.
  fileprivate static let countsReads = Atomic<Bool>(false)

  /// Counts one folder read on the current task's counter, if any.
  private static func countRead() {
    if countsReads.load(ordering: .relaxed) { readCounter?.add() }
  }

  private let stream: OpaquePointer

  /// Opens the folder `path` relative to `directory`, never following a final symbolic link.
  ///
  /// - Throws: ``SystemCallError`` from `openat` or `fdopendir`.
  package init(
    _ path: FilePath, relativeTo directory: FileDescriptor = .currentWorkingDirectory
  ) throws(SystemCallError) {
    let fd = try FileDescriptor.open(path, [.directory, .noFollow], relativeTo: directory)
    guard let stream = fdopendir(fd.rawValue) else {
      let error = Errno.current
      fd.close()
      throw SystemCallError("fdopendir", error, path: path)
    }
    self.stream = stream
  }

  /// The descriptor of the open folder, for `…at` calls on its entries.
  package var descriptor: FileDescriptor { FileDescriptor(rawValue: dirfd(stream)) }

  /// The error that ended the listing early, if one did (``next()`` then returned `nil`).
  package private(set) var failure: Errno?

  /// The next entry other than `.` and `..`, or `nil` at the end or on a read error
  /// (see ``failure``).
  package func next() -> Entry? {
    nextRecord { name, inode, type in Entry(name: Array(name), inode: inode, type: type) }
  }

  /// ``next()`` without an array for the name: `body` gets the name's bytes where `readdir`
  /// left them (valid only during the call), the inode number and the type, and its result
  /// is returned; `nil` at the end or on a read error (see ``failure``).
  package func nextRecord<Result>(
    _ body: (UnsafeRawBufferPointer, UInt64, EntryType) -> Result
  ) -> Result? {
    DirectoryStream.countRead()
    errno = 0
    while let pointer = readdir(stream) {
      // The record is `d_reclen` bytes, often fewer than `MemoryLayout<dirent>.size` (the
      // name is as long as it needs to be): the last one in `readdir`'s buffer can end
      // where the buffer does, so the fields are read where they lie and the whole
      // structure is never copied.
      let record = UnsafeRawPointer(pointer)
      let recordLength = Int(record.load(fromByteOffset: Self.recordLengthOffset, as: UInt16.self))
      let nameStart = record + Self.nameOffset
      let nameLength = strnlen(
        nameStart.assumingMemoryBound(to: CChar.self), max(recordLength - Self.nameOffset, 0))
      let name = UnsafeRawBufferPointer(start: nameStart, count: nameLength)
      if DirectoryStream.isDotOrDotDot(name) { continue }
      return body(
        name, UInt64(record.load(fromByteOffset: Self.inodeOffset, as: ino_t.self)),
        EntryType(record.load(fromByteOffset: Self.typeOffset, as: UInt8.self)))
    }
    if errno != 0 { failure = Errno.current }
    return nil
  }

  /// Whether a name is `.` or `..`, which every listing holds and no walk wants.
  private static func isDotOrDotDot(_ name: UnsafeRawBufferPointer) -> Bool {
    let dot = UInt8(ascii: ".")
    return (name.count == 1 && name[0] == dot) || (name.count == 2 && name[0] == dot && name[1] == dot)
  }

  private static let inodeOffset = MemoryLayout<dirent>.offset(of: \dirent.d_ino)!
  private static let recordLengthOffset = MemoryLayout<dirent>.offset(of: \dirent.d_reclen)!
  private static let typeOffset = MemoryLayout<dirent>.offset(of: \dirent.d_type)!
  private static let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!

  /// The names and inode numbers of every entry of an already open folder, read with
  /// `getdents64` straight from `folder` (which is rewound first), without the
  /// `opendir` bookkeeping. For small folders read often.
  package static func entries(of folder: FileDescriptor) throws(SystemCallError) -> [Entry] {
    var entries: [Entry] = []
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 32 * 1024, alignment: 8)
    defer { buffer.deallocate() }
    var rewind: Int32 = 1
    while true {
      countRead()
      let count = try retryingOnInterrupt("getdents64") {
        cdocbm_read_directory(folder.rawValue, buffer.baseAddress, buffer.count, rewind)
      }
      rewind = 0
      if count == 0 { return entries }
      var offset = 0
      while offset + 19 <= count {
        let record = buffer.baseAddress! + offset
        let inode = record.loadUnaligned(as: UInt64.self)
        let length = Int(record.loadUnaligned(fromByteOffset: 16, as: UInt16.self))
        let type = record.load(fromByteOffset: 18, as: UInt8.self)
        let nameStart = record + 19
        let name = Array(
          UnsafeRawBufferPointer(
            start: nameStart, count: strnlen(nameStart.assumingMemoryBound(to: CChar.self), length - 19)))
        offset += max(length, 1)
        if name == [0x2E] || name == [0x2E, 0x2E] { continue }
        entries.append(Entry(name: name, inode: inode, type: EntryType(type)))
      }
    }
  }

  deinit {
    closedir(stream)
  }
}
