public import DocumentBookmarks

/// One remembered file or folder: the app's key for it, its bookmark (anchored on the store
/// file), where it was last found, and what the store last learned about it.
///
/// Records are values: a record you hold does not change when the store does; read the
/// store's ``BookmarkStore/snapshot`` or subscribe to ``BookmarkStore/updates()`` for the
/// current ones.
public struct StoreRecord<Key: Hashable & Sendable & Codable, Metadata: Sendable & Codable & Equatable>:
  Sendable, Equatable
{
  /// The app's stable key for the record; it never changes through refreshes.
  public let key: Key
  /// The bookmark, anchored on the store file; `nil` for a path-only record that has not
  /// been reached yet.
  public internal(set) var bookmark: Bookmark?
  /// Where the target was last found (or, for a path-only record, the path it was added with).
  public internal(set) var lastKnownPath: FilePath
  /// The target's identity as its bookmark recorded it; `nil` without a bookmark.
  public internal(set) var identity: TargetIdentity?
  /// The filesystem the target was on (its id and mount point), when known.
  public internal(set) var volume: VolumeHint?
  /// What the last resolution found.
  public internal(set) var status: RecordStatus
  /// When the record was added.
  public internal(set) var createdAt: Timestamp
  /// When a refreshed bookmark was last stored (the target had moved).
  public internal(set) var refreshedAt: Timestamp?
  /// When the app last said it used the record (``BookmarkStore/markUsed(_:)``).
  public internal(set) var lastUsedAt: Timestamp?
  /// Whether eviction spares the record (unless it is gone).
  public internal(set) var isPinned: Bool
  /// The app's own data for the record.
  public internal(set) var metadata: Metadata
  /// Members of the record's JSON this version does not know, written back unchanged.
  var unknownMembers: [String: JSONValue] = [:]

  init(
    key: Key, bookmark: Bookmark?, lastKnownPath: FilePath, identity: TargetIdentity?, volume: VolumeHint?,
    status: RecordStatus, createdAt: Timestamp, isPinned: Bool = false, metadata: Metadata
  ) {
    self.key = key
    self.bookmark = bookmark
    self.lastKnownPath = lastKnownPath
    self.identity = identity
    self.volume = volume
    self.status = status
    self.createdAt = createdAt
    self.isPinned = isPinned
    self.metadata = metadata
  }

  /// Whether the record has a bookmark (path-only records have none until first reached).
  public var hasBookmark: Bool { bookmark != nil }

  /// The last component of ``lastKnownPath``, for display (non-UTF-8 bytes escaped).
  public var displayName: String {
    FilePath(bytes: lastKnownPath.lastComponent).map(\.description) ?? lastKnownPath.description
  }

  /// Whether ``lastKnownPath`` is inside a freedesktop.org Trash folder (see ``TrashFolders``).
  public var isInTrash: Bool { TrashFolders().contains(lastKnownPath) }

  /// Whether the target is gone for good: its last resolution found it `missing`, the
  /// bookmark `corrupt` or of an `unsupportedVersion`, or it is in the Trash.
  ///
  /// A target on a filesystem that is not mounted (`volumeUnavailable`), a lost key
  /// (`keyMissing`, repairable), a permission problem or an I/O error may pass, so they do
  /// not count.
  public var isGone: Bool { Self.isGone(status: status, inTrash: isInTrash) }

  static func isGone(status: RecordStatus, inTrash: Bool) -> Bool {
    switch status.failure {
    case .missing, .corrupt, .unsupportedVersion: true
    default: inTrash
    }
  }

  /// When the record was last used, or added when never used: what least-recently-used
  /// eviction compares.
  public var lastUse: Timestamp { lastUsedAt ?? createdAt }
}

extension StoreRecord: Codable {
  enum CodingKeys: String, CodingKey, CaseIterable {
    case key, bookmark, path, identity, volume, status, created, refreshed, lastUsed, pinned, metadata
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    key = try container.decode(Key.self, forKey: .key)
    bookmark = try container.decodeIfPresent(Bookmark.self, forKey: .bookmark)
    lastKnownPath = try container.decode(FilePath.self, forKey: .path)
    identity = try container.decodeIfPresent(TargetIdentity.self, forKey: .identity)
    volume = try container.decodeIfPresent(VolumeHint.self, forKey: .volume)
    status = (try? container.decode(RecordStatus.self, forKey: .status)) ?? .unknown
    createdAt = try container.decode(Timestamp.self, forKey: .created)
    refreshedAt = try container.decodeIfPresent(Timestamp.self, forKey: .refreshed)
    lastUsedAt = try container.decodeIfPresent(Timestamp.self, forKey: .lastUsed)
    isPinned = try container.decodeIfPresent(Bool.self, forKey: .pinned) ?? false
    metadata = try container.decode(Metadata.self, forKey: .metadata)
    let known = Set(CodingKeys.allCases.map(\.rawValue))
    unknownMembers = try JSONValue(from: decoder).members.filter { !known.contains($0.key) }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(key, forKey: .key)
    try container.encodeIfPresent(bookmark, forKey: .bookmark)
    try container.encode(lastKnownPath, forKey: .path)
    try container.encodeIfPresent(identity, forKey: .identity)
    try container.encodeIfPresent(volume, forKey: .volume)
    try container.encode(status, forKey: .status)
    try container.encode(createdAt, forKey: .created)
    try container.encodeIfPresent(refreshedAt, forKey: .refreshed)
    try container.encodeIfPresent(lastUsedAt, forKey: .lastUsed)
    if isPinned { try container.encode(true, forKey: .pinned) }
    try container.encode(metadata, forKey: .metadata)
    var unknown = encoder.container(keyedBy: AnyCodingKey.self)
    for (name, value) in unknownMembers { try unknown.encode(value, forKey: AnyCodingKey(name)) }
  }
}

/// Metadata for apps that keep none with their records: encoded as `{}`.
public struct NoMetadata: Hashable, Sendable, Codable {
  public init() {}
}
