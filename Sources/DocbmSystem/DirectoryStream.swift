import CDocbmShims
import Glibc
import Synchronization

/// The entries of one folder, read with `getdents64` from a descriptor into a buffer of
/// the stream's own: the one way docbm lists a folder.
package final class DirectoryStream {
  /// One entry: its name, inode number and type as `getdents64` gives them.
  package struct Entry: Sendable {
    package let name: [UInt8]
    package let inode: UInt64
    /// `d_type`; `.unknown` on filesystems that do not fill it in.
    package let type: EntryType
  }

  /// `getdents64`'s `d_type`.
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

  /// Counts the folder entries read (through ``next()``, ``nextRecord(_:)`` and
  /// ``entries(of:)``) on the current task while it is set; for tests that check what a
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

  /// Counts one entry read on the current task's counter, if any.
  private static func countRead() {
    if countsReads.load(ordering: .relaxed) { readCounter?.add() }
  }

  /// The size of the buffer each stream reads records into (glibc's `readdir` uses the same).
  private static let bufferSize = 32 * 1024

  private let folder: FileDescriptor
  /// The folder's path, when the stream opened it, for its errors.
  private let path: FilePath?
  /// Whether the stream closes ``folder`` when it ends (it opened it).
  private let ownsFolder: Bool
  private let buffer: UnsafeMutableRawBufferPointer
  /// The bytes of records in ``buffer``, and where the next one starts.
  private var filled = 0
  private var offset = 0
  /// Whether the next read starts at the folder's first entry.
  private var rewinds: Bool
  /// Whether the last read found the end.
  private var ended = false

  private init(folder: FileDescriptor, path: FilePath?, ownsFolder: Bool, rewinds: Bool) {
    self.folder = folder
    self.path = path
    self.ownsFolder = ownsFolder
    self.rewinds = rewinds
    buffer = .allocate(byteCount: Self.bufferSize, alignment: MemoryLayout<dirent>.alignment)
  }

  /// Opens the folder `path` relative to `directory`, never following a final symbolic link.
  ///
  /// - Throws: ``SystemCallError`` from `openat` (ENOTDIR when `path` is not a folder,
  ///   ELOOP when it is a symbolic link).
  package convenience init(
    _ path: FilePath, relativeTo directory: FileDescriptor = .currentWorkingDirectory
  ) throws(SystemCallError) {
    let fd = try FileDescriptor.open(path, [.directory, .noFollow], relativeTo: directory)
    self.init(folder: fd, path: path, ownsFolder: true, rewinds: false)
  }

  /// The descriptor of the open folder, for `…at` calls on its entries.
  package var descriptor: FileDescriptor { folder }

  /// The error that ended the listing early, if one did (``next()`` then returned `nil`):
  /// from `lseek` or `getdents64`, with the folder's path when the stream opened it.
  package private(set) var failure: SystemCallError?

  /// The next entry other than `.` and `..`, or `nil` at the end or on a read error
  /// (see ``failure``).
  package func next() -> Entry? {
    nextRecord { name, inode, type in Entry(name: Array(name), inode: inode, type: type) }
  }

  /// ``next()`` without an array for the name: `body` gets the name's bytes where they lie
  /// in the stream's buffer (valid only during the call), the inode number and the type,
  /// and its result is returned; `nil` at the end or on a read error (see ``failure``).
  package func nextRecord<Result>(
    _ body: (UnsafeRawBufferPointer, UInt64, EntryType) -> Result
  ) -> Result? {
    while true {
      if offset >= filled {
        guard !ended, failure == nil else { return nil }
        do throws(SystemCallError) {
          filled = try retryingOnInterrupt("getdents64", path: path) { [buffer, folder, rewinds] in
            cdocbm_read_directory(folder.rawValue, buffer.baseAddress, buffer.count, rewinds ? 1 : 0)
          }
        } catch {
          failure = error
          return nil
        }
        rewinds = false
        offset = 0
        if filled == 0 {
          ended = true
          return nil
        }
      }
      // A record is `d_reclen` bytes, usually fewer than `MemoryLayout<dirent>.size` (the
      // name is as long as it needs to be), so its fields are read where they lie and the
      // whole structure is never copied. `struct dirent` of 64-bit glibc is the kernel's
      // `linux_dirent64`, field for field.
      let record = UnsafeRawPointer(buffer.baseAddress! + offset)
      let recordLength = Int(record.loadUnaligned(fromByteOffset: Self.recordLengthOffset, as: UInt16.self))
      offset += max(recordLength, 1)
      let nameStart = record + Self.nameOffset
      let nameLength = strnlen(
        nameStart.assumingMemoryBound(to: CChar.self), max(recordLength - Self.nameOffset, 0))
      let name = UnsafeRawBufferPointer(start: nameStart, count: nameLength)
      if FilePath.isSelfOrParent(name) { continue }
      DirectoryStream.countRead()
      return body(
        name, record.loadUnaligned(fromByteOffset: Self.inodeOffset, as: UInt64.self),
        EntryType(record.load(fromByteOffset: Self.typeOffset, as: UInt8.self)))
    }
  }

  private static let inodeOffset = MemoryLayout<dirent>.offset(of: \dirent.d_ino)!
  private static let recordLengthOffset = MemoryLayout<dirent>.offset(of: \dirent.d_reclen)!
  private static let typeOffset = MemoryLayout<dirent>.offset(of: \dirent.d_type)!
  private static let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!

  /// The names and inode numbers of every entry of an already open folder, read from its
  /// first entry (the descriptor is rewound) and left open. For small folders read often.
  ///
  /// - Throws: ``SystemCallError`` from `lseek` or `getdents64` (ENOTDIR when `folder` is
  ///   not a folder, EIO).
  package static func entries(of folder: FileDescriptor) throws(SystemCallError) -> [Entry] {
    let stream = DirectoryStream(folder: folder, path: nil, ownsFolder: false, rewinds: true)
    var entries: [Entry] = []
    while let entry = stream.next() { entries.append(entry) }
    if let failure = stream.failure { throw failure }
    return entries
  }

  deinit {
    buffer.deallocate()
    if ownsFolder { folder.close() }
  }
}
