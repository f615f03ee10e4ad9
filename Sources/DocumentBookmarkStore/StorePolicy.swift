public import DocumentBookmarks

/// How a store treats duplicates, order, its size limit and failures.
public struct StorePolicy: Sendable {
  /// What adding a target that a record already holds does.
  public enum Duplicates: Hashable, Sendable {
    /// Throw ``BookmarkStoreError/duplicate(of:)`` naming the record that holds it.
    case reject
    /// Return the existing record (used now, so moved to the front of a
    /// most-recently-used store) and add nothing.
    case returnExisting
    /// Add a second record.
    case allow
  }

  /// The order of ``BookmarkStore/records``.
  public enum Ordering: Hashable, Sendable {
    /// The order records were added in (and as ``BookmarkStore/move(_:to:)`` arranges).
    case insertion
    /// The most recently used (or added) first.
    case mostRecentlyUsed
  }

  /// What a resolution that fails does to the record.
  public struct FailureHandling: Sendable {
    let drops: @Sendable (DocbmError.Code) -> Bool

    /// Drops the record (an eviction with ``StoreEviction/Reason/failure(_:)``) when
    /// `drops` says so for the failure's code.
    public init(dropWhen drops: @escaping @Sendable (DocbmError.Code) -> Bool) { self.drops = drops }

    /// Keeps every record, marking it unavailable.
    public static let keep = FailureHandling { _ in false }
    /// Drops records whose target is `missing`; keeps the others.
    public static let dropMissing = FailureHandling { $0 == .missing }
  }

  /// Default: ``Duplicates/reject``.
  public var duplicates: Duplicates
  /// Default: ``Ordering/insertion``.
  public var ordering: Ordering
  /// The most records the store keeps; `nil` (the default) for no limit. At least 1.
  public var limit: Int?
  /// Which records go when the store is over its limit. Default: ``EvictionPolicy/storeOrder``.
  public var eviction: EvictionPolicy
  /// Default: ``FailureHandling/keep``.
  public var failureHandling: FailureHandling
  /// The checks each target passes before it is added, in order (``StoreValidator``).
  /// Default: none.
  public var validators: [StoreValidator]

  public init(
    duplicates: Duplicates = .reject, ordering: Ordering = .insertion, limit: Int? = nil,
    eviction: EvictionPolicy = .storeOrder, failureHandling: FailureHandling = .keep,
    validators: [StoreValidator] = []
  ) {
    precondition(limit.map { $0 > 0 } ?? true, "a store's limit must be at least 1")
    self.duplicates = duplicates
    self.ordering = ordering
    self.limit = limit
    self.eviction = eviction
    self.failureHandling = failureHandling
    self.validators = validators
  }

  /// A list of recent documents: the same target twice is one record, used again; the most
  /// recently used first; at most `limit` records, gone ones evicted first.
  public static func recents(limit: Int) -> StorePolicy {
    StorePolicy(duplicates: .returnExisting, ordering: .mostRecentlyUsed, limit: limit, eviction: .goneFirst)
  }
}

/// What eviction knows of a record: no I/O is done to decide.
public struct EvictionCandidate: Sendable {
  /// The record's status.
  public let status: RecordStatus
  /// Where its target was last found.
  public let lastKnownPath: FilePath
  public let createdAt: Timestamp
  public let lastUsedAt: Timestamp?
  public let isPinned: Bool
  public let hasBookmark: Bool
  /// The record's place in the store, 0 first.
  public let position: Int
  /// The store's ordering (so that "oldest in store order" can be told).
  public let ordering: StorePolicy.Ordering
  /// Whether the record is in a Trash folder.
  public let isInTrash: Bool

  /// See ``StoreRecord/isGone``.
  public var isGone: Bool { StoreRecord<Int, NoMetadata>.isGone(status: status, inTrash: isInTrash) }
  /// Last use, or the creation date when never used.
  public var lastUse: Timestamp { lastUsedAt ?? createdAt }
  /// A rank where smaller is older in store order: the first record of an insertion-ordered
  /// store, the last of a most-recently-used one.
  public var storeAge: Int { ordering == .insertion ? position : -position }
}

/// Which records leave a store that is over its limit.
///
/// A policy protects some records and orders the others; eviction takes the first in that
/// order until the store is within its limit. It never takes the record being added, and
/// when every other record is protected the store stays over its limit. Ties fall back to
/// store order.
public struct EvictionPolicy: Sendable {
  let protects: @Sendable (EvictionCandidate) -> Bool
  let evictsFirst: @Sendable (EvictionCandidate, EvictionCandidate) -> Bool

  /// A policy of your own: `protects` spares a record, `evictsFirst(a, b)` is true when `a`
  /// should go before `b`.
  public init(
    protects: @escaping @Sendable (EvictionCandidate) -> Bool = EvictionPolicy.protectsPinned,
    evictsFirst: @escaping @Sendable (EvictionCandidate, EvictionCandidate) -> Bool
  ) {
    self.protects = protects
    self.evictsFirst = evictsFirst
  }

  /// The default protection: pinned records, unless they are gone.
  public static let protectsPinned: @Sendable (EvictionCandidate) -> Bool = { $0.isPinned && !$0.isGone }

  /// The oldest in store order first.
  public static let storeOrder = EvictionPolicy { $0.storeAge < $1.storeAge }

  /// The least recently used first.
  public static let leastRecentlyUsed = EvictionPolicy { a, b in
    a.lastUse != b.lastUse ? a.lastUse < b.lastUse : a.storeAge < b.storeAge
  }

  /// Gone records first (missing, corrupt, in the Trash), then the least recently used.
  public static let goneFirst = EvictionPolicy { a, b in
    if a.isGone != b.isGone { return a.isGone }
    return a.lastUse != b.lastUse ? a.lastUse < b.lastUse : a.storeAge < b.storeAge
  }
}

/// A record the store removed without being asked to: beyond its limit, or for a failure
/// its ``StorePolicy/FailureHandling`` drops.
public struct StoreEviction<Key: Hashable & Sendable & Codable, Metadata: Sendable & Codable & Equatable>:
  Sendable
{
  /// Why it went.
  public enum Reason: Hashable, Sendable {
    /// The store was over its limit.
    case limit
    /// Its resolution failed with this code.
    case failure(DocbmError.Code)
  }

  /// The record as it was when it went.
  public let record: StoreRecord<Key, Metadata>
  public let reason: Reason
}

/// A change to the store's records, as ``BookmarkStore/updates()`` reports it.
public enum StoreChange<Key: Hashable & Sendable & Codable, Metadata: Sendable & Codable & Equatable>:
  Sendable
{
  case added(StoreRecord<Key, Metadata>)
  case updated(StoreRecord<Key, Metadata>)
  case removed(StoreRecord<Key, Metadata>)
  /// The order changed; the keys in their new order.
  case reordered([Key])
}

/// One element of ``BookmarkStore/updates()``: first the records as they are, then each
/// saved (or, from another process, loaded) change.
public enum StoreUpdate<Key: Hashable & Sendable & Codable, Metadata: Sendable & Codable & Equatable>:
  Sendable
{
  case snapshot([StoreRecord<Key, Metadata>])
  case changes([StoreChange<Key, Metadata>])
}
