import DocbmSystem
import FoundationEssentials

/// The safe save: a new version written at a fresh hidden name beside the document,
/// given the document's owner, attributes (the key among them), mode and ACLs, flushed, and
/// renamed over the document, whose folder is then flushed too.
///
/// Every failure before the rename leaves the document byte for byte as it was and removes
/// the temporary entry. The order of the steps, and why, is in docs/design.md ("Saving").
struct DocumentReplacer {
  /// The path to replace, as the caller gave it (a symbolic link is followed).
  let destination: FilePath
  /// Where the metadata comes from: the destination itself, or another document (Save As).
  let metadataSource: FilePath?
  /// Whether the owner is copied (not for copies: a copy belongs to whoever makes it).
  let copiesOwner: Bool
  let key: CopyKey
  let options: ReplaceOptions
  /// Whether the writer makes a file (a `Data` save), so that a folder document is refused
  /// before anything is written.
  var writesFile = false
  /// For a first save (``NewDocument``): the key the document is created with. The save
  /// then refuses anything at the path (`documentExists`), puts the key on the new version
  /// with `XATTR_CREATE`, and renames it into place only while nothing is there
  /// (`RENAME_NOREPLACE`), so that it never replaces a file, nor a key, made meanwhile.
  var newKey: DocumentKey? = nil
  /// Runs just before the new version is renamed into place, with its temporary path (a
  /// new document's key is escrowed then); a failure stops the save, the path untouched.
  var beforeSwap: ((FilePath) throws(DocbmError) -> Void)? = nil
  /// Asked just before the rename: a save cancelled by then stops there, untouched.
  var cancellation: SaveCancellation? = nil
  /// Whether the new version and its folder are flushed (`fsync`) before and after the
  /// rename. Only a copy that may be lost in a crash (a store's last good copy, rewritten
  /// with every save) goes without: it is still whole or absent, never half written.
  var flushes = true

  /// The document as it is before the save.
  struct Original {
    let descriptor: FileDescriptor
    let path: FilePath
    let status: FileStatus
  }

  /// Saves with the caller's writer, handed the path where it creates the new version.
  func replace(_ write: (FilePath) throws -> Void) throws(DocbmError) {
    try replace { (temporary: TemporaryVersion) in try write(temporary.path) }
  }

  /// Saves `data` (with ``writesFile``): written straight into the new version's file,
  /// created and locked already (mode 0600 while it is written), with no close and
  /// re-open between writing and copying the metadata.
  func replace(writing data: Data) throws(DocbmError) {
    precondition(writesFile)
    try replace { (temporary: TemporaryVersion) throws(SystemCallError) in try temporary.claim.writeAll(data)
    }
  }

  /// Saves, and when the save fails and could not remove its temporary entry, says in the
  /// error which entry is left, why, and whether it still holds anything.
  func replace(_ write: (TemporaryVersion) throws -> Void) throws(DocbmError) {
    let left = LeftoverNote()
    do {
      try replace(write, noting: left)
    } catch {
      guard let leftover = left.leftover else { throw error }
      throw error.leaving(leftover)
    }
  }

  /// Where the save notes what its failure left behind, read once the save has returned.
  private final class LeftoverNote {
    var leftover: TemporaryVersion.Leftover?
  }

