import DocbmSystem
import FoundationEssentials

/// The save in place, for a single file exported through the Documents portal
/// (``ReplaceOptions/PortalFileDocuments/writeInPlace``): the new contents are written over
/// the document's own file (truncated first) and flushed, so that its inode, and with it the
/// key and every other attribute, stays.
///
/// It is **not crash-safe**: a crash or a full disk while writing leaves the document cut
/// short or mixed. The writer of a URL save writes into a private temporary folder first
/// (the portal's own temporaries would be left in the user's folder by a crash), so that a
/// writer that fails leaves the document untouched; only the copy into place can be cut.
struct InPlaceSave {
  let destination: FilePath
  let readOnlyDocument: ReplaceOptions.ReadOnlyDocument

  /// Writes `data` over the document.
  func save(writing data: Data) throws(DocbmError) {
    try checkWritable()
    try overwrite { fd throws(SystemCallError) in try fd.writeAll(data) }
  }

  /// Has `write` make the new version in a private temporary folder, then copies it over
  /// the document.
  func save(_ write: (FilePath) throws -> Void) throws(DocbmError) {
    try checkWritable()
    let folder = try mappingSystemErrors(.save(.prepareTemporary), path: destination) {
      () throws(SystemCallError) in try TemporaryFolder.make(prefix: ".docbm-in-place-")
    }
    defer { folder.remove() }
    let name = destination.lastComponent.isEmpty ? Array("document".utf8) : destination.lastComponent
    let written = folder.path.appending(name)
    do {
      try write(written)
    } catch let error as SystemCallError {
      throw DocbmError(error, operation: .save(.write), path: destination)
    } catch {
      throw DocbmError(
        .writerFailed, path: destination,
        message: "the new version of \(destination) could not be written: \(error)", step: .write)
    }
    let source: FileDescriptor
    do throws(SystemCallError) {
      source = try FileDescriptor.open(written, [.readOnly, .noFollow, .nonBlocking])
    } catch  where error.errno == .noSuchFile {
      throw DocbmError(
        .nothingWritten, path: destination,
        message: "the writer wrote nothing at the path it was given; \(destination) is unchanged",
        step: .openWritten)
    } catch {
      throw DocbmError(error, operation: .save(.openWritten), path: destination)
    }
    defer { source.close() }
    let status = try mappingSystemErrors(.save(.openWritten), path: destination) {
      () throws(SystemCallError) in try FileStatus.of(source)
    }
    guard status.kind == .regular else {
      throw DocbmError(
        .unsupportedFileType, path: destination,
        message:
          "the writer made something other than a regular file, which cannot be written in place over \(destination); it is unchanged",
        step: .openWritten)
    }
    let contents = try mappingSystemErrors(.save(.openWritten), path: destination) {
      () throws(SystemCallError) in try source.readWhole(limit: Int.max)
    }
    try overwrite { fd throws(SystemCallError) in try fd.writeAll(contents) }
  }

  /// Refuses with `readOnlyDocument`, before the writer runs, a document whose permissions
  /// mark it read-only (``WriteProtection``), unless the caller allows it.
  private func checkWritable() throws(DocbmError) {
    guard readOnlyDocument == .refuse else { return }
    let fd = try mappingSystemErrors(.save(.inspectDocument), path: destination) {
      () throws(SystemCallError) in try FileDescriptor.open(destination, [.path])
    }
    defer { fd.close() }
    let status = try mappingSystemErrors(.save(.inspectDocument), path: destination) {
      () throws(SystemCallError) in try FileStatus.of(fd)
    }
    if WriteProtection.isReadOnly(fd, status: status) {
      throw WriteProtection.refusal(destination, status: status)
    }
  }

  /// Opens the document for writing (truncating it), writes, flushes.
  private func overwrite(_ body: (FileDescriptor) throws(SystemCallError) -> Void) throws(DocbmError) {
    let fd = try mappingSystemErrors(.save(.inspectDocument), path: destination) {
      () throws(SystemCallError) in try FileDescriptor.open(destination, [.writeOnly, .nonBlocking])
    }
    defer { fd.close() }
    let status = try mappingSystemErrors(.save(.inspectDocument), path: destination) {
      () throws(SystemCallError) in try FileStatus.of(fd)
    }
    guard status.kind == .regular else {
      throw DocbmError(
        .unsupportedFileType, path: destination,
        message: "\(destination) is not a regular file, so it cannot be saved in place",
        step: .inspectDocument)
    }
    try mappingSystemErrors(.save(.write), path: destination) { () throws(SystemCallError) in
      try fd.truncate()
      try body(fd)
    }
    try mappingSystemErrors(.save(.syncFile), path: destination) { () throws(SystemCallError) in try fd.sync()
    }
  }
}
