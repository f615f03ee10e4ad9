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
  /// The members this version writes. A record's identity and filesystem are its
  /// bookmark's (decoded from it when read), so only a path-only record writes `volume`.
  static var knownMembers: Set<String> {
    ["key", "bookmark", "path", "volume", "status", "created", "refreshed", "lastUsed", "pinned", "metadata"]
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: AnyCodingKey.self)
    func member(_ name: String) -> AnyCodingKey { AnyCodingKey(name) }
    key = try container.decode(Key.self, forKey: member("key"))
    bookmark = try container.decodeIfPresent(Bookmark.self, forKey: member("bookmark"))
    if let bookmark {
      let fields = try bookmark.decodeUnverified()
      identity = fields.identity
      volume = fields.volume
    } else {
      identity = nil
      volume = try container.decodeIfPresent(VolumeHint.self, forKey: member("volume"))
    }
    lastKnownPath = try container.decode(FilePath.self, forKey: member("path"))
    status = (try? container.decode(RecordStatus.self, forKey: member("status"))) ?? .unknown
    createdAt = try container.decode(Timestamp.self, forKey: member("created"))
    refreshedAt = try container.decodeIfPresent(Timestamp.self, forKey: member("refreshed"))
    lastUsedAt = try container.decodeIfPresent(Timestamp.self, forKey: member("lastUsed"))
    isPinned = try container.decodeIfPresent(Bool.self, forKey: member("pinned")) ?? false
    metadata = try container.decode(Metadata.self, forKey: member("metadata"))
    let known = Self.knownMembers
    for name in container.allKeys where !known.contains(name.stringValue) {
      unknownMembers[name.stringValue] = try container.decode(JSONValue.self, forKey: name)
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: AnyCodingKey.self)
    func member(_ name: String) -> AnyCodingKey { AnyCodingKey(name) }
    try container.encode(key, forKey: member("key"))
    if let bookmark {
      try container.encode(bookmark, forKey: member("bookmark"))
    } else {
      try container.encodeIfPresent(volume, forKey: member("volume"))
    }
    try container.encode(lastKnownPath, forKey: member("path"))
    try container.encode(status, forKey: member("status"))
    try container.encode(createdAt, forKey: member("created"))
    try container.encodeIfPresent(refreshedAt, forKey: member("refreshed"))
    try container.encodeIfPresent(lastUsedAt, forKey: member("lastUsed"))
    if isPinned { try container.encode(true, forKey: member("pinned")) }
    try container.encode(metadata, forKey: member("metadata"))
    for (name, value) in unknownMembers where !Self.knownMembers.contains(name) {
      try container.encode(value, forKey: member(name))
    }
  }
}

/// Metadata for apps that keep none with their records: encoded as `{}`.
public struct NoMetadata: Hashable, Sendable, Codable {
  public init() {}
}
