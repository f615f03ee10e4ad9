import DocumentBookmarks

/// What one version of a store holds: the records this version reads and, in its JSON form
/// (an export, a 0.1 store), the records it cannot (kept verbatim, after the others),
/// top-level members it does not know, and the name that ties a 0.1 file to its journal.
struct StoreContents<Key: Hashable & Sendable & Codable, Metadata: Sendable & Codable & Equatable>: Equatable,
  Sendable
{
  typealias Record = StoreRecord<Key, Metadata>

  var records = StoreRecordList<Key, Metadata>()
  var unreadable: [JSONValue] = []
  var unknownMembers: [String: JSONValue] = [:]
  /// A 0.1 store file's `journal` member: a random name each whole rewrite gave the file,
  /// which its journal's first line repeats. `nil` for a file of schema version 1 (no
  /// journal) and for a database.
  var snapshotID: String?
  /// Whether these are only the records a scoped change read (``StoreFile/update(records:targets:_:)``),
  /// not the whole store: the first of them is not known to be the store's first.
  var isPartial = false

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
