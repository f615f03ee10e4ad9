/// One key kept in the escrow, and the documents it was made for. The key itself stays
/// inside the library: an entry shows only its fingerprint.
public struct EscrowEntry: Hashable, Sendable {
  /// A document the key was made on (or seen on), as it was then.
  public struct Document: Hashable, Sendable, Codable {
    /// The document's path at the time.
    public let path: FilePath
    /// Its inode number at the time.
    public let inode: UInt64
    /// Its file handle, when the filesystem gives one.
    public let fileHandle: KernelFileHandle?
    /// Its filesystem's `f_fsid`.
    public let filesystemID: UInt64?
    /// When it was recorded.
    public let recorded: Timestamp

    /// Whether `other` records the same file at the same path (only its time may differ).
    func describesSameDocument(as other: Document) -> Bool {
      path == other.path && inode == other.inode && fileHandle == other.fileHandle
        && filesystemID == other.filesystemID
    }

    /// Whether `other`, a file as it is now, is the file this record names: the same
    /// filesystem and file handle or, where the filesystem gives no handles, inode.
    func hasSameIdentity(as other: Document) -> Bool {
      guard filesystemID == other.filesystemID else { return false }
      if let fileHandle, let otherHandle = other.fileHandle { return fileHandle == otherHandle }
      return fileHandle == nil && other.fileHandle == nil && inode == other.inode
    }
  }

  /// The key's fingerprint.
  public let fingerprint: KeyFingerprint
  /// When the key was first escrowed.
  public let created: Timestamp
  /// The documents the key was made on.
  public let documents: [Document]
  /// The escrow file the entry was read from.
  public let file: FilePath
  let key: DocumentKey
}

/// An escrow file that could not be read: reported, never fatal.
public struct EscrowProblem: Error, Hashable, Sendable, Codable, CustomStringConvertible {
  /// The file.
  public let file: FilePath
  /// What is wrong with it.
  public let reason: String
  /// Whether the file was refused because someone else could have written it (not the
  /// user's, writable by others, a link, not a regular file), rather than found damaged:
  /// a writer must not replace such a file.
  var isUntrusted = false

  private enum CodingKeys: String, CodingKey {
    case file, reason
  }

  public var description: String { "\(file): \(reason)" }
}
