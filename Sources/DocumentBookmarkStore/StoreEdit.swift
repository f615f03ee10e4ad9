/// What one change did to a store's records, noted by the call that made it as it made it:
/// the journal line it amounts to and what listeners hear. A change described so is saved
/// and published at the cost of what it writes, without comparing every record of the
/// store before and after.
///
/// The line is applied as the journal applies it: removals, then records put (replaced
/// where their key is, else added at the end), then moves. In debug builds the store checks
/// that the line turns the records before into the records after.
struct StoreEdit<Key: Hashable & Sendable & Codable, Metadata: Sendable & Codable & Equatable> {
  typealias Record = StoreRecord<Key, Metadata>
  typealias Change = StoreJournal<Key, Metadata>.Change

  private(set) var line = Change()
  /// What listeners hear, but the new order (which the records after say).
  private(set) var changes: [StoreChange<Key, Metadata>] = []
  /// Whether records that were in the store before changed places among themselves.
  private(set) var reordersKept = false
  /// Where each record put is in `line.put` and in `changes`.
  private var putPositions: [Key: (line: Int, change: Int)] = [:]

  /// Whether the change did nothing.
  var isEmpty: Bool { changes.isEmpty && line == Change() }

  /// A record put: `isNew` when its key was not in the store before this change.
  /// A record put twice in one change keeps the first one's news: added, when it was.
  mutating func put(_ record: Record, isNew: Bool) {
    if let (linePosition, changePosition) = putPositions[record.key] {
      line.put?[linePosition] = record
      if case .added = changes[changePosition] {
        changes[changePosition] = .added(record)
      } else {
        changes[changePosition] = isNew ? .added(record) : .updated(record)
      }
      return
    }
    let change: StoreChange<Key, Metadata> = isNew ? .added(record) : .updated(record)
    putPositions[record.key] = (line.put?.count ?? 0, changes.count)
    line.put = line.put ?? []
    line.put?.append(record)
    changes.append(change)
  }

  /// A record removed. One put by this same change is as if it had never been.
  mutating func remove(_ record: Record) {
    if putPositions[record.key] != nil {
      let wasNew = changes.contains {
        if case .added(let added) = $0 { added.key == record.key } else { false }
      }
      line.put?.removeAll { $0.key == record.key }
      if line.put?.isEmpty == true { line.put = nil }
      changes.removeAll { $0.key == record.key }
      line.move?.removeAll { $0.key == record.key }
      if line.move?.isEmpty == true { line.move = nil }
      putPositions = [:]
      for (index, put) in (line.put ?? []).enumerated() {
        if let change = changes.firstIndex(where: { $0.key == put.key }) {
          putPositions[put.key] = (index, change)
        }
      }
      if wasNew { return }
    }
    line.remove = line.remove ?? []
    line.remove?.append(record.key)
    changes.append(.removed(record))
  }

  /// A record moved to `index` of the list as it is at that moment; `reordersKept` when it
  /// was in the store before this change (a new record's place is part of its adding).
  mutating func move(_ key: Key, to index: Int, reordersKept: Bool) {
    line.move = line.move ?? []
    line.move?.append(StoreJournal<Key, Metadata>.Move(key: key, to: index))
    if reordersKept { self.reordersKept = true }
  }

  /// What listeners hear, given the records after the change.
  func storeChanges(after records: StoreRecordList<Key, Metadata>) -> [StoreChange<Key, Metadata>] {
    reordersKept ? changes + [.reordered(records.map(\.key))] : changes
  }
}

extension StoreChange {
  /// The key of the record the change is about; `nil` for a new order.
  fileprivate var key: Key? {
    switch self {
    case .added(let record), .updated(let record), .removed(let record): record.key
    case .reordered: nil
    }
  }
}
