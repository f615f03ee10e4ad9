import CDocbmShims
import Glibc

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

  /// The next entry other than `.` and `..`, or `nil` at the end (or on a read error).
  package func next() -> Entry? {
    while let pointer = readdir(stream) {
      let entry = pointer.pointee
      let name = withUnsafeBytes(of: entry.d_name) { raw -> [UInt8] in
        let bytes = raw.bindMemory(to: UInt8.self)
        let length = bytes.firstIndex(of: 0) ?? bytes.count
        return Array(bytes[..<length])
      }
      if name == [0x2E] || name == [0x2E, 0x2E] { continue }
      let type: EntryType =
        switch Int32(entry.d_type) {
        case Int32(DT_REG): .regular
        case Int32(DT_DIR): .directory
        case Int32(DT_LNK): .symbolicLink
        case Int32(DT_UNKNOWN): .unknown
        default: .other
        }
      return Entry(name: name, inode: UInt64(entry.d_ino), type: type)
    }
    return nil
  }

  deinit {
    closedir(stream)
  }
}
