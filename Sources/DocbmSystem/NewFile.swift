import Synchronization

/// A file made whole before anyone can find it under its name: made without a name
/// (`O_TMPFILE`) or under a temporary one, filled and flushed through its descriptor, then
/// given its name in one step, so that its name never holds a part-written file and a
/// process killed on the way leaves nothing at that name.
///
/// The file is the caller's from the start: mode 0600 whatever the umask, made with
/// `O_CREAT | O_EXCL | O_NOFOLLOW` when it has a temporary name, so that nothing planted
/// there is opened. The temporary name is `.NAME` + a marker of the caller's + `PID-N`
/// (the maker's process ID and a number of its own), and temporary files that the caller
/// owns and whose maker no longer runs are removed when the next one is made in the folder.
///
/// After naming it, the file at the name is compared with the file written (device and
/// inode): in a folder others can write, someone may rename or replace entries at any time.
package final class NewFile {
  /// How the file reaches its name.
  package enum Outcome: Sendable {
    /// The file has its name; its status as written.
    case named(FileStatus)
    /// Something had the name and the file was not to replace it: the file was not named.
    case nameTaken
    /// The file was named, but the name then held another file: someone else replaced or
    /// moved it in between.
    case displaced
  }

  /// The descriptor of the file, open for reading and writing.
  package let descriptor: FileDescriptor
  /// The temporary name, which holds the file when ``hasTemporaryName`` is set.
  package let temporaryName: FilePath
  /// Whether the file is (or was) at ``temporaryName`` rather than unnamed.
  package private(set) var hasTemporaryName: Bool
  private let folder: FileDescriptor
  private let name: FilePath
  private var isNamed = false
  private var isClosed = false

  /// Numbers the temporary names of this process.
  private static let count = Atomic<Int>(0)

  /// Makes the file that is to become `name` in `folder` (which stays the caller's to
  /// close), unnamed unless `needsPath` (the caller opens it by path, as SQLite does) or
  /// the filesystem cannot make an unnamed file. Removes the caller's abandoned temporary
  /// files of `marker` in `folder` first.
  ///
  /// - Throws: ``SystemCallError`` from `openat` (EACCES, EROFS, ENOSPC, EEXIST when
  ///   another user holds the temporary name) or `fchmod`.
  package init(
    _ name: FilePath, in folder: FileDescriptor, marker: [UInt8], needsPath: Bool
  ) throws(SystemCallError) {
    NewFile.removeAbandoned(in: folder, marker: marker)
    let number = NewFile.count.add(1, ordering: .relaxed).newValue
    temporaryName = FilePath(
      uncheckedBytes: [UInt8(ascii: ".")] + name.lastComponent + marker
        + Array("\(ProcessID.current)-\(number)".utf8))
    self.folder = folder
    self.name = name
    var unnamed: FileDescriptor?
    if !needsPath {
      do {
        unnamed = try folder.makeUnnamedFile(permissions: 0o600)
      } catch  where [.notSupported, .isDirectory, .invalidArgument].contains(error.errno) {
        // This filesystem makes no unnamed files: a temporary name instead.
      }
    }
    if let unnamed {
      descriptor = unnamed
      hasTemporaryName = false
    } else {
      descriptor = try NewFile.makeNamed(temporaryName, in: folder)
      hasTemporaryName = true
    }
    do {
      // Exactly 0600, whatever the umask.
      try descriptor.changeMode(0o600)
    } catch {
      discard()
      throw error
    }
  }

  /// Makes the file at the temporary name; an entry left there by an earlier process of
  /// this ID (one that died) is removed first when it is the caller's own regular file.
  private static func makeNamed(_ temporaryName: FilePath, in folder: FileDescriptor) throws(SystemCallError)
    -> FileDescriptor
  {
    let options: FileDescriptor.Options = [.readWrite, .create, .exclusive, .noFollow, .nonBlocking]
    do {
      return try FileDescriptor.open(temporaryName, options, permissions: 0o600, relativeTo: folder)
    } catch  where error.errno == .fileExists {
      // An entry that cannot be looked at keeps the name: EEXIST is then the error.
      guard let status = try? FileStatus.of(temporaryName, relativeTo: folder, followSymlinks: false),
        status.kind == .regular, status.owner == ProcessCredentials.effectiveUser
      else { throw error }
      try folder.removeEntry(temporaryName, isDirectory: false)
      return try FileDescriptor.open(temporaryName, options, permissions: 0o600, relativeTo: folder)
    }
  }

  /// Flushes the file and gives it its name: without replacing anything there unless
  /// `replacing`. Then compares what the name holds with the file, and flushes the folder.
  ///
  /// - Returns: whether the file now has its name (with its status as written), found the
  ///   name taken, or was displaced. Unless it has its name, ``discard()`` empties it.
  /// - Throws: ``SystemCallError`` from `fsync` (EIO, ENOSPC), `linkat` or `renameat2`
  ///   (EACCES, ENOENT when someone moved the temporary name away).
  package func name(replacing: Bool) throws(SystemCallError) -> Outcome {
    try descriptor.sync()
    let written = try FileStatus.of(descriptor)
    do throws(SystemCallError) {
      if !hasTemporaryName && !replacing {
        try folder.link(descriptor, as: name)
      } else {
        if !hasTemporaryName {
          try folder.link(descriptor, as: temporaryName)
          hasTemporaryName = true
        }
        if replacing {
          try folder.rename(temporaryName, to: name, in: folder)
        } else {
          try folder.renameWithoutReplacing(temporaryName, to: name, in: folder)
        }
      }
    } catch  where error.errno == .fileExists {
      return .nameTaken
    }
    // Nothing at the name: someone moved the file away. A name that cannot be looked at
    // is an error of its own, and the file, not known to be there, is emptied.
    let atName: FileStatus
    do {
      atName = try FileStatus.of(name, relativeTo: folder, followSymlinks: false)
    } catch  where error.errno == .noSuchFile {
      return .displaced
    }
    guard atName.device == written.device, atName.inode == written.inode else { return .displaced }
    isNamed = true
    // The file itself is flushed; a folder that cannot flush its entry still holds it.
    try? folder.sync()
    return .named(written)
  }

  /// Ends the making: a file that did not get its name (or was displaced) is cut to no
  /// bytes first, wherever its name went, and its temporary name is removed if it still
  /// holds it; a named file is left as it is. Closes the descriptor. Called again, does
  /// nothing.
  package func discard() {
    guard !isClosed else { return }
    isClosed = true
    defer { descriptor.close() }
    guard !isNamed else { return }
    // What fails here fails after the making has failed already; each step is tried
    // whatever the others did, the contents first.
    try? descriptor.truncate(to: 0)  // best effort, as every step here
    // Removed only while the temporary name still holds this file.
    if hasTemporaryName,
      let entry = try? FileStatus.of(temporaryName, relativeTo: folder, followSymlinks: false),
      let written = try? FileStatus.of(descriptor), entry.device == written.device,
      entry.inode == written.inode
    {
      try? folder.removeEntry(temporaryName, isDirectory: false)  // best effort, as above
    }
  }

  deinit { discard() }

  /// Removes the temporary files of `marker` in `folder` whose maker no longer runs (a
  /// killed process): entries named `.NAME` + `marker` + `PID-N` that are the caller's own
  /// regular files. Another user's entries are left alone.
  package static func removeAbandoned(in folder: FileDescriptor, marker: [UInt8]) {
    // A sweep that cannot list, look at or remove an entry leaves it for the next one:
    // it is the caller's own file of mode 0600, and nothing depends on it.
    guard let entries = try? DirectoryStream.entries(of: folder) else { return }
    for entry in entries where entry.name.first == UInt8(ascii: ".") {
      guard let markerRange = entry.name.firstRange(of: marker) else { continue }
      let rest = entry.name[markerRange.upperBound...]
      let pidDigits = rest.prefix { $0 != UInt8(ascii: "-") }
      guard let pid = Int32(String(decoding: pidDigits, as: UTF8.self)), pidDigits.count < rest.count,
        rest.dropFirst(pidDigits.count + 1).allSatisfy({
          (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
        }),
        !ProcessID.isRunning(pid)
      else { continue }
      let entryName = FilePath(uncheckedBytes: entry.name)
      // Left for the next sweep when it cannot be looked at or removed (see above).
      guard let status = try? FileStatus.of(entryName, relativeTo: folder, followSymlinks: false),
        status.kind == .regular, status.owner == ProcessCredentials.effectiveUser
      else { continue }
      try? folder.removeEntry(entryName, isDirectory: false)  // left for the next sweep
    }
  }
}
