import DocbmSystem
import FoundationEssentials

/// How the safe save gives the new version the document's owner, attributes (the key among
/// them), mode and ACLs, flushes it, and carries a key that another save put on the
/// document meanwhile.
extension DocumentReplacer {
  /// Owner, then attributes, then mode, then ACLs: chown clears capabilities, attributes
  /// need write permission, and an ACL write also sets the mode bits.
  /// - Returns: whether the new version was given a key.
  func copyMetadata(from source: Original, to written: Original) throws(DocbmError) -> Bool {
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
        // Allowed to change: keep at least the group when the caller belongs to it (as sed
        // does); best effort, since the owner may change anyway.
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
  func copyAttributes(
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
  func sync(_ written: Original) throws(DocbmError) {
    try step(.syncFile, destination) { () throws(SystemCallError) in
      try SaveFaults.check(.syncFile, call: "fsync", destination: destination)
      if written.status.kind == .directory {
        try DocumentReplacer.syncTree(written.descriptor)
      }
      try written.descriptor.sync()
    }
  }

  static func syncTree(_ folder: FileDescriptor) throws(SystemCallError) {
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
  func carryCurrentKey(
    _ name: [UInt8], in folder: FileDescriptor, was existing: Original, into written: Original
  ) throws(DocbmError) -> Bool {
    // Removed meanwhile: no key there to carry. Not looked at: the save fails, rather than
    // risk dropping a key another save put there.
    let now = try step(.copyAttributes, destination) { () throws(SystemCallError) -> FileStatus? in
      do throws(SystemCallError) {
        return try FileStatus.of(FilePath(uncheckedBytes: name), relativeTo: folder, followSymlinks: false)
      } catch  where error.errno == .noSuchFile {
        return nil
      }
    }
    guard let now, now.inode != existing.status.inode || now.device != existing.status.device else {
      return false
    }
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
  func carryLateKey(from existing: Original, into written: Original) throws(DocbmError) {
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
  func optionalAttribute(_ name: String, of file: FileDescriptor) throws(SystemCallError) -> [UInt8]? {
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
  func exchangeFolders(_ temporary: FilePath, _ document: FilePath, in folder: FileDescriptor)
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

  func step<Value>(
    _ step: SaveStep, _ path: FilePath, _ body: () throws(SystemCallError) -> Value
  ) throws(DocbmError) -> Value {
    do {
      return try body()
    } catch {
      throw DocbmError(error, operation: .save(step), path: path)
    }
  }
}