  private func replace(_ write: (TemporaryVersion) throws -> Void, noting left: LeftoverNote)
    throws(DocbmError)
  {
    // A single-file export of the Documents portal refuses attributes: a new version would
    // lose the key. Refused before anything is written (the save in place is InPlaceSave).
    if let portal = PortalDocument.of(destination), portal.refusesAttributes {
      throw PortalDocument.refusesAttributes(portal, path: destination, saving: true).duringSave(
        .prepareTemporary)
    }
    var (folderPath, name) = try locate()
    var folder = try openFolder(folderPath)
    var existing: Original?
    do throws(DocbmError) {
      existing = try openExisting(name, in: folder, folderPath: folderPath)
      if newKey != nil {
        try checkPathIsFree(name, in: folder, existing: existing)
      }
      // Nothing opened there: a link is followed; an entry that cannot be looked at is
      // taken for none, and making the new version there reports why.
      if existing == nil,
        (try? FileStatus.of(FilePath(uncheckedBytes: name), relativeTo: folder, followSymlinks: false))?.kind
          == .symbolicLink
      {
        // A symbolic link: the link stays, the file it leads to is replaced.
        let linkFolder = folder
        (folderPath, name) = try locate(followingLink: true)
        folder = try openFolder(folderPath)
        linkFolder.close()
        existing = try openExisting(name, in: folder, folderPath: folderPath)
      }
    } catch {
      folder.close()
      throw error.duringSave(.inspectDocument)
    }
    defer { folder.close() }
    let source: Original?
    if let metadataSource {
      do throws(DocbmError) {
        source = try openSource(metadataSource)
      } catch {
        existing?.descriptor.close()
        throw error
      }
    } else {
      source = existing
    }
    // The old version's descriptors are closed as soon as its metadata is copied, as the
    // minimal sequence does, so the old inode is freed by the rename, not after the flush.
    // When the key is carried, the document's own descriptor stays open until just after
    // the rename: a key created on the old version after its attributes were copied (the
    // first bookmark, made while this save runs) is read from it then and carried too.
    let watchesLateKey = existing != nil && metadataSource == nil && key == .carry
    var originalsOpen = true
    func closeOriginals(exceptWatched: Bool = false) {
      guard originalsOpen else { return }
      if exceptWatched && watchesLateKey { return }
      originalsOpen = false
      existing?.descriptor.close()
      if metadataSource != nil { source?.descriptor.close() }
    }
    defer { closeOriginals() }
    if let existing, existing.status.linkCount > 1, existing.status.kind == .regular,
      options.hardLinks == .refuse
    {
      throw DocbmError(
        .hardLinked, path: existing.path,
        message:
          "\(existing.path) has \(existing.status.linkCount) hard links; replacing it would leave the other names with the old version",
        step: .inspectDocument)
    }
    try checkBeforeWriting(existing: existing, source: source, folder: folder, folderPath: folderPath)

    let kind = existing?.status.kind ?? source?.status.kind
    let temporary = try step(.prepareTemporary, folderPath) { () throws(SystemCallError) in
      try SaveFaults.check(.prepareTemporary, call: "openat", destination: destination)
      return try TemporaryVersion.claim(
        in: folder, folderPath: folderPath, for: name, writesItself: writesFile)
    }
    // Until the swap, the temporary entry is the new version: discarded on failure. After
    // swapping a folder it holds the old version, discarded too; a file is simply renamed.
    var renamedIntoPlace = false
    defer {
      if renamedIntoPlace {
        temporary.release()
      } else if SaveFaults.leavesTemporary(destination) {
        SaveFaults.noteLeftTemporary(temporary.path, destination)
        if !temporary.claimIsVersion {
          SaveFaults.noteLeftTemporary(folderPath.appending(temporary.claimName.bytes), destination)
        }
        temporary.close()
      } else {
        left.leftover = temporary.discard()
      }
    }

    do {
      try write(temporary)
    } catch let error as SystemCallError {
      throw DocbmError(error, operation: .save(.write), path: destination)
    } catch let error as CocoaError where error.code == .fileWriteOutOfSpace {
      throw DocbmError(
        .noSpace, path: destination,
        message: "no room for the new version of \(destination); it is unchanged", step: .write)
    } catch {
      throw DocbmError(
        .writerFailed, path: destination,
        message: "the new version of \(destination) could not be written: \(error)", step: .write)
    }

    do {
      try SaveFaults.check(.write, call: "write", destination: destination)
    } catch {
      throw DocbmError(error, operation: .save(.write), path: destination)
    }
    let written = try openWritten(temporary, expecting: kind)
    defer { if !temporary.claimIsVersion { written.descriptor.close() } }
    // Whether the new version carries a key, as far as this save knows: it does when the
    // key was copied, so that the late key need not be looked for.
    var carriesKey = false
    if let source {
      carriesKey = try copyMetadata(from: source, to: written)
    } else {
      let base: UInt32 = written.status.kind == .directory ? 0o777 : 0o666
      try step(.changeMode, destination) { () throws(SystemCallError) in
        try written.descriptor.changeMode(base & ~FileModeCreationMask.current)
      }
    }
    if let newKey {
      try putNewKey(newKey, on: written)
      carriesKey = true
    }
    closeOriginals(exceptWatched: true)
    if flushes { try sync(written) }

    // Another save may have replaced the document while this one ran. Its version carried
    // the key too; make sure this one carries the key the document has now.
    if let existing, metadataSource == nil, key == .carry {
      if try carryCurrentKey(name, in: folder, was: existing, into: written) { carriesKey = true }
    }

    try beforeSwap?(temporary.path)
    if let cancellation, cancellation.isCancelled {
      cancellation.noteStoppedBeforeSwap()
      throw DocbmError(
        .systemFailure, path: destination,
        message:
          "the save of \(destination) was cancelled before its new version was put in place; it is unchanged",
        step: .swap)
    }

    let documentName = FilePath(uncheckedBytes: name)
    // Noted before the rename, so that a watcher of this process that reads the rename
    // knows the new file as the app's own save.
    OwnSaves.note(written.status, closesAfterRename: temporary.claimIsVersion)
    if newKey != nil {
      do throws(SystemCallError) {
        try SaveFaults.check(.swap, call: "renameat2", destination: destination)
        try folder.renameWithoutReplacing(temporary.name, to: documentName, in: folder)
        renamedIntoPlace = true
      } catch  where error.errno == .fileExists {
        throw documentExists()
      } catch {
        throw DocbmError(error, operation: .save(.swap), path: destination)
      }
    } else {
      try step(.swap, destination) { () throws(SystemCallError) in
        try SaveFaults.check(.swap, call: "renameat", destination: destination)
        if existing?.status.kind != .directory {
          try folder.rename(temporary.name, to: documentName, in: folder)
          renamedIntoPlace = true
        }
      }
      if existing?.status.kind == .directory {
        try exchangeFolders(temporary.name, documentName, in: folder)
      }
    }
    if watchesLateKey, let existing {
      if !carriesKey { try carryLateKey(from: existing, into: written) }
      closeOriginals()
    }
    guard flushes else { return }
    do {
      try SaveFaults.check(.syncFolder, call: "fsync", destination: destination)
      try folder.sync()
    } catch {
      var failure = DocbmError(error, operation: .save(.syncFolder), path: destination)
      failure = DocbmError(
        failure.code, path: destination,
        message:
          "the new version of \(destination) is in place, but flushing its folder failed, so it may not survive a crash",
        recommendation: .retryLater, systemCall: failure.systemCall, errno: failure.errno, step: .syncFolder)
      throw failure
    }
  }
}

extension DocbmError {
  /// This save failure, with a sentence on the temporary entry it could not remove.
  func leaving(_ leftover: TemporaryVersion.Leftover) -> DocbmError {
    let why = "\(leftover.failure.call): \(leftover.failure.errno)"
    let state =
      leftover.disarmed
      ? "it holds neither the new contents nor the key, and the next save here removes it"
      : "it may still hold the new contents and the document's key: remove it once the filesystem works again"
    return DocbmError(
      code, path: path,
      message: "\(message). The save's temporary \(leftover.path) could not be removed (\(why)); \(state)",
      recommendation: recommendation, systemCall: systemCall, errno: errno, lastKnownPath: lastKnownPath,
      step: step)
  }
}
