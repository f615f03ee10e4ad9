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
  /// a change copies the chunk of records it alters, and a shared box makes each copy one
  /// reference and each comparison of an unchanged record one pointer comparison.
  private final class Fields: Sendable {
    let key: Key
    let values: Values

    init(key: Key, values: Values) {
      self.key = key
      self.values = values
    }

    func equals(_ other: Fields) -> Bool {
      self === other || (key == other.key && values == other.values)
    }
  }

  /// The fields a change may alter (all but the key).
  private struct Values: Equatable, Sendable {
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
  }

  private var fields: Fields

  /// Applies `body` to a copy of the values, in a box of their own.
  private mutating func change(_ body: (inout Values) -> Void) {
    var values = fields.values
    body(&values)
    fields = Fields(key: fields.key, values: values)
  }

  /// The app's stable key for the record; it never changes through refreshes.
  public var key: Key { fields.key }
  /// The bookmark, anchored on the store file; `nil` for a path-only record that has not
  /// been reached yet.
  public internal(set) var bookmark: Bookmark? {
    get { fields.values.bookmark }
    set { change { $0.bookmark = newValue } }
  }
  /// Where the target was last found (or, for a path-only record, the path it was added with).
  public internal(set) var lastKnownPath: FilePath {
    get { fields.values.lastKnownPath }
    set { change { $0.lastKnownPath = newValue } }
  }
  /// The target's identity as its bookmark recorded it; `nil` without a bookmark.
  public internal(set) var identity: TargetIdentity? {
    get { fields.values.identity }
    set { change { $0.identity = newValue } }
  }
  /// The inode number of ``identity``, read without copying the identity.
  var inode: UInt64? { fields.values.identity?.inode }
  /// The filesystem the target was on (its id and mount point), when known.
  public internal(set) var volume: VolumeHint? {
    get { fields.values.volume }
    set { change { $0.volume = newValue } }
  }
  /// What the last resolution found.
  public internal(set) var status: RecordStatus {
    get { fields.values.status }
    set { change { $0.status = newValue } }
  }
  /// When the record was added.
  public internal(set) var createdAt: Timestamp {
    get { fields.values.createdAt }
    set { change { $0.createdAt = newValue } }
  }
  /// When a refreshed bookmark was last stored (the target had moved).
  public internal(set) var refreshedAt: Timestamp? {
    get { fields.values.refreshedAt }
    set { change { $0.refreshedAt = newValue } }
  }
  /// When the app last said it used the record (``BookmarkStore/markUsed(_:)``).
  public internal(set) var lastUsedAt: Timestamp? {
    get { fields.values.lastUsedAt }
    set { change { $0.lastUsedAt = newValue } }
  }
  /// Whether eviction spares the record (unless it is gone).
  public internal(set) var isPinned: Bool {
    get { fields.values.isPinned }
    set { change { $0.isPinned = newValue } }
  }
  /// The app's own data for the record.
  public internal(set) var metadata: Metadata {
    get { fields.values.metadata }
    set { change { $0.metadata = newValue } }
  }
  /// Members of the record's JSON this version does not know, written back unchanged.
  var unknownMembers: [String: JSONValue] {
    get { fields.values.unknownMembers }
    set { change { $0.unknownMembers = newValue } }
  }

  init(
    key: Key, bookmark: Bookmark?, lastKnownPath: FilePath, identity: TargetIdentity?, volume: VolumeHint?,
    status: RecordStatus, createdAt: Timestamp, isPinned: Bool = false, metadata: Metadata,
    refreshedAt: Timestamp? = nil, lastUsedAt: Timestamp? = nil, unknownMembers: [String: JSONValue] = [:]
  ) {
    fields = Fields(
      key: key,
      values: Values(
        bookmark: bookmark, lastKnownPath: lastKnownPath, identity: identity, volume: volume, status: status,
        createdAt: createdAt, refreshedAt: refreshedAt, lastUsedAt: lastUsedAt, isPinned: isPinned,
        metadata: metadata, unknownMembers: unknownMembers))
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

  package static func isGone(status: RecordStatus, inTrash: Bool) -> Bool {
    switch status.failure {
    case .missing, .corrupt, .unsupportedVersion: true
    default: inTrash
    }
  }

  /// When the record was last used, or added when never used: what least-recently-used
  /// eviction compares.
  public var lastUse: Timestamp { lastUsedAt ?? createdAt }
}

