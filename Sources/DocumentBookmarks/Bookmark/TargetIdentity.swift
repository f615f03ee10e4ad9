/// Who the target was when the bookmark was made: the facts that tell the same file from
/// another one at the same path, and find it again after a rename or a move.
public struct TargetIdentity: Hashable, Sendable, Codable {
  /// The handle from `name_to_handle_at(2)`, when the filesystem gives one.
  public let fileHandle: KernelFileHandle?
  /// The inode number. Inode numbers are reused, so it is never used alone.
  public let inode: UInt64
  /// The inode generation (`FS_IOC_GETVERSION`), where the filesystem keeps one and gives
  /// no file handle that names the inode (FUSE, or no handle at all); elsewhere the handle
  /// holds it, and it is not read.
  public let generation: UInt32?
  /// The creation time, where the filesystem records one.
  public let birthTime: Timestamp?
  /// The size in bytes when the bookmark was made.
  public let size: UInt64
  /// The modification time when the bookmark was made.
  public let modificationTime: Timestamp

  public init(
    fileHandle: KernelFileHandle?, inode: UInt64, generation: UInt32?, birthTime: Timestamp?,
    size: UInt64, modificationTime: Timestamp
  ) {
    self.fileHandle = fileHandle
    self.inode = inode
    self.generation = generation
    self.birthTime = birthTime
    self.size = size
    self.modificationTime = modificationTime
  }
}

/// Where the target's filesystem was mounted: hints for telling "not mounted" from "gone".
public struct VolumeHint: Hashable, Sendable, Codable {
  /// `statfs(2)`'s `f_fsid` (derived from the UUID on ext4 and btrfs; from the device
  /// number on some others, so a hint only).
  public let filesystemID: UInt64?
  /// The mount point of the target's filesystem.
  public let mountPoint: FilePath?

  public init(filesystemID: UInt64?, mountPoint: FilePath?) {
    self.filesystemID = filesystemID
    self.mountPoint = mountPoint
  }
}

extension FilePath: Codable {
  /// Encodes as text when the bytes are UTF-8, and as `{"bytes": base64}` otherwise.
  public func encode(to encoder: any Encoder) throws {
    if let string {
      var container = encoder.singleValueContainer()
      try container.encode(string)
    } else {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(Base64URL.encode(bytes), forKey: .bytes)
    }
  }

  public init(from decoder: any Decoder) throws {
    // Not a string: the object form is tried, and its error stands.
    if let container = try? decoder.singleValueContainer(), let text = try? container.decode(String.self) {
      self.init(text)
      return
    }
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let encoded = try container.decode(String.self, forKey: .bytes)
    guard let bytes = Base64URL.decode(Array(encoded.utf8)), let path = FilePath(bytes: bytes) else {
      throw DecodingError.dataCorruptedError(forKey: .bytes, in: container, debugDescription: "not a path")
    }
    self = path
  }

  private enum CodingKeys: String, CodingKey { case bytes }
}
