import Glibc

/// The private folder a save writes its new version in: beside the document (so the final
/// rename never crosses filesystems), mode 0700, named `.<document>.docbm-save-XXXXXX`, and
/// locked with `flock` for as long as the save runs.
///
/// A save that crashed leaves its folder behind, unlocked. The next save of the same
/// document sweeps such folders: it removes those it can lock, and never a live save's.
final class TemporarySaveFolder {
  static let marker = Array(".docbm-save-".utf8)

  let parent: FileDescriptor
  let name: FilePath
  let descriptor: FileDescriptor
  /// The folder's full path.
  let path: FilePath

  private init(parent: FileDescriptor, name: FilePath, descriptor: FileDescriptor, path: FilePath) {
    self.parent = parent
    self.name = name
    self.descriptor = descriptor
    self.path = path
  }

  /// The prefix of the temporary folders of the document named `documentName`.
  static func prefix(for documentName: [UInt8]) -> [UInt8] {
    // Keep whole names within NAME_MAX (255) with room for the marker and the suffix.
    [UInt8(ascii: ".")] + documentName.prefix(200) + marker
  }

  /// Makes and locks a new folder in `parent` (whose path is `parentPath`).
  static func make(
    in parent: FileDescriptor, parentPath: FilePath, for documentName: [UInt8]
  ) throws(SystemCallError) -> TemporarySaveFolder {
    let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8)
    for _ in 0..<100 {
      let suffix = Sodium.randomBytes(8).map { alphabet[Int($0) % alphabet.count] }
      let name = FilePath(uncheckedBytes: prefix(for: documentName) + suffix)
      do {
        try parent.makeDirectory(name, permissions: 0o700)
      } catch where error.errno == .fileExists {
        continue
      }
      let fd = try FileDescriptor.open(name, [.directory, .noFollow], relativeTo: parent)
      // A sweeper may have locked and removed the folder between mkdirat and flock; then
      // the folder we hold is no longer the one at `name`, and we start again.
      guard (try? fd.lockExclusively(wait: false)) == true,
        let held = try? FileStatus.of(fd),
        let named = try? FileStatus.of(name, relativeTo: parent, followSymlinks: false),
        held.inode == named.inode, held.device == named.device
      else {
        fd.close()
        continue
      }
      return TemporarySaveFolder(parent: parent, name: name, descriptor: fd, path: parentPath.appending(name.bytes))
    }
    throw SystemCallError("mkdirat", .fileExists, path: parentPath)
  }

  /// Removes the folder and what is left in it, then releases the lock.
  func remove() {
    try? parent.removeTree(name)
    descriptor.close()
  }

  /// Removes the leftovers of crashed saves of `documentName` in `parent`: every folder with
  /// its prefix that no live save holds locked. Returns how many were removed.
  @discardableResult
  static func sweep(in parent: FileDescriptor, for documentName: [UInt8]) -> Int {
    let prefix = prefix(for: documentName)
    guard let stream = try? DirectoryStream(FilePath("."), relativeTo: parent) else { return 0 }
    var removed = 0
    while let entry = stream.next() {
      guard entry.name.count == prefix.count + 8, entry.name.starts(with: prefix) else { continue }
      let name = FilePath(uncheckedBytes: entry.name)
      guard let fd = try? FileDescriptor.open(name, [.directory, .noFollow], relativeTo: parent) else {
        continue
      }
      defer { fd.close() }
      guard (try? fd.lockExclusively(wait: false)) == true else { continue }
      if (try? parent.removeTree(name)) != nil { removed += 1 }
    }
    return removed
  }
}
