import DocbmSystem

/// How the safe save finds and opens what it works on, and what it refuses before it
/// writes anything: a path taken meanwhile, an immutable or append-only document, a
/// document owned by another user in a folder it cannot give away files in.
extension DocumentReplacer {
  /// A first save's refusal of anything at the document's path: a file, a folder, a
  /// symbolic link (even one that leads nowhere).
  func checkPathIsFree(
    _ name: [UInt8], in folder: FileDescriptor, existing: Original?
  ) throws(DocbmError) {
    // Only "no such entry" leaves the path free; a path that cannot be looked at is not.
    var entry: FileStatus?
    do throws(SystemCallError) {
      entry = try FileStatus.of(FilePath(uncheckedBytes: name), relativeTo: folder, followSymlinks: false)
    } catch  where error.errno == .noSuchFile {
      entry = nil
    } catch {
      existing?.descriptor.close()
      throw DocbmError(error, operation: .save(.inspectDocument), path: destination)
    }
    guard existing == nil, entry == nil else {
      existing?.descriptor.close()
      throw documentExists()
    }
  }

  /// The error of a first save that found something at the document's path.
  func documentExists() -> DocbmError {
    DocbmError(
      .documentExists, path: destination,
      message:
        "\(destination) was created by someone else before this first save; it was left as it is (with its own key, if it has one): save under another name, or open that document",
      step: .inspectDocument)
  }

  /// Puts a new document's key on its first version, which the writer just made: with
  /// `XATTR_CREATE`, so that a key already there (a writer that copied a document) is
  /// never replaced.
  func putNewKey(_ key: DocumentKey, on written: Original) throws(DocbmError) {
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
  func checkBeforeWriting(
    existing: Original?, source: Original?, folder: FileDescriptor, folderPath: FilePath
  ) throws(DocbmError) {
    if writesFile, (existing ?? source)?.status.kind == .directory {
      throw DocbmError(
        .unsupportedFileType, path: destination,
        message:
          "\(destination) is a folder document, and data saves a file: a folder document is saved by a writer that makes the new folder; \(destination) is unchanged",
        step: .inspectDocument)
    }
    if let existing {
      try checkFlags(of: existing.descriptor, path: existing.path, isFolder: false)
    }
    try checkFlags(of: folder, path: folderPath, isFolder: true)
    if let existing, options.readOnlyDocument == .refuse,
      WriteProtection.isReadOnly(existing.descriptor, status: existing.status)
    {
      throw WriteProtection.refusal(destination, status: existing.status)
    }
    if copiesOwner, options.ownerChange == .refuse, let source {
      try checkOwner(source.status, folder: folder)
    }
  }

  /// Refuses with `immutable` when the document or its folder is immutable or append-only:
  /// the rename over the document (or out of the folder) would fail with EPERM, even as root.
  func checkFlags(of file: FileDescriptor, path: FilePath, isFolder: Bool) throws(DocbmError) {
    // Flags that cannot be read leave the refusal to the rename, which fails with EPERM
    // as they would have said.
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
  func checkOwner(_ document: FileStatus, folder: FileDescriptor) throws(DocbmError) {
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
        "\(destination) belongs to user \(document.owner), group \(document.group); saved by user \(user), the new version would belong to user \(newOwner), group \(finalGroup). Save again allowing the change of owner, or save a copy elsewhere; \(destination) is unchanged",
      step: .inspectDocument)
  }

  /// The folder and name to replace: the path itself, or a symbolic link's final target.
  /// The folder's own path may contain links: the kernel resolves them when it is opened.
  func locate(followingLink: Bool = false) throws(DocbmError) -> (folder: FilePath, name: [UInt8]) {
    let real = followingLink ? try TargetSnapshot.canonicalPath(destination) : destination.absolute
    guard let name = real.lastEntryName else {
      throw DocbmError(
        .notFound, path: destination, message: "\(destination) does not name a document",
        step: .inspectDocument)
    }
    return (real.removingLastComponent, name)
  }

  /// Opens the document's folder. Without access-time updates where permitted: a sweep
  /// may read the folder, and an access-time update would be one more change for the
  /// flushes to write.
  func openFolder(_ path: FilePath) throws(DocbmError) -> FileDescriptor {
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
  func openExisting(
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

  func openSource(_ path: FilePath) throws(DocbmError) -> Original {
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

  func openWritten(
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
}
