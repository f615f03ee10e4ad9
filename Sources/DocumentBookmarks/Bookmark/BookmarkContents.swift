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
  /// The document's real path when the bookmark was made (an optional field: `nil` in
  /// bookmarks made before it existed). Resolution uses it as evidence to tell a document
  /// moved alone from a copy of its project: a copy leaves the original, with the same
  /// key, where the bookmark was made.
  public let documentPath: FilePath?

  public init(
    version: UInt8, keyFingerprint: KeyFingerprint, kind: TargetKind, relativePath: FilePath,
    absolutePath: FilePath, createdAt: Timestamp, identity: TargetIdentity, volume: VolumeHint,
    documentPath: FilePath? = nil
  ) {
    self.version = version
    self.keyFingerprint = keyFingerprint
    self.kind = kind
    self.relativePath = relativePath
    self.absolutePath = absolutePath
    self.createdAt = createdAt
    self.identity = identity
    self.volume = volume
    self.documentPath = documentPath
  }
}
