public import DocumentBookmarks

/// The records of a store as its process last saw them: after its own last change, or the
/// last change of another process it loaded.
public struct StoreSnapshot<Key: Hashable & Sendable & Codable, Metadata: Sendable & Codable & Equatable>:
  Sendable
{
  /// The records, in the store's order.
  public let records: [StoreRecord<Key, Metadata>]
  /// Whether the store file has been read yet.
  public let isLoaded: Bool

  /// The record with `key`.
  public subscript(key: Key) -> StoreRecord<Key, Metadata>? { records.first { $0.key == key } }
  /// The keys, in the store's order.
  public var keys: [Key] { records.map(\.key) }
  /// Whether a record has `key`.
  public func contains(_ key: Key) -> Bool { records.contains { $0.key == key } }
  /// How many records there are.
  public var count: Int { records.count }
}

/// A record just resolved: the record as committed, and how its target was found.
public struct ResolvedRecord<Key: Hashable & Sendable & Codable, Metadata: Sendable & Codable & Equatable>:
  Sendable
{
  /// The record after the resolution was committed (status, path, refreshed bookmark).
  public let record: StoreRecord<Key, Metadata>
  /// Where the target is now.
  public let path: FilePath
  /// The resolution, or `nil` when a path-only record just got its first bookmark.
  public let resolution: Resolution?
}
