/// One key kept in the escrow, and the documents it was made for. The key itself stays
/// inside the library: an entry shows only its fingerprint.
public struct EscrowEntry: Hashable, Sendable {
  /// A document of the key: a file docbm itself made the key's document (``Origin``), as it
  /// was when last confirmed.
  public struct Document: Hashable, Sendable, Codable {
    /// How a file became a key's document. Names are frozen: they appear in JSON output and
    /// in the escrow's database. More may be added: `switch` over them with a `default`.
    public enum Origin: String, Hashable, Sendable, Codable {
      /// A bookmark was made on it (the key made, or found on it, then).
      case bookmarked
      /// It was saved with `replaceDocument` or `saveCopy`, or made by ``NewDocument``.
      case saved
      /// Repair put the key back on it.
      case repaired
      /// It is an editor's save at a recorded path that repair accepted as the document's
      /// successor (docs/security.md, "Which file is a key's document").
      case successor
      /// The recorded file was seen at another path (moved or renamed); the record followed it.
      case moved
      /// Imported from an escrow of docbm 0.1.0, which kept no birth time nor mode.
      case imported
      /// Taken from an export of another escrow (``KeyEscrow/importKeys(from:)``): that
      /// escrow's word, which anyone could have written, not this one's. Its key goes on a
      /// file only when the file's own bookmarks name it and verify with it, and it never
      /// makes a check call a document without such bookmarks `keyLost`.
      case transferred
    }

    /// The document's real path when last confirmed.
    public let path: FilePath
    /// Its inode number.
    public let inode: UInt64
    /// Its file handle, when the filesystem gives one.
    public let fileHandle: KernelFileHandle?
    /// Its filesystem's `f_fsid`.
    public let filesystemID: UInt64?
    /// When the file was made (`statx`'s birth time), when the filesystem says.
    public let birthTime: Timestamp?
    /// Its permission bits, when known (not for imported records).
    public let permissions: UInt32?
    /// How it became the key's document.
    public let origin: Origin
    /// When it was first recorded.
    public let recorded: Timestamp
    /// When docbm last found it to be the key's document.
    public let confirmed: Timestamp

    public init(
      path: FilePath, inode: UInt64, fileHandle: KernelFileHandle?, filesystemID: UInt64?,
      birthTime: Timestamp? = nil, permissions: UInt32? = nil, origin: Origin, recorded: Timestamp,
      confirmed: Timestamp? = nil
    ) {
      self.path = path
      self.inode = inode
      self.fileHandle = fileHandle
      self.filesystemID = filesystemID
      self.birthTime = birthTime
      self.permissions = permissions
      self.origin = origin
      self.recorded = recorded
      self.confirmed = confirmed ?? recorded
    }

    /// This record, now about `file` (the same document at a new path, or with a new
    /// identity after a save), confirmed now, with `origin`.
    func following(_ file: Document, as origin: Origin) -> Document {
      Document(
        path: file.path, inode: file.inode, fileHandle: file.fileHandle, filesystemID: file.filesystemID,
        birthTime: file.birthTime, permissions: file.permissions, origin: origin, recorded: recorded,
        confirmed: file.confirmed)
    }

    /// This record as an import from another escrow's export keeps it: with the origin
    /// `transferred`.
    func transferred() -> Document {
      Document(
        path: path, inode: inode, fileHandle: fileHandle, filesystemID: filesystemID, birthTime: birthTime,
        permissions: permissions, origin: .transferred, recorded: recorded, confirmed: confirmed)
    }

    /// Whether `other` records the same file at the same path (only its times and how it was
    /// recorded may differ).
    func describesSameDocument(as other: Document) -> Bool {
      path == other.path && hasSameIdentity(as: other)
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
  /// The documents the key was made on, the most recently confirmed last.
  public let documents: [Document]
  /// The escrow database the entry was read from.
  public let file: FilePath
  let key: DocumentKey
}

/// A part of the escrow that could not be read or trusted: reported, never fatal to a check.
public struct EscrowProblem: Error, Hashable, Sendable, Codable, CustomStringConvertible {
  /// The file (the database, the folder, or a 0.1.0 entry file).
  public let file: FilePath
  /// What is wrong with it.
  public let reason: String

  private enum CodingKeys: String, CodingKey {
    case file, reason
  }

  /// `file: reason`; the reason alone when it is a sentence that names the file already
  /// (an error's message).
  public var description: String { reason.contains(file.description) ? reason : "\(file): \(reason)" }
}
