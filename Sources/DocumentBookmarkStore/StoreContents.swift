import DocumentBookmarks

/// What one version of the store file holds, its journal applied: the records this version
/// reads, the records it cannot (kept verbatim, written after the others), top-level members
/// it does not know, and the name that ties the journal to this version of the file.
struct StoreContents<Key: Hashable & Sendable & Codable, Metadata: Sendable & Codable & Equatable>: Equatable,
  Sendable
{
  typealias Record = StoreRecord<Key, Metadata>

  var records = StoreRecordList<Key, Metadata>()
  var unreadable: [JSONValue] = []
  var unknownMembers: [String: JSONValue] = [:]
  /// The store file's `journal` member: a random name each whole rewrite gives the file,
  /// which its journal's first line repeats. `nil` for a file of schema version 1 (no
  /// journal) and for a store not written yet.
  var snapshotID: String?

  /// The positions of the records that differ in `other`, when it holds the same keys in
  /// the same order (the usual change: some records changed in place); `nil` when it does
  /// not. One pass, comparing the records where they lie.
  ///
  /// A change alters a few records of a copy, so nearly every record shares its fields
  /// with the one before, and compares equal by one pointer comparison.
  func changedPositions(to other: StoreContents) -> [Int]? {
    Self.changedPositions(from: records.elements, to: other.records.elements)
  }

  /// ``changedPositions(to:)`` of two record lists.
  static func changedPositions(from oldRecords: [Record], to newRecords: [Record]) -> [Int]? {
    guard oldRecords.count == newRecords.count else { return nil }
    return oldRecords.withUnsafeBufferPointer { old in
      newRecords.withUnsafeBufferPointer { new -> [Int]? in
        var changed: [Int] = []
        for index in old.indices where old[index] != new[index] {
          guard old[index].key == new[index].key else { return nil }
          changed.append(index)
        }
        return changed
      }
    }
  }

  /// Whether both hold the same members and records this version does not read.
  func sameUnreadParts(as other: StoreContents) -> Bool {
    unknownMembers == other.unknownMembers && unreadable == other.unreadable
  }

  /// The position of the record with `key`.
  func index(of key: Key) -> Int? { records.index(of: key) }

  subscript(key: Key) -> Record? {
    index(of: key).map { records[$0] }
  }
}
