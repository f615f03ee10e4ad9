import DocbmSystem
package import DocumentBookmarks

extension StoreCore {
  /// Bookmarks `target` (a file or folder) and adds it under `key`; see
  /// ``BookmarkStore/add(target:key:metadata:)``.
  package func add(target: FilePath, key: Key, metadata: Metadata) throws(Failure) -> Record {
    try insert(bookmarked(target, key: key, metadata: metadata, createdAt: clock()))
  }

  /// A new record of `target`, validated and bookmarked on the store file (made if it is
  /// not there yet), with the record's other fields as given.
  private func bookmarked(
    _ target: FilePath, key: Key, metadata: Metadata, createdAt: Timestamp, isPinned: Bool = false,
    lastUsedAt: Timestamp? = nil
  ) throws(Failure) -> Record {
    let judged = try validate(target)
    try file.createIfMissing()
    let document = try anchor()
    let bookmark: Bookmark
    let contents: BookmarkContents
    do {
      bookmark = try document.makeBookmark(to: target)
      contents = try bookmark.decodeUnverified()
    } catch {
      throw .docbm(error)
    }
    try confirm(contents, judged: judged)
    return Record(
      key: key, bookmark: bookmark, lastKnownPath: contents.absolutePath, identity: contents.identity,
      volume: contents.volume, status: .available, createdAt: createdAt, isPinned: isPinned,
      metadata: metadata,
      lastUsedAt: lastUsedAt)
  }

  /// Bookmarks each target and adds them all in one save; see
  /// ``BookmarkStore/add(targets:)``. A target that cannot be bookmarked fails the whole
  /// call before anything is saved.
  package func add(targets: [(target: FilePath, key: Key, metadata: Metadata)]) throws(Failure) -> [Record] {
    var judged: [Judged?] = []
    for (target, _, _) in targets { judged.append(try validate(target)) }
    try file.createIfMissing()
    let document = try anchor()
    var records: [Record] = []
    records.reserveCapacity(targets.count)
    let now = clock()
    for ((target, key, metadata), judged) in zip(targets, judged) {
      let bookmark: Bookmark
      let contents: BookmarkContents
      do throws(DocbmError) {
        bookmark = try document.makeBookmark(to: target)
        contents = try bookmark.decodeUnverified()
      } catch {
        throw .docbm(error)
      }
      try confirm(contents, judged: judged)
      records.append(
        Record(
          key: key, bookmark: bookmark, lastKnownPath: contents.absolutePath, identity: contents.identity,
          volume: contents.volume, status: .available, createdAt: now, metadata: metadata))
    }
    return try insert(records)
  }

  /// Adds a bookmark already made on the store file; see ``BookmarkStore/add(bookmark:key:metadata:)``.
  package func add(bookmark: Bookmark, key: Key, metadata: Metadata) throws(Failure) -> Record {
    let document = try anchor()
    let contents: BookmarkContents
    do throws(DocbmError) {
      guard let fingerprint = try document.keyFingerprint(), fingerprint == bookmark.keyFingerprint
      else {
        throw DocbmError(
          .keyMismatch, path: file.path,
          message: "the bookmark was not made on the store file \(file.path), so the store cannot resolve it",
          recommendation: .pickAgain)
      }
      contents = try bookmark.decodeUnverified()
    } catch {
      throw .docbm(error)
    }
    try confirm(contents, judged: try validate(contents.absolutePath))
    let record = Record(
      key: key, bookmark: bookmark, lastKnownPath: contents.absolutePath, identity: contents.identity,
      volume: contents.volume, status: .unknown, createdAt: clock(), metadata: metadata)
    return try insert(record)
  }

  /// Adds another store's `record` anew, its target found at `target` (`nil`: a path-only
  /// record, copied as one): bookmarked on this store's file, with the record's key,
  /// metadata, pin and dates; see ``BookmarkStore/add(copyOf:from:)``.
  package func add(copyOf record: Record, at target: FilePath?) throws(Failure) -> Record {
    guard let target else {
      let copy = Record(
        key: record.key, bookmark: nil, lastKnownPath: record.lastKnownPath, identity: nil,
        volume: record.volume, status: .unknown, createdAt: record.createdAt, isPinned: record.isPinned,
        metadata: record.metadata, lastUsedAt: record.lastUsedAt)
      return try insert(copy)
    }
    return try insert(
      bookmarked(
        target, key: record.key, metadata: record.metadata, createdAt: record.createdAt,
        isPinned: record.isPinned, lastUsedAt: record.lastUsedAt))
  }

  /// Adds a path without a bookmark yet; see ``BookmarkStore/add(pathOnly:key:metadata:)``.
  package func add(pathOnly path: FilePath, key: Key, metadata: Metadata) throws(Failure) -> Record {
    let record = Record(
      key: key, bookmark: nil, lastKnownPath: path.absolute.lexicallyNormalized, identity: nil,
      volume: Self.volumeHint(near: path), status: .unknown, createdAt: clock(), metadata: metadata)
    return try insert(record)
  }

