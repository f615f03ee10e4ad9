import Synchronization

/// Writes an export of the escrow (its keys) into a folder that others may be able to
/// write: the bytes reach the disk only through a descriptor of a file docbm made, mode
/// 0600, and the export is reported written only when its name holds that very file.
///
/// The file is made without a name (`O_TMPFILE`), written, flushed and then named with
/// `linkat`, which never replaces anything: until then nobody can open, rename or replace
/// it, and a process killed before that leaves nothing behind. Replacing an existing file
/// names it first under a temporary name (`.NAME.docbm-export-PID-N`) and renames that into
/// place. Where the filesystem cannot make an unnamed file, the file is made under the
/// temporary name with `O_CREAT | O_EXCL | O_NOFOLLOW` and written through that descriptor.
/// Temporary names left by exporters that died (their process no longer runs) and that
/// belong to the caller are removed before each export.
///
/// Another user who can write the folder may rename or replace entries in it at any time
/// (when it is not sticky): what is at the name after the rename is compared with the file
/// written (device and inode). When they differ the export fails, and the written file is
/// cut to no bytes first, so that its keys are nowhere, wherever its name went.
enum EscrowExportFile {
  /// The marker in the temporary names.
  static let marker = Array(".docbm-export-".utf8)

  /// Writes `bytes` as the file `file` and returns its status as written (from `fstat`).
  ///
  /// - Throws: ``DocbmError`` `documentExists` when `file` exists and `replacing` is false
  ///   (or something appeared there meanwhile); `escrowUntrusted` when, after the rename,
  ///   `file` is not the file written (someone replaced or moved it); `noSpace`, `ioError`,
  ///   `permissionDenied`, `readOnlyFilesystem` when the file cannot be written. Nothing
  ///   holding the bytes is left behind on failure.
  static func write(_ bytes: [UInt8], to file: FilePath, replacing: Bool) throws(DocbmError) -> FileStatus {
    let folderPath = file.removingLastComponent
    let name = FilePath(uncheckedBytes: file.lastComponent)
    let folder = try mappingSystemErrors(.exportEscrow, path: file) { () throws(SystemCallError) in
      try FileDescriptor.open(folderPath, [.readOnly, .directory])
    }
    defer { folder.close() }
    removeAbandonedTemporaries(in: folder)
    let number = exportCount.add(1, ordering: .relaxed).newValue
    let temporaryName = FilePath(
      uncheckedBytes: Array(".".utf8) + file.lastComponent + marker
        + Array("\(ProcessID.current)-\(number)".utf8))

    // The file, unnamed where the filesystem allows.
    var named = false
    let fd: FileDescriptor
    do {
      fd = try folder.makeUnnamedFile(permissions: 0o600)
    } catch  where [.notSupported, .isDirectory, .invalidArgument].contains(error.errno) {
      fd = try mappingSystemErrors(.exportEscrow, path: file) { () throws(SystemCallError) in
        try FileDescriptor.open(
          temporaryName, [.readWrite, .create, .exclusive, .noFollow, .nonBlocking], permissions: 0o600,
          relativeTo: folder)
      }
      named = true
    } catch {
      throw DocbmError(error, operation: .exportEscrow, path: file)
    }
    defer { fd.close() }
    var done = false
    defer {
      if !done {
        // The export has failed already; this clean-up is all that is left to do, and each
        // step is tried whatever the others did. The keys leave the file first, since
        // someone else may have renamed it where its name cannot be found.
        try? fd.truncate(to: 0)
        if named, let entry = try? FileStatus.of(temporaryName, relativeTo: folder, followSymlinks: false),
          let written = try? FileStatus.of(fd), entry.device == written.device, entry.inode == written.inode
        {
          try? folder.removeEntry(temporaryName, isDirectory: false)
        }
      }
    }
    let written = try mappingSystemErrors(.exportEscrow, path: file) { () throws(SystemCallError) in
      // Exactly 0600, whatever the umask.
      try fd.changeMode(0o600)
      try fd.writeAll(bytes)
      try fd.sync()
      return try FileStatus.of(fd)
    }
    do throws(SystemCallError) {
      if !named && !replacing {
        try folder.link(fd, as: name)
      } else {
        if !named {
          try folder.link(fd, as: temporaryName)
          named = true
        }
        if replacing {
          try folder.rename(temporaryName, to: name, in: folder)
        } else {
          try folder.renameWithoutReplacing(temporaryName, to: name, in: folder)
        }
      }
    } catch  where error.errno == .fileExists {
      throw DocbmError(
        .documentExists, path: file,
        message:
          "\(file) appeared while the export was written and was left as it is; nothing was exported: give another name, or ask for it to be replaced (docbm escrow export --force)"
      )
    } catch {
      throw DocbmError(error, operation: .exportEscrow, path: file)
    }
    guard let atName = try? FileStatus.of(name, relativeTo: folder, followSymlinks: false),
      atName.device == written.device, atName.inode == written.inode
    else {
      throw DocbmError(
        .escrowUntrusted, path: file,
        message:
          "\(file) was replaced or moved by someone else while the export was put there (\(folderPath) can be changed by others); the keys written were erased and nothing was exported: export into a folder only you can write"
      )
    }
    done = true
    // The file itself is flushed; a folder that cannot flush its entry still holds it,
    // and the export is reported as written.
    try? folder.sync()
    return written
  }

  /// Numbers the temporary names of this process's exports.
  private static let exportCount = Atomic<Int>(0)

  /// Removes the temporary files of the caller's exports whose process no longer runs (a
  /// killed export), in `folder`: entries named `.NAME.docbm-export-PID-N`, regular files
  /// owned by the caller. Another user's entries are left alone.
  static func removeAbandonedTemporaries(in folder: FileDescriptor) {
    // A sweep that cannot list, look at or remove an entry leaves it for the next export:
    // it is the caller's own file of mode 0600, and the export does not depend on it.
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
      guard let status = try? FileStatus.of(entryName, relativeTo: folder, followSymlinks: false),
        status.kind == .regular, status.owner == ProcessCredentials.effectiveUser
      else { continue }
      try? folder.removeEntry(entryName, isDirectory: false)
    }
  }
}
