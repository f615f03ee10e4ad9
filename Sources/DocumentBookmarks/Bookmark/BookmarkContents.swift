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
  public var documentPath: FilePath? {
    documentPathFromTarget.map { absolutePath.removingLastComponent.appending($0.bytes).lexicallyNormalized }
  }
  /// ``documentPath`` as recorded: relative to the folder of ``absolutePath`` (worked out
  /// only when asked for, which resolution seldom does).
  let documentPathFromTarget: FilePath?
  /// The document the bookmark was made in, as a file: its inode number and birth time
  /// then (an optional field: `nil` in bookmarks made before it existed, and through the
  /// Documents portal). Resolution uses it as evidence that the document at hand is that
  /// very file, or is another one: a copy, a restored backup, or the document after a
  /// save that wrote it anew.
  public let documentIdentity: RecordedDocument?

  /// Makes contents from their fields; `documentPath` is the document's absolute real path
  /// (stored relative to the target's folder).
  public init(
    version: UInt8, keyFingerprint: KeyFingerprint, kind: TargetKind, relativePath: FilePath,
    absolutePath: FilePath, createdAt: Timestamp, identity: TargetIdentity, volume: VolumeHint,
    documentPath: FilePath? = nil, documentIdentity: RecordedDocument? = nil
  ) {
    self.init(
      version: version, keyFingerprint: keyFingerprint, kind: kind, relativePath: relativePath,
      absolutePath: absolutePath, createdAt: createdAt, identity: identity, volume: volume,
      documentPathFromTarget: documentPath.map { $0.relative(from: absolutePath.removingLastComponent) },
      documentIdentity: documentIdentity)
  }

  /// Makes contents from a decoded record, whose document path is relative to the folder
  /// of `absolutePath`.
  init(
    version: UInt8, keyFingerprint: KeyFingerprint, kind: TargetKind, relativePath: FilePath,
    absolutePath: FilePath, createdAt: Timestamp, identity: TargetIdentity, volume: VolumeHint,
    documentPathFromTarget: FilePath?, documentIdentity: RecordedDocument?
  ) {
    self.version = version
    self.keyFingerprint = keyFingerprint
    self.kind = kind
    self.relativePath = relativePath
    self.absolutePath = absolutePath
    self.createdAt = createdAt
    self.identity = identity
    self.volume = volume
    self.documentPathFromTarget = documentPathFromTarget
    self.documentIdentity = documentIdentity
  }

  private enum CodingKeys: String, CodingKey {
    case version, keyFingerprint, kind, relativePath, absolutePath, createdAt, identity, volume, documentPath,
      documentIdentity
  }

  /// Decodes contents as ``encode(to:)`` writes them (``documentPath`` absolute).
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      version: try container.decode(UInt8.self, forKey: .version),
      keyFingerprint: try container.decode(KeyFingerprint.self, forKey: .keyFingerprint),
      kind: try container.decode(TargetKind.self, forKey: .kind),
      relativePath: try container.decode(FilePath.self, forKey: .relativePath),
      absolutePath: try container.decode(FilePath.self, forKey: .absolutePath),
      createdAt: try container.decode(Timestamp.self, forKey: .createdAt),
      identity: try container.decode(TargetIdentity.self, forKey: .identity),
      volume: try container.decode(VolumeHint.self, forKey: .volume),
      documentPath: try container.decodeIfPresent(FilePath.self, forKey: .documentPath),
      documentIdentity: try container.decodeIfPresent(RecordedDocument.self, forKey: .documentIdentity))
  }

  /// Encodes the fields, with ``documentPath`` as an absolute path when there is one.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(version, forKey: .version)
    try container.encode(keyFingerprint, forKey: .keyFingerprint)
    try container.encode(kind, forKey: .kind)
    try container.encode(relativePath, forKey: .relativePath)
    try container.encode(absolutePath, forKey: .absolutePath)
    try container.encode(createdAt, forKey: .createdAt)
    try container.encode(identity, forKey: .identity)
    try container.encode(volume, forKey: .volume)
    try container.encodeIfPresent(documentPath, forKey: .documentPath)
    try container.encodeIfPresent(documentIdentity, forKey: .documentIdentity)
  }
}
