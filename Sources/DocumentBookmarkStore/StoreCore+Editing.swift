package import DocumentBookmarks

extension StoreCore {
  /// Removes the records with `keys`; returns those removed. Keys without a record are
  /// ignored; removing nothing writes nothing.
  @discardableResult
  package func forget(_ keys: [Key]) throws(Failure) -> [Record] {
    let set = Set(keys)
    return try forget { set.contains($0.key) }
  }

  /// Writes the store file whole with its journal folded in (``BookmarkStore/compact()``).
  package func compact() throws(Failure) {
    try file.compact()
  }

  /// Removes, in one save, every record `matches` picks; returns them.
  @discardableResult
  package func forget(where matches: (Record) -> Bool) throws(Failure) -> [Record] {
    var removed: [Record] = []
    try change { (contents: inout Contents, _: inout [Eviction]) throws(Failure) in
      removed = contents.records.filter(matches)
      contents.records.removeAll(where: matches)
    }
    return removed
  }

  /// Changes one record; throws `notFound` when no record has `key`.
  func edit(_ key: Key, _ edit: (inout Contents, Int) -> Void) throws(Failure) -> Record {
    var result: Record?
    try change { (contents: inout Contents, _: inout [Eviction]) throws(Failure) in
      guard let index = contents.index(of: key) else { throw .notFound(key) }
      edit(&contents, index)
      result = contents[key]
    }
    guard let result else { throw .notFound(key) }
    return result
  }

  @discardableResult
  package func setPinned(_ key: Key, _ isPinned: Bool) throws(Failure) -> Record {
    try edit(key) { contents, index in contents.records[index].isPinned = isPinned }
  }

  @discardableResult
  package func markUsed(_ key: Key) throws(Failure) -> Record {
    let now = clock()
    return try edit(key) { contents, _ in markUsed(key, in: &contents, at: now) }
  }

  @discardableResult
  package func updateMetadata(_ key: Key, _ metadata: Metadata) throws(Failure) -> Record {
    try edit(key) { contents, index in contents.records[index].metadata = metadata }
  }

  /// Moves the record to `position` (clamped to the store's bounds).
  @discardableResult
  package func move(_ key: Key, to position: Int) throws(Failure) -> Record {
    try edit(key) { contents, index in
      let record = contents.records.remove(at: index)
      contents.records.insert(record, at: min(max(position, 0), contents.records.count))
    }
  }

  /// The key of the record holding the file or folder at `path`: by identity first (so a
  /// renamed target is found), then by path. Reads `path` once; never resolves.
  package func key(matching path: FilePath) throws(Failure) -> Key? {
    try loadIfNeeded()
    let records = snapshot.records
    if let target = try? TargetSnapshot.read(path) {
      if let match = records.first(where: {
        $0.identity != nil
          && TargetMatch.isSame(
            ($0.identity, $0.volume, $0.lastKnownPath), (target.identity, target.volume, target.path))
      }) {
        return match.key
      }
      if let match = records.first(where: { $0.lastKnownPath == target.path }) { return match.key }
    }
    let normalized = path.absolute.lexicallyNormalized
    return records.first { $0.lastKnownPath == normalized }?.key
  }
}
