/// The escrow's records of documents, looked up by path and by identity (filesystem and
/// file handle, or inode where there is no handle: inode numbers alone are reused), in the
/// tables of the escrow's catalog (``EscrowCatalogFile``), where they lie.
struct EscrowIndex: Sendable {
  private let file: EscrowCatalogFile?

  /// The index of a catalog's entries; where two keys claim one document, the one recorded
  /// for it last wins (a document that lost a key and got a new one is recorded with the
  /// new one later).
  init(_ catalog: EscrowCatalog?) {
    file = catalog?.file
  }

  /// Whether the escrow holds `fingerprint` but records no document at `path` with it: a
  /// document seen carrying an escrowed key where the escrow does not know it (moved, or a
  /// copy that kept its key), which the escrow should record.
  func isUnrecordedSighting(of fingerprint: KeyFingerprint, at path: FilePath) -> Bool {
    // The path first: a document found where the escrow recorded it with this key (the
    // common case) needs no search of the keys.
    guard let file, path.absolute.bytes.withUnsafeBytes({ file.fingerprint(ofPath: $0) }) != fingerprint
    else { return false }
    return file.holds(fingerprint)
  }

  /// Whether the escrow records no document.
  var isEmpty: Bool { file?.isEmpty ?? true }

  /// The key recorded for the document at `path`, open as `fd`: by its path, else by its
  /// identity (which also finds it after a move, or through a link).
  ///
  /// Only a document whose inode number some record names is looked up by identity (two
  /// more system calls); `inode`, when the caller has it from `readdir`, spares the `statx`.
  func fingerprint(for path: FilePath, descriptor fd: FileDescriptor, inode: UInt64? = nil) -> KeyFingerprint?
  {
    guard let file, !file.isEmpty else { return nil }
    if let found = path.absolute.bytes.withUnsafeBytes({ file.fingerprint(ofPath: $0) }) { return found }
    guard let inode = inode ?? (try? FileStatus.of(fd))?.inode, file.recordsInode(inode),
      let filesystem = try? FileSystemIdentity.of(fd)
    else { return nil }
    let handle = try? KernelFileHandle.of(fd)
    return file.fingerprint(filesystem: filesystem.fsid, handle: handle ?? nil, inode: inode)
  }
}
