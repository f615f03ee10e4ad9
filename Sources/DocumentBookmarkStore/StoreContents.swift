import DocumentBookmarks

/// What one version of the store file holds: the records this version reads, the records
/// it cannot (kept verbatim, written after the others), and top-level members it does not know.
struct StoreContents<Key: Hashable & Sendable & Codable, Metadata: Sendable & Codable & Equatable>: Equatable,
  Sendable
{
  typealias Record = StoreRecord<Key, Metadata>

  var records: [Record] = []
  var unreadable: [JSONValue] = []
  var unknownMembers: [String: JSONValue] = [:]

  /// The position of the record with `key`.
  func index(of key: Key) -> Int? { records.firstIndex { $0.key == key } }

  subscript(key: Key) -> Record? {
    index(of: key).map { records[$0] }
  }
}
