import DocbmSystem

/// Writes an export of the escrow (its keys) into a folder that others may be able to
/// write, as a ``NewFile``: the bytes reach the disk only through a descriptor of a file
/// docbm made, mode 0600, and the export is reported written only when its name holds that
/// very file.
///
/// The file is made without a name (`O_TMPFILE`) where the filesystem allows, so that
/// until it is named nobody can open, rename or replace it, and a process killed before
/// that leaves nothing behind; elsewhere, and to replace an existing file, it has the
/// temporary name `.NAME.docbm-export-PID-N` first. Temporary names left by exporters
/// that died and that belong to the caller are removed before each export.
///
/// Another user who can write the folder may rename or replace entries in it at any time
/// (when it is not sticky): when the name does not hold the file written after the rename,
/// the export fails, and the written file is cut to no bytes first, so that its keys are
/// nowhere, wherever its name went.
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
    let folder = try mappingSystemErrors(.exportEscrow, path: file) { () throws(SystemCallError) in
      try FileDescriptor.open(folderPath, [.readOnly, .directory])
    }
    defer { folder.close() }
    let outcome = try mappingSystemErrors(.exportEscrow, path: file) { () throws(SystemCallError) in
      let newFile = try NewFile(
        FilePath(uncheckedBytes: file.lastComponent), in: folder, marker: marker, needsPath: false)
      // Empties the file unless it has its name.
      defer { newFile.discard() }
      try newFile.descriptor.writeAll(bytes)
      return try newFile.name(replacing: replacing)
    }
    switch outcome {
    case .named(let written):
      return written
    case .nameTaken:
      throw DocbmError(
        .documentExists, path: file,
        message:
          "\(file) appeared while the export was written and was left as it is; nothing was exported: give another name, or ask for it to be replaced (docbm escrow export --force)"
      )
    case .displaced:
      throw DocbmError(
        .escrowUntrusted, path: file,
        message:
          "\(file) was replaced or moved by someone else while the export was put there (\(folderPath) can be changed by others); the keys written were erased and nothing was exported: export into a folder only you can write"
      )
    }
  }
}
