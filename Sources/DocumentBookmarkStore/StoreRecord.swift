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
  /// The record's fields, shared between copies until one of them changes (copy on write):
  /// a store copies its list of records at every change and compares them, and a shared
  /// box makes each copy one reference and each comparison of an unchanged record one
  /// pointer comparison.
  private final class Fields: Sendable {
    let key: Key
    let bookmark: Bookmark?
    let lastKnownPath: FilePath
    let identity: TargetIdentity?
    let volume: VolumeHint?
    let status: RecordStatus
    let createdAt: Timestamp
    let refreshedAt: Timestamp?
    let lastUsedAt: Timestamp?
    let isPinned: Bool
    let metadata: Metadata
    let unknownMembers: [String: JSONValue]

    init(
      key: Key, bookmark: Bookmark?, lastKnownPath: FilePath, identity: TargetIdentity?, volume: VolumeHint?,
      status: RecordStatus, createdAt: Timestamp, refreshedAt: Timestamp?, lastUsedAt: Timestamp?,
      isPinned: Bool, metadata: Metadata, unknownMembers: [String: JSONValue]
    ) {
      self.key = key
      self.bookmark = bookmark
      self.lastKnownPath = lastKnownPath
      self.identity = identity
      self.volume = volume
      self.status = status
      self.createdAt = createdAt
      self.refreshedAt = refreshedAt
      self.lastUsedAt = lastUsedAt
      self.isPinned = isPinned
      self.metadata = metadata
      self.unknownMembers = unknownMembers
    }

    /// A copy with `change` applied to its values.
    func with(_ change: (inout Values) -> Void) -> Fields {
      var values = Values(self)
      change(&values)
      return Fields(
        key: key, bookmark: values.bookmark, lastKnownPath: values.lastKnownPath, identity: values.identity,
        volume: values.volume, status: values.status, createdAt: values.createdAt,
        refreshedAt: values.refreshedAt, lastUsedAt: values.lastUsedAt, isPinned: values.isPinned,
        metadata: values.metadata, unknownMembers: values.unknownMembers)
    }

    func equals(_ other: Fields) -> Bool {
      self === other
        || (key == other.key && bookmark == other.bookmark && lastKnownPath == other.lastKnownPath
          && identity == other.identity && volume == other.volume && status == other.status
          && createdAt == other.createdAt && refreshedAt == other.refreshedAt
          && lastUsedAt == other.lastUsedAt && isPinned == other.isPinned && metadata == other.metadata
          && unknownMembers == other.unknownMembers)
    }
  }

  /// The fields a change may alter (all but the key).
  private struct Values {
    var bookmark: Bookmark?
    var lastKnownPath: FilePath
    var identity: TargetIdentity?
    var volume: VolumeHint?
    var status: RecordStatus
    var createdAt: Timestamp
    var refreshedAt: Timestamp?
    var lastUsedAt: Timestamp?
    var isPinned: Bool
    var metadata: Metadata
    var unknownMembers: [String: JSONValue]

    init(_ fields: Fields) {
      bookmark = fields.bookmark
      lastKnownPath = fields.lastKnownPath
      identity = fields.identity
      volume = fields.volume
      status = fields.status
      createdAt = fields.createdAt
      refreshedAt = fields.refreshedAt
      lastUsedAt = fields.lastUsedAt
      isPinned = fields.isPinned
      metadata = fields.metadata
      unknownMembers = fields.unknownMembers
    }
  }

  private var fields: Fields

  private mutating func change(_ body: (inout Values) -> Void) {
    fields = fields.with(body)
  }

  /// The app's stable key for the record; it never changes through refreshes.
  public var key: Key { fields.key }
  /// The bookmark, anchored on the store file; `nil` for a path-only record that has not
  /// been reached yet.
  public internal(set) var bookmark: Bookmark? {
    get { fields.bookmark }
    set { change { $0.bookmark = newValue } }
  }
  /// Where the target was last found (or, for a path-only record, the path it was added with).
  public internal(set) var lastKnownPath: FilePath {
    get { fields.lastKnownPath }
    set { change { $0.lastKnownPath = newValue } }
  }
  /// The target's identity as its bookmark recorded it; `nil` without a bookmark.
  public internal(set) var identity: TargetIdentity? {
    get { fields.identity }
    set { change { $0.identity = newValue } }
  }
  /// The filesystem the target was on (its id and mount point), when known.
  public internal(set) var volume: VolumeHint? {
    get { fields.volume }
    set { change { $0.volume = newValue } }
  }
  /// What the last resolution found.
  public internal(set) var status: RecordStatus {
    get { fields.status }
    set { change { $0.status = newValue } }
  }
  /// When the record was added.
  public internal(set) var createdAt: Timestamp {
    get { fields.createdAt }
    set { change { $0.createdAt = newValue } }
  }
  /// When a refreshed bookmark was last stored (the target had moved).
  public internal(set) var refreshedAt: Timestamp? {
    get { fields.refreshedAt }
    set { change { $0.refreshedAt = newValue } }
  }
  /// When the app last said it used the record (``BookmarkStore/markUsed(_:)``).
  public internal(set) var lastUsedAt: Timestamp? {
    get { fields.lastUsedAt }
    set { change { $0.lastUsedAt = newValue } }
  }
  /// Whether eviction spares the record (unless it is gone).
  public internal(set) var isPinned: Bool {
    get { fields.isPinned }
    set { change { $0.isPinned = newValue } }
  }
  /// The app's own data for the record.
  public internal(set) var metadata: Metadata {
    get { fields.metadata }
    set { change { $0.metadata = newValue } }
  }
  /// Members of the record's JSON this version does not know, written back unchanged.
  var unknownMembers: [String: JSONValue] {
    get { fields.unknownMembers }
    set { change { $0.unknownMembers = newValue } }
  }

  init(
    key: Key, bookmark: Bookmark?, lastKnownPath: FilePath, identity: TargetIdentity?, volume: VolumeHint?,
    status: RecordStatus, createdAt: Timestamp, isPinned: Bool = false, metadata: Metadata,
    refreshedAt: Timestamp? = nil, lastUsedAt: Timestamp? = nil, unknownMembers: [String: JSONValue] = [:]
  ) {
    fields = Fields(
      key: key, bookmark: bookmark, lastKnownPath: lastKnownPath, identity: identity, volume: volume,
      status: status, createdAt: createdAt, refreshedAt: refreshedAt, lastUsedAt: lastUsedAt,
      isPinned: isPinned, metadata: metadata, unknownMembers: unknownMembers)
  }

  public static func == (lhs: StoreRecord, rhs: StoreRecord) -> Bool { lhs.fields.equals(rhs.fields) }

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
    let key = try container.decode(Key.self, forKey: member("key"))
    let bookmark = try container.decodeIfPresent(Bookmark.self, forKey: member("bookmark"))
    let identity: TargetIdentity?
    let volume: VolumeHint?
    if let bookmark {
      let fields = try bookmark.decodeUnverified()
      identity = fields.identity
      volume = fields.volume
    } else {
      identity = nil
      volume = try container.decodeIfPresent(VolumeHint.self, forKey: member("volume"))
    }
    let known = Self.knownMembers
    var unknownMembers: [String: JSONValue] = [:]
    for name in container.allKeys where !known.contains(name.stringValue) {
      unknownMembers[name.stringValue] = try container.decode(JSONValue.self, forKey: name)
    }
    self.init(
      key: key, bookmark: bookmark,
      lastKnownPath: try container.decode(FilePath.self, forKey: member("path")),
      identity: identity, volume: volume,
      status: (try? container.decode(RecordStatus.self, forKey: member("status"))) ?? .unknown,
      createdAt: try container.decode(Timestamp.self, forKey: member("created")),
      isPinned: try container.decodeIfPresent(Bool.self, forKey: member("pinned")) ?? false,
      metadata: try container.decode(Metadata.self, forKey: member("metadata")),
      refreshedAt: try container.decodeIfPresent(Timestamp.self, forKey: member("refreshed")),
      lastUsedAt: try container.decodeIfPresent(Timestamp.self, forKey: member("lastUsed")),
      unknownMembers: unknownMembers)
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
