import DocbmSystem

/// Decides whether a file is the very object a bookmark recorded, never by name.
///
/// The test, cheapest first: the kind and inode number must match; then equal birth times
/// when both are known (statx gives it with the inode, so the unmoved case costs no extra
/// call), and on Btrfs equal file handles too (a snapshot's copy has the same inode and
/// birth time); else equal file handles from `name_to_handle_at` (on FUSE, whose handles
/// hold node IDs the server hands out anew, unequal ones do not count); else equal inode
/// generations.
/// With none of those recorded, an equal inode of the right kind is accepted.
struct IdentityMatcher {
  let kind: TargetKind
  let identity: TargetIdentity

  /// Whether the bookmark recorded an identity at all: bookmarks made through the Documents
  /// portal record inode 0 (not recorded), since the portal's inode numbers are its own.
  var hasIdentity: Bool { identity.inode != 0 }

  func kindMatches(_ status: FileStatus) -> Bool {
    switch (kind, status.kind) {
    case (.file, .regular), (.folder, .directory): true
    default: false
    }
  }

  /// Whether `status`, read from `path` (relative to `directory`), is the recorded object.
  func isSameObject(
    _ status: FileStatus, at path: FilePath,
    relativeTo directory: FileDescriptor = .currentWorkingDirectory
  ) -> Bool {
    guard kindMatches(status), status.inode == identity.inode else { return false }
    if let recorded = identity.birthTime, let current = status.birthTime {
      guard recorded == current else { return isCopiedUp(recorded, current, at: path, relativeTo: directory) }
      // A Btrfs snapshot's copy has the same inode and birth time: compare the handles,
      // which name the subvolume (one more system call, on Btrfs only).
      guard let handle = identity.fileHandle, handle.namesSubvolume else { return true }
      // Unreadable: the inode and birth time decide, as on filesystems without handles.
      let currentHandle = try? KernelFileHandle.of(path, relativeTo: directory, followSymlinks: false)
      return currentHandle.map { $0 == handle } ?? true
    }
    // A handle, generation or filesystem that cannot be read is evidence missing: the
    // checks that can be made decide, as on filesystems without them.
    if let recorded = identity.fileHandle,
      let current = try? KernelFileHandle.of(path, relativeTo: directory, followSymlinks: false)
    {
      if recorded == current { return true }
      // On FUSE unequal handles say nothing (new node IDs after a remount): fall back to
      // the generation, else the inode, as on filesystems without handles.
      guard filesystem(of: path, relativeTo: directory, \.isFUSE) else { return false }
    }
    if let recorded = identity.generation {
      // As above.
      let fd = try? FileDescriptor.open(path, [.readOnly, .noFollow, .nonBlocking], relativeTo: directory)
      if let current = fd?.closeAfter({ $0.inodeGeneration() }) {
        return recorded == current
      }
    }
    return true
  }

  /// Whether a file with the recorded inode but a later birth time is the recorded one,
  /// copied up by overlayfs (its first write in the container made an upper-layer copy:
  /// overlayfs keeps the inode number, the birth time is the copy's). Costs an `fstatfs`,
  /// only when the birth times differ. On overlayfs a copied-up file is known by its inode
  /// number alone, as on filesystems without birth times, handles or generations.
  private func isCopiedUp(
    _ recorded: Timestamp, _ current: Timestamp, at path: FilePath, relativeTo directory: FileDescriptor
  ) -> Bool {
    guard current > recorded else { return false }
    return filesystem(of: path, relativeTo: directory, \.isOverlay)
  }

  /// Whether the filesystem of `path` is of a kind (one `fstatfs`); `false` when it cannot
  /// be told.
  private func filesystem(
    of path: FilePath, relativeTo directory: FileDescriptor, _ kind: (FileSystemIdentity) -> Bool
  ) -> Bool {
    // `false` when it cannot be told, as documented.
    guard let fd = try? FileDescriptor.open(path, [.path, .noFollow], relativeTo: directory) else {
      return false
    }
    return fd.closeAfter { (try? FileSystemIdentity.of($0)).map(kind) ?? false }  // as above
  }
}