/// A member of a record's JSON: one this version writes, or another (`other`), which
/// a newer version wrote and this one keeps. A record's identity and filesystem are its
/// bookmark's (decoded from it when read), so only a path-only record writes `volume`.
private enum RecordMember: CodingKey {
  case key, bookmark, path, volume, status, created, refreshed, lastUsed, pinned, metadata
  case other(String)

  init(stringValue: String) {
    self =
      switch stringValue {
      case "key": .key
      case "bookmark": .bookmark
      case "path": .path
      case "volume": .volume
      case "status": .status
      case "created": .created
      case "refreshed": .refreshed
      case "lastUsed": .lastUsed
      case "pinned": .pinned
      case "metadata": .metadata
      default: .other(stringValue)
      }
  }

  init?(intValue: Int) { nil }

  var stringValue: String {
    switch self {
    case .key: "key"
    case .bookmark: "bookmark"
    case .path: "path"
    case .volume: "volume"
    case .status: "status"
    case .created: "created"
    case .refreshed: "refreshed"
    case .lastUsed: "lastUsed"
    case .pinned: "pinned"
    case .metadata: "metadata"
    case .other(let name): name
    }
  }

  var intValue: Int? { nil }
}

extension CodingUserInfoKey {
  /// `true` where the record decoded is known to hold only the members this version writes
  /// (a store row says so), so that it is not searched for others.
  static let recordHoldsOnlyKnownMembers = CodingUserInfoKey(rawValue: "docbm.recordHoldsOnlyKnownMembers")!
}

extension StoreRecord: Codable {
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: RecordMember.self)
    let key = try container.decode(Key.self, forKey: .key)
    let bookmark = try container.decodeIfPresent(Bookmark.self, forKey: .bookmark)
    let identity: TargetIdentity?
    let volume: VolumeHint?
    if let bookmark {
      let fields = try bookmark.decodeUnverified()
      identity = fields.identity
      volume = fields.volume
    } else {
      identity = nil
      volume = try container.decodeIfPresent(VolumeHint.self, forKey: .volume)
    }
    var unknownMembers: [String: JSONValue] = [:]
    if decoder.userInfo[.recordHoldsOnlyKnownMembers] as? Bool != true {
      for member in container.allKeys {
        if case .other(let name) = member {
          unknownMembers[name] = try container.decode(JSONValue.self, forKey: member)
        }
      }
    }
    // A status this version cannot read (another state, an unknown code) reads as unknown.
    self.init(
      key: key, bookmark: bookmark,
      lastKnownPath: try container.decode(FilePath.self, forKey: .path),
      identity: identity, volume: volume,
      status: (try? container.decode(RecordStatus.self, forKey: .status)) ?? .unknown,
      createdAt: try container.decode(Timestamp.self, forKey: .created),
      isPinned: try container.decodeIfPresent(Bool.self, forKey: .pinned) ?? false,
      metadata: try container.decode(Metadata.self, forKey: .metadata),
      refreshedAt: try container.decodeIfPresent(Timestamp.self, forKey: .refreshed),
      lastUsedAt: try container.decodeIfPresent(Timestamp.self, forKey: .lastUsed),
      unknownMembers: unknownMembers)
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: RecordMember.self)
    try container.encode(key, forKey: .key)
    if let bookmark {
      try container.encode(bookmark, forKey: .bookmark)
    } else {
      try container.encodeIfPresent(volume, forKey: .volume)
    }
    try container.encode(lastKnownPath, forKey: .path)
    try container.encode(status, forKey: .status)
    try container.encode(createdAt, forKey: .created)
    try container.encodeIfPresent(refreshedAt, forKey: .refreshed)
    try container.encodeIfPresent(lastUsedAt, forKey: .lastUsed)
    if isPinned { try container.encode(true, forKey: .pinned) }
    try container.encode(metadata, forKey: .metadata)
    for (name, value) in unknownMembers {
      let member = RecordMember(stringValue: name)
      if case .other = member { try container.encode(value, forKey: member) }
    }
  }
}

/// Metadata for apps that keep none with their records: encoded as `{}`.
public struct NoMetadata: Hashable, Sendable, Codable {
  public init() {}
}
