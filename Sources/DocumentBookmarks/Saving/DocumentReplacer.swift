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
  private struct Original {
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
  private func replace(_ write: (TemporaryVersion) throws -> Void) throws(DocbmError) {
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
    OwnSaves.note(written.status)
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

  /// A first save's refusal of anything at the document's path: a file, a folder, a
  /// symbolic link (even one that leads nowhere).
  private func checkPathIsFree(
    _ name: [UInt8], in folder: FileDescriptor, existing: Original?
  ) throws(DocbmError) {
    let entry = try? FileStatus.of(FilePath(uncheckedBytes: name), relativeTo: folder, followSymlinks: false)
    guard existing == nil, entry == nil else {
      existing?.descriptor.close()
      throw documentExists()
    }
  }

  /// The error of a first save that found something at the document's path.
  private func documentExists() -> DocbmError {
    DocbmError(
      .documentExists, path: destination,
      message:
        "\(destination) was created by someone else before this first save; it was left as it is (with its own key, if it has one): save under another name, or open that document",
      step: .inspectDocument)
  }

  /// Puts a new document's key on its first version, which the writer just made: with
  /// `XATTR_CREATE`, so that a key already there (a writer that copied a document) is
  /// never replaced.
  private func putNewKey(_ key: DocumentKey, on written: Original) throws(DocbmError) {
    do throws(SystemCallError) {
      try SaveFaults.check(.copyAttributes, call: "fsetxattr", destination: destination)
      try ExtendedAttributes.set(
        KeyAttribute.name, to: KeyAttribute.encode(key), on: .descriptor(written.descriptor),
        mode: .createOnly)
    } catch  where error.errno == .fileExists {
      throw DocbmError(
        .keyMismatch, path: destination,
        message:
          "the writer made a first version of \(destination) that carries a key of its own; it was not replaced, and \(destination) was not created",
        step: .copyAttributes)
    } catch {
      throw DocbmError(error, operation: .save(.copyAttributes), path: destination)
    }
  }

  /// Refusals that can be decided before the writer runs, so that it does no work for a
  /// save that cannot succeed, or that would change what a save must keep.
  private func checkBeforeWriting(
    existing: Original?, source: Original?, folder: FileDescriptor, folderPath: FilePath
  ) throws(DocbmError) {
    if writesFile, (existing ?? source)?.status.kind == .directory {
      throw DocbmError(
        .unsupportedFileType, path: destination,
        message:
          "\(destination) is a folder document, and data saves a file: a folder document is saved with replaceDocument(_:) writing a folder at the URL it is given; \(destination) is unchanged",
        step: .inspectDocument)
    }
    if let existing {
      try checkFlags(of: existing.descriptor, path: existing.path, isFolder: false)
    }
    try checkFlags(of: folder, path: folderPath, isFolder: true)
    if copiesOwner, options.ownerChange == .refuse, let source {
      try checkOwner(source.status, folder: folder)
    }
  }

  /// Refuses with `immutable` when the document or its folder is immutable or append-only:
  /// the rename over the document (or out of the folder) would fail with EPERM, even as root.
  private func checkFlags(of file: FileDescriptor, path: FilePath, isFolder: Bool) throws(DocbmError) {
    guard let flags = (try? file.inodeFlags()) ?? nil else { return }
    let what: String
    let letter: String
    if flags.contains(.immutable) {
      (what, letter) = ("immutable (chattr +i)", "i")
    } else if flags.contains(.appendOnly) {
      (what, letter) = ("append-only (chattr +a)", "a")
    } else {
      return
    }
    let consequence =
      isFolder
      ? (letter == "i"
        ? "no new version can be made in it"
        : "a new version could be made in it but never renamed into place")
      : "it cannot be replaced, not even by root"
    let subject = isFolder ? "the folder \(path) of \(destination)" : "\(path)"
    throw DocbmError(
      .immutable, path: isFolder ? path : destination,
      message:
        "\(subject) is \(what): \(consequence). To save, clear the flag with 'chattr -\(letter) \(path)' (as root), or save elsewhere; \(destination) is unchanged",
      step: isFolder ? .prepareTemporary : .inspectDocument)
  }

  /// Refuses with `ownerChanged` when the new version could not be given the document's
  /// owner and group: root (CAP_CHOWN) can give any; anyone else keeps the owner only of a
  /// document they own, and the group only when they belong to it (or the folder's set-group-ID
  /// bit gives the new version that group anyway).
  private func checkOwner(_ document: FileStatus, folder: FileDescriptor) throws(DocbmError) {
    let user = ProcessCredentials.effectiveUser
    let keepsOwner = document.owner == user
    // The common case first, without asking the kernel more: one's own document, in one's
    // own group.
    if keepsOwner && document.group == ProcessCredentials.effectiveGroup { return }
    guard !ProcessCredentials.canChangeAnyOwner else { return }
    let groups = ProcessCredentials.groups
    var newGroup = ProcessCredentials.effectiveGroup
    // A set-group-ID folder gives new files its own group.
    if let folderStatus = try? FileStatus.of(folder), folderStatus.permissions & 0o2000 != 0 {
      newGroup = folderStatus.group
    }
    let keepsGroup = groups.contains(document.group) || newGroup == document.group
    guard !keepsOwner || !keepsGroup else { return }
    let newOwner = keepsOwner ? document.owner : user
    let finalGroup = keepsGroup ? document.group : newGroup
    throw DocbmError(
      .ownerChanged, path: destination,
      message:
        "\(destination) belongs to user \(document.owner), group \(document.group); saved by user \(user), the new version would belong to user \(newOwner), group \(finalGroup). Allow the change (ReplaceOptions.ownerChange = .allow, docbm save --allow-owner-change) or save a copy elsewhere; \(destination) is unchanged",
      step: .inspectDocument)
  }

  /// The folder and name to replace: the path itself, or a symbolic link's final target.
  /// The folder's own path may contain links: the kernel resolves them when it is opened.
  private func locate(followingLink: Bool = false) throws(DocbmError) -> (folder: FilePath, name: [UInt8]) {
    let real = followingLink ? try TargetSnapshot.canonicalPath(destination) : destination.absolute
    let name = real.lastComponent
    guard !name.isEmpty, name != [UInt8(ascii: ".")], name != [UInt8(ascii: "."), UInt8(ascii: ".")] else {
      throw DocbmError(
        .notFound, path: destination, message: "\(destination) does not name a document",
        step: .inspectDocument)
    }
    return (real.removingLastComponent, name)
  }

  /// Opens the document's folder. Without access-time updates where permitted: a sweep
  /// may read the folder, and an access-time update would be one more change for the
  /// flushes to write.
  private func openFolder(_ path: FilePath) throws(DocbmError) -> FileDescriptor {
    try step(.inspectDocument, path) { () throws(SystemCallError) in
      do throws(SystemCallError) {
        return try FileDescriptor.open(path, [.directory, .noAccessTime])
      } catch  where error.errno == .notPermitted {
        return try FileDescriptor.open(path, [.directory])
      }
    }
  }

  /// The document, opened without following a link; `nil` when nothing is there (a first
  /// save) or a symbolic link is (ELOOP), which the caller follows.
  private func openExisting(
    _ name: [UInt8], in folder: FileDescriptor, folderPath: FilePath
  ) throws(DocbmError) -> Original? {
    let path = folderPath.appending(name)
    do {
      let fd = try FileDescriptor.open(
        FilePath(uncheckedBytes: name), [.readOnly, .noFollow, .nonBlocking], relativeTo: folder)
      let status = try FileStatus.of(fd)
      guard status.kind == .regular || status.kind == .directory else {
        fd.close()
        throw DocbmError(
          .unsupportedFileType, path: path,
          message: "\(path) is neither a regular file nor a folder, so it cannot be saved over",
          step: .inspectDocument)
      }
      return Original(descriptor: fd, path: path, status: status)
    } catch let error as SystemCallError
      where error.errno == .noSuchFile || error.errno == .tooManySymbolicLinks
    {
      return nil
    } catch let error as SystemCallError {
      throw DocbmError(error, operation: .save(.inspectDocument), path: path)
    } catch let error as DocbmError {
      throw error
    } catch {
      throw DocbmError(.systemFailure, path: path, message: "\(error)", step: .inspectDocument)
    }
  }

  private func openSource(_ path: FilePath) throws(DocbmError) -> Original {
    try step(.inspectDocument, path) { () throws(SystemCallError) in
      let fd = try FileDescriptor.open(path, [.readOnly, .nonBlocking])
      do throws(SystemCallError) {
        return Original(descriptor: fd, path: path, status: try FileStatus.of(fd))
      } catch {
        fd.close()
        throw error
      }
    }
  }

  private func openWritten(
    _ temporary: TemporaryVersion, expecting kind: FileStatus.Kind?
  ) throws(DocbmError) -> Original {
    let path = temporary.path
    if temporary.claimIsVersion {
      // docbm wrote it into the claim, a regular file, locked since it was created.
      let status = try step(.openWritten, path) { () throws(SystemCallError) in
        try FileStatus.of(temporary.claim)
      }
      return Original(descriptor: temporary.claim, path: path, status: status)
    }
    let fd: FileDescriptor
    do {
      fd = try FileDescriptor.open(
        temporary.name, [.readOnly, .noFollow, .nonBlocking], relativeTo: temporary.folder)
    } catch {
      guard error.errno == .noSuchFile || error.errno == .tooManySymbolicLinks else {
        throw DocbmError(error, operation: .save(.openWritten), path: path)
      }
      throw DocbmError(
        .nothingWritten, path: destination,
        message:
          "the writer returned without writing a file at the URL it was given; \(destination) is unchanged",
        step: .openWritten)
    }
    let status = try step(.openWritten, path) { () throws(SystemCallError) in
      // The claim, locked since before the writer ran, keeps other saves' sweeps away.
      do throws(SystemCallError) {
        return try FileStatus.of(fd)
      } catch {
        fd.close()
        throw error
      }
    }
    let expected = kind ?? status.kind
    guard status.kind == expected, status.kind == .regular || status.kind == .directory else {
      fd.close()
      throw DocbmError(
        .nothingWritten, path: destination,
        message:
          "the writer made a \(status.kind) where the document is a \(expected); \(destination) is unchanged",
        step: .openWritten)
    }
    return Original(descriptor: fd, path: path, status: status)
  }

  /// Owner, then attributes, then mode, then ACLs: chown clears capabilities, attributes
  /// need write permission, and an ACL write also sets the mode bits.
  /// - Returns: whether the new version was given a key.
  private func copyMetadata(from source: Original, to written: Original) throws(DocbmError) -> Bool {
    let new = written.descriptor
    if copiesOwner,
      source.status.owner != written.status.owner || source.status.group != written.status.group
    {
      try step(.changeOwner, destination) { () throws(SystemCallError) in
        try SaveFaults.check(.changeOwner, call: "fchown", destination: destination)
      }
      do throws(SystemCallError) {
        try new.changeOwner(user: source.status.owner, group: source.status.group)
      } catch  where error.errno == .notPermitted && options.ownerChange == .allow {
        // Allowed to change: keep at least the group when the caller belongs to it (as sed does).
        try? new.changeOwner(user: UInt32.max, group: source.status.group)
      } catch  where error.errno == .notPermitted {
        // checkOwner said it could be kept, and the kernel disagrees (a user namespace
        // without the IDs mapped, a filesystem with its own rules).
        throw DocbmError(
          .ownerChanged, path: destination,
          message:
            "\(destination) belongs to \(source.status.owner):\(source.status.group), and the new version could not be given that owner and group; \(destination) is unchanged",
          systemCall: error.call, errno: error.errno.rawValue, step: .changeOwner)
      } catch {
        throw DocbmError(error, operation: .save(.changeOwner), path: destination)
      }
    }

    // Owner write permission, so that attributes can be set whatever mode the writer chose.
    let writable: UInt32 = written.status.kind == .directory ? 0o700 : 0o600
    if written.status.permissions & writable != writable {
      try step(.copyAttributes, destination) { () throws(SystemCallError) in
        try new.changeMode(written.status.permissions | writable)
      }
    }
    let copied = try copyAttributes(from: source, to: written)

    try step(.changeMode, destination) { () throws(SystemCallError) in
      try SaveFaults.check(.changeMode, call: "fchmod", destination: destination)
      try new.changeMode(source.status.permissions)
    }

    try step(.copyACL, destination) { () throws(SystemCallError) in
      try SaveFaults.check(.copyACL, call: "fsetxattr", destination: destination)
      // Only the ACLs the source listed: no read of an absent one.
      var names: [String] = []
      if copied.hasAccessACL { names.append("system.posix_acl_access") }
      if copied.hasDefaultACL, source.status.kind == .directory && written.status.kind == .directory {
        names.append("system.posix_acl_default")
      }
      for name in names {
        guard let value = try optionalAttribute(name, of: source.descriptor) else { continue }
        try ExtendedAttributes.set(name, to: value, on: .descriptor(new))
      }
    }
    return copied.key != nil
  }

  /// Copies the attributes in one pass that also carries (or leaves out) the key and says
  /// which ACLs the source has; the key's value comes back from the copy, so it is read
  /// once. Only when the copy failed somewhere is the key checked on its own.
  ///
  /// - Returns: the key as given to the new version, and which ACLs the source lists.
  private func copyAttributes(
    from source: Original, to written: Original
  ) throws(DocbmError) -> (key: [UInt8]?, hasAccessACL: Bool, hasDefaultACL: Bool) {
    do {
      try SaveFaults.check(.copyAttributes, call: "attr_copy_fd", destination: destination)
    } catch {
      throw DocbmError(error, operation: .save(.copyAttributes), path: destination)
    }
    let outcome = AttributeCopy.copy(
      from: source.descriptor, to: written.descriptor, key: KeyAttribute.name, carryingKey: key == .carry)
    var keyValue = outcome.key
    if let failure = outcome.failure {
      // The storage failed (EIO, a FUSE server gone): not an attribute the destination
      // cannot hold, so nothing to confirm; try again later.
      if let errno = failure.errno, errno.isStorageFailure {
        throw DocbmError(
          .ioError, path: destination,
          message:
            "the extended attributes of \(source.path) could not be copied (\(failure.messages)): \(errno); \(destination) is unchanged",
          systemCall: "fsetxattr", errno: errno.rawValue, step: .copyAttributes)
      }
      if options.requireEveryAttribute {
        throw DocbmError(
          .attributeCopyFailed, path: destination,
          message:
            "the extended attributes of \(source.path) could not all be copied (\(failure.messages)); \(destination) is unchanged",
          step: .copyAttributes)
      }
      // The key is carried whatever else failed.
      if key == .carry, keyValue == nil {
        keyValue = try step(.copyAttributes, destination) { () throws(SystemCallError) in
          guard let sourceKey = try optionalAttribute(KeyAttribute.name, of: source.descriptor) else {
            return nil
          }
          try ExtendedAttributes.set(KeyAttribute.name, to: sourceKey, on: .descriptor(written.descriptor))
          return sourceKey
        }
      }
    }
    if key == .strip {
      // A copy for someone else: a key the writer itself put on the new version goes too.
      try step(.copyAttributes, destination) { () throws(SystemCallError) in
        if try optionalAttribute(KeyAttribute.name, of: written.descriptor) != nil {
          try ExtendedAttributes.remove(KeyAttribute.name, from: .descriptor(written.descriptor))
        }
      }
    }
    return (keyValue, outcome.hasAccessACL, outcome.hasDefaultACL)
  }

  /// fsync of the new version (every file and folder in it, for a folder document). A
  /// failure is final: nothing is retried and nothing is renamed.
  private func sync(_ written: Original) throws(DocbmError) {
    try step(.syncFile, destination) { () throws(SystemCallError) in
      try SaveFaults.check(.syncFile, call: "fsync", destination: destination)
      if written.status.kind == .directory {
        try DocumentReplacer.syncTree(written.descriptor)
      }
      try written.descriptor.sync()
    }
  }

  private static func syncTree(_ folder: FileDescriptor) throws(SystemCallError) {
    let stream = try DirectoryStream(FilePath("."), relativeTo: folder)
    while let entry = stream.next() {
      let name = FilePath(uncheckedBytes: entry.name)
      let status = try FileStatus.of(name, relativeTo: stream.descriptor, followSymlinks: false)
      guard status.kind == .regular || status.kind == .directory else { continue }
      let child = try FileDescriptor.open(
        name, [.readOnly, .noFollow, .nonBlocking], relativeTo: stream.descriptor)
      try child.closeAfter { child throws(SystemCallError) in
        if status.kind == .directory { try syncTree(child) }
        try child.sync()
      }
    }
  }

  /// - Returns: whether it put a key on the new version.
  private func carryCurrentKey(
    _ name: [UInt8], in folder: FileDescriptor, was existing: Original, into written: Original
  ) throws(DocbmError) -> Bool {
    guard
      let now = try? FileStatus.of(FilePath(uncheckedBytes: name), relativeTo: folder, followSymlinks: false),
      now.inode != existing.status.inode || now.device != existing.status.device
    else { return false }
    return try step(.copyAttributes, destination) { () throws(SystemCallError) in
      let current = try FileDescriptor.open(
        FilePath(uncheckedBytes: name), [.readOnly, .noFollow, .nonBlocking], relativeTo: folder)
      return try current.closeAfter { current throws(SystemCallError) in
        guard let key = try optionalAttribute(KeyAttribute.name, of: current) else { return false }
        try ExtendedAttributes.set(KeyAttribute.name, to: key, on: .descriptor(written.descriptor))
        try written.descriptor.sync()
        return true
      }
    }
  }

  /// After the rename: a key that appeared on the old version after its attributes were
  /// copied (a first bookmark made during the save) goes on the new version, unless that
  /// has a key already. Called only when the save gave the new version no key; one that
  /// the key's creator put there meanwhile is kept (`XATTR_CREATE`). The key's creator checks afterwards that the document's path still
  /// leads to the file it put the key on, so between the two no key is lost.
  private func carryLateKey(from existing: Original, into written: Original) throws(DocbmError) {
    try step(.copyAttributes, destination) { () throws(SystemCallError) in
      guard let late = try optionalAttribute(KeyAttribute.name, of: existing.descriptor) else { return }
      do throws(SystemCallError) {
        try ExtendedAttributes.set(
          KeyAttribute.name, to: late, on: .descriptor(written.descriptor), mode: .createOnly)
        try written.descriptor.sync()
      } catch  where error.errno == .fileExists {
        return  // the key's creator put it there first
      }
    }
  }

  /// An attribute's value; `nil` when it is absent or the filesystem has no attributes at
  /// all (a document on ramfs has nothing to keep, and is still saved safely).
  private func optionalAttribute(_ name: String, of file: FileDescriptor) throws(SystemCallError) -> [UInt8]?
  {
    do {
      return try ExtendedAttributes.value(name, of: .descriptor(file), sizeHint: 64)
    } catch  where error.errno == .notSupported {
      return nil
    }
  }

  /// Runs System-layer work of one save step, naming the step in its error.
  /// Swaps the new version of a folder document with the document, atomically. A
  /// filesystem that cannot (FUSE filesystems without `RENAME_EXCHANGE`, such as bindfs and
  /// sshfs: EINVAL; overlayfs for a folder of a lower layer: EXDEV; kernels without
  /// renameat2: ENOSYS) gets `unsupportedFilesystem`: renaming the document away and the new
  /// version in would leave a moment with no document at its path, which a crash could make
  /// permanent.
  private func exchangeFolders(_ temporary: FilePath, _ document: FilePath, in folder: FileDescriptor)
    throws(DocbmError)
  {
    do {
      try folder.exchange(temporary, with: document, in: folder)
    } catch  where [.invalidArgument, .notImplemented, .crossDevice].contains(error.errno) {
      let why =
        error.errno == .crossDevice
        ? "it is an overlayfs folder from a lower layer, which overlayfs cannot swap"
        : "its filesystem cannot swap two folders atomically (no RENAME_EXCHANGE)"
      throw DocbmError(
        .unsupportedFilesystem, path: destination,
        message:
          "the folder document \(destination) cannot be saved in place: \(why); it is unchanged. Save it on another filesystem, or as a copy",
        systemCall: "renameat2", errno: error.errno.rawValue, step: .swap)
    } catch {
      throw DocbmError(error, operation: .save(.swap), path: destination)
    }
  }

  private func step<Value>(
    _ step: SaveStep, _ path: FilePath, _ body: () throws(SystemCallError) -> Value
  ) throws(DocbmError) -> Value {
    do {
      return try body()
    } catch {
      throw DocbmError(error, operation: .save(step), path: path)
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