  /// What the validators judged: the object at `path` (every link resolved), by its inode
  /// and kind.
  struct Judged {
    let path: FilePath
    let inode: UInt64
    let kind: TargetKind
  }

  /// Runs the policy's validators on `target`; throws the first refusal. Returns what was
  /// judged, or `nil` when the policy has no validators or the target cannot be looked at
  /// (left for bookmarking to report; ``confirm(_:judged:)`` then judges what was
  /// bookmarked).
  private func validate(_ target: FilePath) throws(Failure) -> Judged? {
    // A target that cannot be looked at is left for bookmarking to report, as documented.
    guard !policy.validators.isEmpty, let resolved = try? SymbolicLink.canonicalPath(target),
      let status = try? FileStatus.of(resolved, followSymlinks: false)
    else { return nil }
    let kind: TargetKind
    switch status.kind {
    case .directory: kind = .folder
    case .regular: kind = .file
    default: return nil
    }
    try loadIfNeeded()
    let candidate = StoreValidator.Candidate(
      path: target.absolute.lexicallyNormalized, resolvedPath: resolved, kind: kind,
      // Resolved just above: a path gone since is refused by ``confirm(_:judged:)``.
      isSymbolicLink: (try? FileStatus.of(target, followSymlinks: false))?.kind == .symbolicLink,
      storedPaths: snapshot.records.map(\.lastKnownPath))
    for validator in policy.validators {
      if let reason = validator.judge(candidate) {
        throw .refused(validator: validator.name, path: candidate.path, reason: reason)
      }
    }
    return Judged(path: resolved, inode: status.inode, kind: kind)
  }

  /// Checks that a bookmark made after the validators ran records the object they judged:
  /// the same real path, inode and kind. A path swapped in between (a folder replaced by a
  /// link to `/`) makes the bookmark record another object, which is refused as
  /// ``StoreValidator/sameTarget``. When nothing could be judged before, what the bookmark
  /// records is judged now, and must still be there.
  private func confirm(_ contents: BookmarkContents, judged: Judged?) throws(Failure) {
    guard !policy.validators.isEmpty else { return }
    var judged = judged
    if judged == nil { judged = try validate(contents.absolutePath) }
    guard let judged, judged.path == contents.absolutePath, judged.inode == contents.identity.inode,
      judged.kind == contents.kind
    else {
      let what = judged.map { "\($0.path)" } ?? "nothing that could be judged"
      throw .refused(
        validator: StoreValidator.sameTarget, path: contents.absolutePath,
        reason:
          "it changed while it was being added: the validators judged \(what), and the bookmark records \(contents.absolutePath); nothing was added"
      )
    }
  }

  /// The filesystem of the nearest existing folder above `path`: what tells, later, a path
  /// on a disk that is no longer mounted from one that is gone.
  static func volumeHint(near path: FilePath) -> VolumeHint? {
    var folder = path.absolute.lexicallyNormalized.removingLastComponent
    for _ in 0..<64 {
      // A hint: a folder that cannot be read passes the question to the one above.
      if let snapshot = try? TargetSnapshot.read(folder) { return snapshot.volume }
      if folder.isRoot { break }
      folder = folder.removingLastComponent
    }
    return nil
  }

  /// Puts `record` in the store, following the policy for duplicates, order and limit.
  private func insert(_ new: Record) throws(Failure) -> Record {
    try insert([new])[0]
  }

  /// Puts `records` in the store in one save, each as ``insert(_:)`` would.
  private func insert(_ records: [Record]) throws(Failure) -> [Record] {
    var results: [Record] = []
    let now = clock()
    let scope = StoreScope<Key>(
      keys: records.map(\.key), targets: records.map { ($0.identity?.inode, $0.lastKnownPath) })
    try noting(scope: scope) {
      (contents: inout Contents, evicted: inout [Eviction]) throws(Failure) -> Edit? in
      results = []
      var edit = Edit()
      var index = TargetIndex()
      for new in records {
        results.append(
          try insert(new, into: &contents, index: &index, evicted: &evicted, edit: &edit, at: now))
      }
      return edit
    }
    return results
  }

  /// The store's records by key, inode and path, so that adding many records does not
  /// search all of them for each. The tables are made when a second record is looked up:
  /// adding one record looks in the contents' own list (one pass over its summaries), not
  /// in tables made for it.
  struct TargetIndex {
    private var isBuilt = false
    /// The key of the one record looked up before the tables were made.
    private var lookedUp: Key?
    private var keys: Set<Key> = []
    private var byInode: [UInt64: [Key]] = [:]
    private var byPath: [FilePath: [Key]] = [:]

    mutating func insert(_ record: Record) {
      if isBuilt { add(record) }
    }

    mutating func remove(_ key: Key) {
      if isBuilt { keys.remove(key) }
    }

    /// Whether a record of `contents` has `key`.
    mutating func contains(_ key: Key, in contents: Contents) -> Bool {
      guard usesTables(for: key, in: contents) else { return contents.index(of: key) != nil }
      return keys.contains(key)
    }

