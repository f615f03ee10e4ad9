import DocbmSystem

/// The facts about a target that go into a new bookmark, read from the filesystem.
package struct TargetSnapshot {
  /// The target's absolute path with every symbolic link resolved.
  package let path: FilePath
  package let kind: TargetKind
  package let identity: TargetIdentity
  package let volume: VolumeHint

  /// Reads the target at `path`.
  ///
  /// A symbolic link is followed: a bookmark refers to the file or folder the link leads
  /// to, not to the link (see docs/design.md).
  ///
  /// With `folders`, the folder's canonical path and mount point are those found out for
  /// earlier targets in the same folder, and the filesystem the one found for an earlier
  /// target on the same device; `path` must then not be a symbolic link (one is refused as
  /// `unsupportedFileType`).
  ///
  /// The inode generation is read only where it can decide the target's identity
  /// (``generationDecides(handle:filesystem:)``).
  ///
  /// - Throws: ``DocbmError`` with `notFound`, `permissionDenied`, or `unsupportedFileType`
  ///   when the target is neither a regular file nor a folder.
  package static func read(_ path: FilePath, folders: SnapshotFolders? = nil) throws(DocbmError)
    -> TargetSnapshot
  {
    let real: FilePath
    if let folders { real = try folders.canonicalPath(of: path) } else { real = try canonicalPath(path) }
    let fd = try mappingSystemErrors(.inspectTarget, path: path) { () throws(SystemCallError) in
      try FileDescriptor.open(real, [.path, .noFollow])
    }
    defer { fd.close() }
    let (status, handle) = try mappingSystemErrors(.inspectTarget, path: path) {
      () throws(SystemCallError) in (try FileStatus.of(fd), try KernelFileHandle.of(fd))
    }
    let kind = try TargetKind(of: status, at: path)
    // A hint: the volume may go without it.
    let readFilesystem = { try? FileSystemIdentity.of(fd) }
    let filesystem: FileSystemIdentity?
    if let folders {
      filesystem = folders.filesystem(on: status.device, reading: readFilesystem)
    } else {
      filesystem = readFilesystem()
    }
    let readsGeneration = generationDecides(handle: handle, filesystem: filesystem)
    let generation = readsGeneration ? inodeGeneration(of: real) : nil
    return TargetSnapshot(
      path: real, kind: kind,
      identity: TargetIdentity(
        fileHandle: handle, inode: status.inode, generation: generation,
        birthTime: status.birthTime, size: status.size,
        modificationTime: status.modificationTime),
      volume: VolumeHint(
        filesystemID: filesystem?.fsid,
        mountPoint: folders.map { $0.mountPoint(of: real, status: status) }
          ?? FileSystemIdentity.mountPoint(of: real, status: status)))
  }

  /// Whether the inode generation is worth recording: only where no file handle names the
  /// inode (a filesystem that gives none, or FUSE, whose handles are node IDs handed out
  /// anew after a remount; or a filesystem that could not be told). Elsewhere the handle
  /// holds the generation with the inode, and ``IdentityMatcher`` compares handles before
  /// it would look at a generation, so reading it would cost an open of the target (and a
  /// watcher's open and close events) for nothing.
  static func generationDecides(handle: KernelFileHandle?, filesystem: FileSystemIdentity?) -> Bool {
    handle == nil || filesystem?.isFUSE != false
  }

  /// The inode generation, read through a short-lived read-only descriptor; `nil` when the
  /// target cannot be opened for reading or the filesystem keeps no generation.
  static func inodeGeneration(of path: FilePath) -> UInt32? {
    // `nil`, as documented: the identity then goes without a generation.
    guard let fd = try? FileDescriptor.open(path, [.readOnly, .noFollow, .nonBlocking]) else {
      return nil
    }
    return fd.closeAfter { $0.inodeGeneration() }
  }

  /// The absolute path of `path` with every symbolic link and `.`/`..` resolved.
  /// The corresponding C function is `realpath`.
  package static func canonicalPath(_ path: FilePath) throws(DocbmError) -> FilePath {
    do {
      return try SymbolicLink.canonicalPath(path)
    } catch {
      throw DocbmError(error, operation: .inspectTarget, path: path)
    }
  }
}
