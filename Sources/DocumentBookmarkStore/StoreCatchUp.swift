/// How this process's copy of the store was brought up to date with the rows other
/// processes changed: the records it was made from, and what listeners hear. Made as the
/// rows are applied: listeners hear what those rows changed, and the other records are not
/// compared.
struct StoreCatchUp<Key: Hashable & Sendable & Codable, Metadata: Sendable & Codable & Equatable> {
  typealias Record = StoreRecord<Key, Metadata>

  /// The records before the catch-up.
  let from: StoreRecordList<Key, Metadata>
  /// Records added, changed and removed, in the order they were applied.
  private(set) var changes: [StoreChange<Key, Metadata>] = []
  /// Whether a record that was there before took another place.
  private(set) var movedKept = false

  init(from records: StoreRecordList<Key, Metadata>) {
    from = records
  }

  /// A record put: `previous` is the one it replaces (`nil` when it is new), `moved` when
  /// it replaces it at another place.
  mutating func put(_ record: Record, replacing previous: Record?, moved: Bool) {
    guard let previous else { return changes.append(.added(record)) }
    if previous != record { changes.append(.updated(record)) }
    if moved { movedKept = true }
  }

  /// A record removed.
  mutating func remove(_ record: Record) {
    changes.append(.removed(record))
  }

  /// What listeners hear, given the records after the catch-up: the changes, then the new
  /// order when records that were there before changed places among themselves.
  func storeChanges(after records: StoreRecordList<Key, Metadata>) -> [StoreChange<Key, Metadata>] {
    guard movedKept, let order = StoreCatchUp.newOrder(from: from, to: records) else { return changes }
    return changes + [.reordered(order)]
  }

  /// The keys of `new` in their order, when the keys both `old` and `new` hold are in
  /// another order in `new` than in `old`; else `nil`.
  static func newOrder<Records: Collection<Record>>(from old: Records, to new: Records) -> [Key]? {
    let oldKeys = Set(old.map(\.key))
    let newKeys = Set(new.map(\.key))
    let keptOld = old.lazy.map(\.key).filter { newKeys.contains($0) }
    let keptNew = new.lazy.map(\.key).filter { oldKeys.contains($0) }
    return keptOld.elementsEqual(keptNew) ? nil : new.map(\.key)
  }
}
