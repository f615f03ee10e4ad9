package import DocumentBookmarks

extension StoreCore {
  /// Removes the records with `keys`; returns those removed. Keys without a record are
  /// ignored; removing nothing writes nothing.
  @discardableResult
  package func forget(_ keys: [Key]) throws(Failure) -> [Record] {
    // A few keys are looked up where they are; many, in one pass over the records.
    guard keys.count <= 8 else {
      let set = Set(keys)
      return try forget { set.contains($0.key) }
    }
    var removed: [Record] = []
    try noting(scope: StoreScope<Key>(keys: keys)) {
      (contents: inout Contents, _: inout [Eviction]) throws(Failure) -> Edit? in
      var edit = Edit()
      let positions = Set(keys.compactMap { contents.index(of: $0) }).sorted(by: >)
      removed = positions.reversed().map { contents.records[$0] }
      for position in positions { contents.records.remove(at: position) }
      for record in removed { edit.remove(record) }
      return edit
    }
    return removed
  }

  /// Rewrites the store file without its free space and writes its last good copy
  /// (``BookmarkStore/compact()``).
  package func compact() throws(Failure) {
    try file.compact()
  }

  /// The store as JSON (docs/format.md, "Store files"): the envelope docbm 0.1 kept on
  /// disk, for reading, comparing and keeping a copy.
  package func exportJSON() throws(Failure) -> [UInt8] {
    let contents = try file.export()
    do {
      return Array(try StoreFormat<Key, Metadata>.encode(contents))
    } catch {
      throw .corrupt(path: file.path, reason: "its records cannot be encoded as JSON: \(error)")
    }
  }

  /// Removes, in one save, every record `matches` picks; returns them.
  @discardableResult
  package func forget(where matches: (Record) -> Bool) throws(Failure) -> [Record] {
    var removed: [Record] = []
    try noting { (contents: inout Contents, _: inout [Eviction]) throws(Failure) -> Edit? in
      var edit = Edit()
      removed = contents.records.filter(matches)
      guard !removed.isEmpty else { return edit }
      contents.records.removeAll(where: matches)
      for record in removed { edit.remove(record) }
      return edit
    }
    return removed
  }

  /// Changes one record; throws `notFound` when no record has `key`. `edit` changes the
  /// contents at the record's position and notes what it did; `scoped`: it reads no other
  /// record and moves the record only to the front (``noting(scope:_:)``).
  func edit(
    _ key: Key, scoped: Bool = true, _ edit: (inout Contents, Int, inout Edit) -> Void
  ) throws(Failure) -> Record {
    var result: Record?
    try noting(scope: scoped ? StoreScope<Key>(keys: [key]) : nil) {
      (contents: inout Contents, _: inout [Eviction]) throws(Failure) -> Edit? in
      guard let index = contents.index(of: key) else { throw .notFound(key) }
      var noted = Edit()
      edit(&contents, index, &noted)
      result = contents[key]
      return noted
    }
    guard let result else { throw .notFound(key) }
    return result
  }

  /// Changes the record with `key` in place; a change that leaves it as it was writes
  /// nothing.
  private func editRecord(_ key: Key, _ change: (inout Record) -> Void) throws(Failure) -> Record {
    try edit(key) { contents, index, edit in
      let old = contents.records[index]
      change(&contents.records[index])
      if contents.records[index] != old { edit.put(contents.records[index], isNew: false) }
    }
  }

  @discardableResult
  package func setPinned(_ key: Key, _ isPinned: Bool) throws(Failure) -> Record {
    try editRecord(key) { $0.isPinned = isPinned }
  }

  /// Records `path` as the record's last known path; see
  /// ``BookmarkStore/updateLastKnownPath(_:to:)``.
  @discardableResult
  package func updateLastKnownPath(_ key: Key, to path: FilePath) throws(Failure) -> Record {
    let path = path.absolute.lexicallyNormalized
    let volume = Self.volumeHint(near: path)
    return try editRecord(key) { record in
      record.lastKnownPath = path
      // A path-only record is judged offline or gone by the disk its path is on.
      if !record.hasBookmark { record.volume = volume }
    }
  }

  @discardableResult
  package func markUsed(_ key: Key) throws(Failure) -> Record {
    let now = clock()
    return try edit(key) { contents, _, edit in markUsed(key, in: &contents, edit: &edit, at: now) }
  }

  @discardableResult
  package func updateMetadata(_ key: Key, _ metadata: Metadata) throws(Failure) -> Record {
    try editRecord(key) { $0.metadata = metadata }
  }

  /// Moves the record to `position` (clamped to the store's bounds).
  @discardableResult
  package func move(_ key: Key, to position: Int) throws(Failure) -> Record {
    try edit(key, scoped: false) { contents, index, edit in
      let target = min(max(position, 0), contents.records.count - 1)
      contents.records.move(from: index, to: target)
      if target != index { edit.move(key, to: target, reordersKept: true) }
    }
  }

  /// The key of the record holding the file or folder at `path`: by identity first (so a
  /// renamed target is found), then by path. Reads `path` once; never resolves.
  package func key(matching path: FilePath) throws(Failure) -> Key? {
    try loadIfNeeded()
    let records = snapshot.records
    // A path that cannot be read is matched by path alone, the second way documented.
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