    /// Keys of records of `contents` that may hold the same target as `record` (to be
    /// confirmed).
    mutating func candidates(for record: Record, in contents: Contents) -> [Key] {
      guard usesTables(for: record.key, in: contents) else {
        return contents.records.positions(withInode: record.inode, orPath: record.lastKnownPath).map {
          contents.records[$0].key
        }
      }
      let byIdentity = record.identity.map { byInode[$0.inode] ?? [] } ?? []
      return (byIdentity + (byPath[record.lastKnownPath] ?? [])).filter { keys.contains($0) }
    }

    /// Whether look-ups for `key` go through the tables, made now from `contents` if need
    /// be: from the second record looked up on.
    private mutating func usesTables(for key: Key, in contents: Contents) -> Bool {
      guard !isBuilt else { return true }
      if lookedUp == nil || lookedUp == key {
        lookedUp = key
        return false
      }
      for record in contents.records { add(record) }
      isBuilt = true
      return true
    }

    private mutating func add(_ record: Record) {
      keys.insert(record.key)
      if let identity = record.identity { byInode[identity.inode, default: []].append(record.key) }
      byPath[record.lastKnownPath, default: []].append(record.key)
    }
  }

  /// One record into `contents`: the same key again replaces its target, a duplicate
  /// follows the policy, a new record goes where the ordering says, then eviction; each
  /// noted in `edit`.
  private func insert(
    _ new: Record, into contents: inout Contents, index targets: inout TargetIndex, evicted: inout [Eviction],
    edit: inout Edit, at now: Timestamp
  ) throws(Failure) -> Record {
    if targets.contains(new.key, in: contents), let index = contents.index(of: new.key) {
      // The same key again: a new target for it, keeping what the app set on the record.
      var record = new
      let old = contents.records[index]
      record.isPinned = old.isPinned
      record.createdAt = old.createdAt
      record.lastUsedAt = old.lastUsedAt
      record.unknownMembers = old.unknownMembers
      contents.records[index] = record
      edit.put(record, isNew: false)
      promote(new.key, in: &contents, edit: &edit)
      return record
    }
    let candidates =
      policy.duplicates == .allow
      ? [] : targets.candidates(for: new, in: contents).compactMap { contents[$0] }
    if let existing = candidates.first(where: {
      TargetMatch.isSame(
        ($0.identity, $0.volume, $0.lastKnownPath), (new.identity, new.volume, new.lastKnownPath))
    }) {
      if policy.duplicates == .reject { throw .duplicate(of: existing.key) }
      markUsed(existing.key, in: &contents, edit: &edit, at: now)
      return contents[existing.key] ?? existing
    }
    edit.put(new, isNew: true)
    switch policy.ordering {
    case .insertion: contents.records.append(new)
    case .mostRecentlyUsed:
      contents.records.insert(new, at: 0)
      edit.move(new.key, to: 0, reordersKept: false)
    }
    targets.insert(new)
    let before = evicted.count
    evict(from: &contents, sparing: new.key, into: &evicted)
    for eviction in evicted[before...] {
      targets.remove(eviction.record.key)
      edit.remove(eviction.record)
    }
    return new
  }

  /// Moves the record to the front of a most-recently-used store.
  func promote(_ key: Key, in contents: inout Contents, edit: inout Edit) {
    guard policy.ordering == .mostRecentlyUsed, let index = contents.index(of: key),
      index > 0 || contents.isPartial
    else { return }
    contents.records.move(from: index, to: 0)
    edit.move(key, to: 0, reordersKept: true)
  }

  /// Notes a use: the last-use date, and the front of a most-recently-used store.
  func markUsed(_ key: Key, in contents: inout Contents, edit: inout Edit, at now: Timestamp) {
    guard let index = contents.index(of: key) else { return }
    contents.records[index].lastUsedAt = now
    edit.put(contents.records[index], isNew: false)
    promote(key, in: &contents, edit: &edit)
  }

  /// Removes records until the store is within its limit: never `key` (the record being
  /// added) nor a protected one, the first in the eviction policy's order first. Does no I/O.
  func evict(from contents: inout Contents, sparing key: Key, into evicted: inout [Eviction]) {
    guard let limit = policy.limit, contents.records.count > limit else { return }
    let trash = TrashFolders()
    let candidates = contents.records.enumerated().compactMap {
      position, record -> (Key, EvictionCandidate)? in
      guard record.key != key else { return nil }
      let candidate = EvictionCandidate(
        status: record.status, lastKnownPath: record.lastKnownPath, createdAt: record.createdAt,
        lastUsedAt: record.lastUsedAt, isPinned: record.isPinned, hasBookmark: record.hasBookmark,
        position: position, ordering: policy.ordering, isInTrash: trash.contains(record.lastKnownPath))
      return policy.eviction.protects(candidate) ? nil : (record.key, candidate)
    }
    let order = candidates.sorted { policy.eviction.evictsFirst($0.1, $1.1) }
    for (victim, _) in order.prefix(contents.records.count - limit) {
      guard let index = contents.index(of: victim) else { continue }
      evicted.append(StoreEviction(record: contents.records.remove(at: index), reason: .limit))
    }
  }
}
