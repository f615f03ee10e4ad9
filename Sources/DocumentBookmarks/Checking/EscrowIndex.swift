/// The escrow's records by document path and by identity (filesystem and file handle, or
/// inode where there is no handle: inode numbers alone are reused), for quick lookups.
struct EscrowIndex: Sendable {
  private var byPath: [FilePath: Latest] = [:]
  private var byIdentity: [Identity: Latest] = [:]

  /// The key of a document's latest record, and when that was made.
  private struct Latest {
    let fingerprint: KeyFingerprint
    let recorded: Timestamp
  }
  /// Every inode number recorded: a document whose inode is not here has no record by
  /// identity.
  private var inodes: Set<UInt64> = []

  /// A document's identity: its filesystem, and its file handle or, without one, its inode.
  struct Identity: Hashable {
    let filesystem: UInt64
    let handleType: Int32?
    let handle: [UInt8]
    let inode: UInt64?

    func hash(into hasher: inout Hasher) {
      hasher.combine(filesystem)
      hasher.combine(handleType)
      handle.withUnsafeBytes { hasher.combine(bytes: $0) }
      hasher.combine(inode)
    }
  }

  /// The index of the catalog's entries; where two keys claim one document, the one
  /// recorded for it last wins (a document that lost a key and got a new one is recorded
  /// with the new one later).
  init(_ records: [EscrowCatalog.Record]) {
    // The latest record of each path and identity, kept without sorting every document by
    // time: a later record replaces an earlier one, and of two at the same time the one
    // found later in the catalog wins (as a stable sort by time would have it).
    let total = records.reduce(0) { count, record in
      guard case .entry(_, _, let recorded) = record.outcome else { return count }
      return count + recorded.count
    }
    byPath.reserveCapacity(total)
    byIdentity.reserveCapacity(total)
    inodes.reserveCapacity(total)
    fingerprints.reserveCapacity(records.count)
    for record in records {
      guard case .entry(let fingerprint, _, let recorded) = record.outcome else { continue }
      fingerprints.insert(fingerprint)
      for document in recorded {
        let latest = Latest(fingerprint: fingerprint, recorded: document.recorded)
        if byPath[document.path].map({ $0.recorded <= document.recorded }) ?? true {
          byPath[document.path] = latest
        }
        let identity = EscrowIndex.identity(document.filesystemID, document.fileHandle, document.inode)
        if byIdentity[identity].map({ $0.recorded <= document.recorded }) ?? true {
          byIdentity[identity] = latest
        }
        inodes.insert(document.inode)
      }
    }
  }

  /// Every key the escrow holds.
  private(set) var fingerprints: Set<KeyFingerprint> = []

  /// Whether the escrow holds `fingerprint` but records no document at `path` with it: a
  /// document seen carrying an escrowed key where the escrow does not know it (moved, or a
  /// copy that kept its key), which the escrow should record.
  func isUnrecordedSighting(of fingerprint: KeyFingerprint, at path: FilePath) -> Bool {
    !fingerprints.isEmpty && fingerprints.contains(fingerprint)
      && byPath[path.absolute]?.fingerprint != fingerprint
  }

  static func identity(_ filesystem: UInt64?, _ handle: KernelFileHandle?, _ inode: UInt64) -> Identity {
    if let handle {
      return Identity(filesystem: filesystem ?? 0, handleType: handle.type, handle: handle.bytes, inode: nil)
    }
    return Identity(filesystem: filesystem ?? 0, handleType: nil, handle: [], inode: inode)
  }

  var isEmpty: Bool { byPath.isEmpty }

  /// The key recorded for the document at `path`, open as `fd`: by its path, else by its
  /// identity (which also finds it after a move, or through a link).
  ///
  /// Only a document whose inode number some record names is looked up by identity (two
  /// more system calls); `inode`, when the caller has it from `readdir`, spares the `statx`.
  func fingerprint(for path: FilePath, descriptor fd: FileDescriptor, inode: UInt64? = nil) -> KeyFingerprint?
  {
    guard !isEmpty else { return nil }
    if let latest = byPath[path.absolute] { return latest.fingerprint }
    guard let inode = inode ?? (try? FileStatus.of(fd))?.inode, inodes.contains(inode),
      let filesystem = try? FileSystemIdentity.of(fd)
    else { return nil }
    let handle = try? KernelFileHandle.of(fd)
    return byIdentity[EscrowIndex.identity(filesystem.fsid, handle ?? nil, inode)]?.fingerprint
  }
}
