/// Where each record lies in the store's order: the `position` column, an integer that
/// grows along the order, with room between neighbours, so that a record added at either
/// end or moved to the front changes one row, not the position of every record after it.
struct StorePositions<Key: Hashable & Sendable & Codable, Metadata: Sendable & Codable & Equatable>: Sendable
{
  typealias Change = StoreJournal<Key, Metadata>.Change
  typealias Records = StoreRecordList<Key, Metadata>

  /// The room left between two records numbered afresh.
  static var spacing: Int64 { 1 << 20 }

  /// The position of each record known, by key.
  private(set) var byKey: [Key: Int64] = [:]
  /// The first and last positions taken in the whole store (not only among the records
  /// known), or `nil` when it has none.
  private(set) var bounds: (first: Int64, last: Int64)?

  init() {}

  init(_ rows: [(key: Key, position: Int64)], bounds: (first: Int64, last: Int64)?) {
    byKey = Dictionary(rows.map { ($0.key, $0.position) }, uniquingKeysWith: { first, _ in first })
    self.bounds = bounds
  }

  subscript(key: Key) -> Int64? { byKey[key] }

  /// Records that `key` lies at `position` (a row read since), or that it is gone (`nil`).
  mutating func note(_ key: Key, at position: Int64?) {
    byKey[key] = position
    guard let position else { return }
    bounds = bounds.map { (min($0.first, position), max($0.last, position)) } ?? (position, position)
  }

  /// Gives a position to each record `change` put anew or moved, so that `records` (the
  /// records after it, in order) lie in increasing positions; returns the keys whose
  /// position changed. A record added goes after the last position, one moved to the front
  /// before the first; other moves and a new order fill the gap between the neighbours, and
  /// number every record afresh when there is none.
  ///
  /// `isWhole`: `records` is the whole store. Otherwise they are only the records a change
  /// read, and `change` may only add records and move them to the front.
  mutating func assign(_ change: Change, after records: Records, isWhole: Bool) -> Set<Key> {
    for key in change.remove ?? [] { byKey[key] = nil }
    var changed = Set<Key>()
    func place(_ key: Key, at position: Int64) {
      byKey[key] = position
      changed.insert(key)
      bounds = bounds.map { (min($0.first, position), max($0.last, position)) } ?? (position, position)
    }
    for record in change.put ?? [] where byKey[record.key] == nil {
      place(record.key, at: (bounds?.last ?? 0) + Self.spacing)
    }
    var needsWalk = change.order != nil
    for move in change.move ?? [] {
      if move.to == 0 {
        place(move.key, at: (bounds?.first ?? 0) - Self.spacing)
      } else if isWhole && move.to == records.count - 1 {
        place(move.key, at: (bounds?.last ?? 0) + Self.spacing)
      } else {
        needsWalk = true
      }
    }
    precondition(isWhole || !needsWalk, "a change of some records moved one inside the order")
    guard needsWalk else { return changed }
    let moved = Set((change.move ?? []).map(\.key))
    return changed.union(
      fill(records, reassigning: change.order != nil ? Set(records.map(\.key)) : moved))
  }

  /// Keeps the positions of the records not in `reassigning` (which must still increase
  /// along `records`) and gives the others positions between their neighbours; numbers
  /// every record afresh when that cannot be done. Returns the keys whose position changed.
  private mutating func fill(_ records: Records, reassigning: Set<Key>) -> Set<Key> {
    var changed = Set<Key>()
    var pending: [Key] = []
    var previous: Int64?
    func flush(before next: Int64?) -> Bool {
      defer { pending = [] }
      guard !pending.isEmpty else { return true }
      let count = Int64(pending.count)
      let start: Int64
      let step: Int64
      switch (previous, next) {
      case (nil, nil): (start, step) = (Self.spacing, Self.spacing)
      case (let low?, nil): (start, step) = (low + Self.spacing, Self.spacing)
      case (nil, let high?): (start, step) = (high - count * Self.spacing, Self.spacing)
      case (let low?, let high?):
        guard high - low > count else { return false }
        step = (high - low) / (count + 1)
        start = low + step
      }
      for (offset, key) in pending.enumerated() {
        byKey[key] = start + Int64(offset) * step
        changed.insert(key)
      }
      return true
    }
    for record in records {
      if !reassigning.contains(record.key), let position = byKey[record.key] {
        guard previous.map({ position > $0 }) ?? true, flush(before: position) else {
          return renumber(records)
        }
        previous = position
      } else {
        pending.append(record.key)
      }
    }
    guard flush(before: nil) else { return renumber(records) }
    updateBounds(records)
    return changed
  }

  /// Numbers every record afresh, ``spacing`` apart; returns every key.
  private mutating func renumber(_ records: Records) -> Set<Key> {
    var position: Int64 = 0
    for record in records {
      position += Self.spacing
      byKey[record.key] = position
    }
    updateBounds(records)
    return Set(records.map(\.key))
  }

  private mutating func updateBounds(_ records: Records) {
    guard let first = records.first.flatMap({ byKey[$0.key] }),
      let last = records.last.flatMap({ byKey[$0.key] })
    else {
      bounds = nil
      return
    }
    bounds = (first, last)
  }

  /// Where a record at `position` goes in `records` (ordered by position): after every
  /// record at a lower position.
  func insertionIndex(of position: Int64, in records: Records) -> Int {
    var low = 0
    var high = records.count
    while low < high {
      let middle = (low + high) / 2
      if (byKey[records[middle].key] ?? .min) < position { low = middle + 1 } else { high = middle }
    }
    return low
  }
}
