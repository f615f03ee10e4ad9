import Glibc

/// Where a save writes the new version: a fresh name in the document's own folder (so the
/// final rename never crosses filesystems, and no extra folder has to be made and flushed),
/// `.<document>.docbm-save-XXXXXXXX[.<extension>]`.
///
/// Nothing is created at the name: the writer creates the file (or folder), so that a
/// writer that writes nothing is told apart from one that writes an empty document. As soon
/// as the writer returns, the save opens what it wrote and locks it with `flock` until the
/// end. A save that crashed leaves its entry behind, unlocked; the next save of the same
/// document sweeps entries that nobody holds locked and that have not been modified for
/// ``sweepAge`` seconds (which covers a writer still writing, before the lock is taken).
final class TemporaryVersion {
  static let marker = Array(".docbm-save-".utf8)
  static let suffixLength = 8
  /// How long an unlocked leftover must have stayed unmodified before a sweep removes it.
  static let sweepAge: Int64 = 600

  let folder: FileDescriptor
  let name: FilePath
  /// The full path handed to the writer.
  let path: FilePath

  private init(folder: FileDescriptor, name: FilePath, path: FilePath) {
    self.folder = folder
    self.name = name
    self.path = path
  }

  /// The fixed start of the temporary names of the document `documentName`.
  static func prefix(for documentName: [UInt8]) -> [UInt8] {
    // Whole names stay within NAME_MAX (255): 1 + 200 + 12 + 8 + an extension of ≤ 16.
    [UInt8(ascii: ".")] + documentName.prefix(200) + marker
  }

  /// `.json` for `board.json`, so that writers which look at the extension keep working.
  static func extensionSuffix(of documentName: [UInt8]) -> [UInt8] {
    guard let dot = documentName.lastIndex(of: UInt8(ascii: ".")), dot > documentName.startIndex,
      documentName.count - dot <= 16
    else { return [] }
    return Array(documentName[dot...])
  }

  /// Picks a fresh name beside the document (8 random characters).
  static func make(
    in folder: FileDescriptor, folderPath: FilePath, for documentName: [UInt8]
  ) throws(SystemCallError) -> TemporaryVersion {
    // Fail before the writer does its work, not after.
    try folder.checkEntriesWritable()
    let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8)
    // Unpredictable, so that nobody can plant a link at the name in advance; with 2⁴¹
    // choices, a collision with another live save is not a practical concern, and a writer
    // that creates with O_EXCL (as replaceDocument(with:) does) would report it.
    let suffix = Sodium.randomBytes(suffixLength).map { alphabet[Int($0) % alphabet.count] }
    let name = FilePath(
      uncheckedBytes: prefix(for: documentName) + suffix + extensionSuffix(of: documentName))
    return TemporaryVersion(folder: folder, name: name, path: folderPath.appending(name.bytes))
  }

  /// Removes whatever is at the temporary name.
  func discard() {
    try? folder.removeTree(name)
  }

  /// Removes the leftovers of crashed saves of `documentName` in `folder`. Returns how many
  /// were removed.
  @discardableResult
  static func sweep(in folder: FileDescriptor, for documentName: [UInt8], now: Timestamp = .now) -> Int {
    let prefix = prefix(for: documentName)
    let length = prefix.count + suffixLength + extensionSuffix(of: documentName).count
    guard let entries = try? DirectoryStream.entries(of: folder) else { return 0 }
    var removed = 0
    for entry in entries {
      guard entry.name.count == length, entry.name.starts(with: prefix) else { continue }
      let name = FilePath(uncheckedBytes: entry.name)
      guard let status = try? FileStatus.of(name, relativeTo: folder, followSymlinks: false),
        status.kind == .regular || status.kind == .directory,
        now.seconds - status.modificationTime.seconds >= sweepAge,
        let fd = try? FileDescriptor.open(name, [.readOnly, .noFollow, .nonBlocking], relativeTo: folder)
      else { continue }
      defer { fd.close() }
      guard (try? fd.lockExclusively(wait: false)) == true else { continue }
      if (try? folder.removeTree(name)) != nil { removed += 1 }
    }
    return removed
  }
}
