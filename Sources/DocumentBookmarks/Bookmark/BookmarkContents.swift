/// Everything a bookmark records about its target.
///
/// Values come from ``Bookmark/decodeUnverified()`` (not checked against any key, for
/// inspection only) or from a ``Resolution`` (verified before anything was read).
public struct BookmarkContents: Hashable, Sendable, Codable {
  /// The record format version.
  public let version: UInt8
  /// The fingerprint of the document key that signed the bookmark.
  public let keyFingerprint: KeyFingerprint
  /// What the target is.
  public let kind: TargetKind
  /// The target's path relative to the document's folder, e.g. `../images/cat.png`.
  public let relativePath: FilePath
  /// The target's absolute path, with every symbolic link resolved (`realpath`).
  public let absolutePath: FilePath
  /// When the bookmark was made.
  public let createdAt: Timestamp
  /// Who the target was.
  public let identity: TargetIdentity
  /// Where its filesystem was mounted.
  public let volume: VolumeHint

  public init(
    version: UInt8, keyFingerprint: KeyFingerprint, kind: TargetKind, relativePath: FilePath,
    absolutePath: FilePath, createdAt: Timestamp, identity: TargetIdentity, volume: VolumeHint
  ) {
    self.version = version
    self.keyFingerprint = keyFingerprint
    self.kind = kind
    self.relativePath = relativePath
    self.absolutePath = absolutePath
    self.createdAt = createdAt
    self.identity = identity
    self.volume = volume
  }
}
