package import DocumentBookmarks
import FoundationEssentials
import Synchronization

/// The store's work, synchronous: every call may block on the file system (the lock, the
/// store file, resolutions). ``BookmarkStore`` runs these on docbm's own threads; the
/// `docbm store` command calls them directly.
package final class StoreCore<Key: Hashable & Sendable & Codable, Metadata: Sendable & Codable & Equatable>:
  Sendable
{
  package typealias Record = StoreRecord<Key, Metadata>
  package typealias Failure = BookmarkStoreError<Key>
  typealias Contents = StoreContents<Key, Metadata>
  package typealias Eviction = StoreEviction<Key, Metadata>
  typealias Edit = StoreEdit<Key, Metadata>

  let file: StoreFile<Key, Metadata>
  let policy: StorePolicy
  let clock: @Sendable () -> Timestamp

  /// What this process last saw of the store, and who listens.
  struct State {
    var records = StoreRecordList<Key, Metadata>()
    /// `records` as one array, made when a snapshot is first asked for.
    var recordArray: [Record]?
    var isLoaded = false
    var updateListeners: [UInt64: UpdateListener] = [:]
    var evictionListeners: [UInt64: AsyncStream<Eviction>.Continuation] = [:]
    var keyRepairListeners: [UInt64: AsyncStream<StoreKeyRepair>.Continuation] = [:]
    /// The repairs of the store file's key this store made.
    var keyRepairs: [StoreKeyRepair] = []
    var nextListener: UInt64 = 0

    var hasListeners: Bool { !updateListeners.isEmpty || !evictionListeners.isEmpty }

    /// The records as one array, made once per version.
    mutating func snapshotRecords() -> [Record] {
      if let recordArray { return recordArray }
      let all = records.elements
      recordArray = all
      return all
    }
  }
  let state = Mutex(State())

  /// Who hears of the records' changes: a stream of ``updates()``, or a call made under
  /// the store's lock (``listen(_:)``).
  struct UpdateListener: Sendable {
    let deliver: @Sendable (StoreUpdate<Key, Metadata>) -> Void
    /// Ends a stream; a call has nothing to end.
    let finish: @Sendable () -> Void
  }

  /// How many resolutions this store has run (shared ones count once).
  let resolutions = Atomic<Int>(0)
  package var resolutionCount: Int { resolutions.load(ordering: .relaxed) }

  /// Whether a change to some records reads and writes only those, leaving this process
  /// without a copy of the store (``noting(scope:_:)``): for a process that makes a change
  /// or two and exits, such as the command line.
  let changesInPlace: Bool

  package init(
    file path: FilePath, policy: StorePolicy, service: BookmarkService, changesInPlace: Bool = false,
    clock: @escaping @Sendable () -> Timestamp = { .now }
  ) {
    file = StoreFile(path: path, service: service)
    self.policy = policy
    self.changesInPlace = changesInPlace
    self.clock = clock
  }

  /// The store file's path (absolute).
  package var path: FilePath { file.path }

  /// The records as last seen.
  package var snapshot: StoreSnapshot<Key, Metadata> {
    state.withLock { StoreSnapshot(records: $0.snapshotRecords(), isLoaded: $0.isLoaded) }
  }

  // MARK: Reading

  /// Reads the store file (restoring the last good copy when it is damaged) and makes it
  /// what this process sees; listeners hear what changed since. Returns the records.
  @discardableResult
  package func load() throws(Failure) -> [Record] {
    try reload()
    return snapshot.records
  }

  /// ``load()`` without making the list of records it returns: for a process that follows
  /// other processes' changes and only needs its listeners told.
  package func reload() throws(Failure) {
    if !FileManager.default.fileExists(atPath: file.path.description) {
      // No store yet: nothing to lock, and no folder is made just to read.
      publish(try file.read(), evicted: [])
      return
    }
    do {
      try file.reload { (read: StoreFile.Published) in
        publish(read.after, evicted: [], after: read.before, changed: read.changed, catchUp: read.catchUp)
      }
    } catch .docbm(let error)
      where error.code == .readOnlyFilesystem || error.code == .permissionDenied
      || (error.code == .unsupportedFileType && error.path == file.lockPath)
    {
      // A store one may read but not change (a read-only disk, a 0.1 store whose lock
      // file is not a file): read it as it is. Every change is one transaction, so the
      // read sees one version.
      publish(try file.readUnchanging(), evicted: [])
    }
  }

  /// Loads when this process has not read the store yet.
  func loadIfNeeded() throws(Failure) {
    if !state.withLock({ $0.isLoaded }) { try load() }
  }

  // MARK: Changing

  /// Applies `change` to the store file's current contents under its lock, saves when
  /// something changed, and publishes the result (with the evictions `change` reports).
  func change(_ change: (inout Contents, inout [Eviction]) throws(Failure) -> Void) throws(Failure) {
    try noting { (contents: inout Contents, evicted: inout [Eviction]) throws(Failure) -> Edit? in
      try change(&contents, &evicted)
      return nil
    }
  }

  /// ``change(_:)`` for a change that says what it did (``StoreEdit``): saved and published
  /// without comparing the records before and after.
  ///
  /// `scope`: the records the change reads, when it reads no other and moves records only
  /// to the front. With ``changesInPlace``, while this process holds no copy of the store
  /// and nobody listens, only those records are read and written, so that a change costs
  /// the same in a store of any size.
  func noting(
    scope: StoreScope<Key>? = nil, _ change: (inout Contents, inout [Eviction]) throws(Failure) -> Edit?
  ) throws(Failure) {
    var evicted: [Eviction] = []
    if changesInPlace, let scope, policy.limit == nil, !state.withLock({ $0.isLoaded || $0.hasListeners }) {
      try file.update(records: scope.keys, targets: scope.targets) {
        (contents: inout Contents) throws(Failure) -> Edit in
        evicted = []
        return try change(&contents, &evicted) ?? Edit()
      }
      return
    }
    try file.update(
      { (contents: inout Contents) throws(Failure) -> Edit? in
        evicted = []
        return try change(&contents, &evicted)
      },
      publish: { (change: StoreFile.Published) in
        publish(
          change.after, evicted: evicted, after: change.before, changed: change.changed, edit: change.edit,
          catchUp: change.catchUp)
      })
  }

  /// The records with `keys` that the store has: from this process's copy when it holds
  /// one, else read alone from the store file.
  package func records(withKeys keys: [Key]) throws(Failure) -> [Record] {
    if state.withLock({ $0.isLoaded }) {
      let snapshot = snapshot
      return keys.compactMap { snapshot[$0] }
    }
    return try file.records(withKeys: keys)
  }

  /// Makes `contents` what this process sees and tells listeners: the changes since the
  /// last version seen, then the evictions. Runs under the store file's lock, so versions
  /// are published in the order they were saved.
  ///
  /// `before`, `changed` and `edit`: the version `contents` was made from and what the
  /// change did (the positions of the records changed in place, or the edit it returned);
  /// `catchUp`: how `before` was made from an earlier version with another process's rows.
  /// When this process last saw `before`, or the version the catch-up was made from, the
  /// changes are those, without comparing the rest of the records again.
  func publish(
    _ contents: Contents, evicted: [Eviction], after before: Contents? = nil, changed: [Int]? = nil,
    edit: Edit? = nil, catchUp: StoreCatchUp<Key, Metadata>? = nil
  ) {
    state.withLock { state in
      let changes: [StoreChange<Key, Metadata>]
      let records = contents.records
      // The new version as one array, when comparing whole lists made it anyway.
      var recordArray: [Record]?
      // What turns the records listeners last heard into `before`, when it is known.
      var toBefore: [StoreChange<Key, Metadata>]?
      if let before, !state.updateListeners.isEmpty {
        if state.records.isSameVersion(as: before.records) {
          toBefore = []
        } else if let catchUp, catchUp.from.isSameVersion(as: state.records) {
          toBefore = catchUp.storeChanges(after: before.records)
        }
      }
      if state.updateListeners.isEmpty {
        // Nobody to tell what changed.
        changes = []
      } else if let toBefore, let edit {
        changes = toBefore + edit.storeChanges(after: records)
      } else if let toBefore, let changed {
        changes = toBefore + changed.map { .updated(records[$0]) }
      } else {
        let array = records.elements
        changes = Self.changes(from: state.snapshotRecords(), to: array)
        recordArray = array
      }
      state.records = records
      state.recordArray = recordArray
      state.isLoaded = true
      if !changes.isEmpty {
        for listener in state.updateListeners.values { listener.deliver(.changes(changes)) }
      }
      for eviction in evicted {
        for listener in state.evictionListeners.values { listener.yield(eviction) }
      }
    }
  }

  /// What turns `old` into `new`: added, updated and removed records, and the new order
  /// when the records both hold changed places.
  static func changes(from old: [Record], to new: [Record]) -> [StoreChange<Key, Metadata>] {
    // The common case, a change to some records in place: the same keys in the same order,
    // compared pairwise where they lie.
    if let changed = Contents.changedPositions(from: old, to: new) {
      return changed.map { .updated(new[$0]) }
    }
    var changes: [StoreChange<Key, Metadata>] = []
    let oldByKey = Dictionary(old.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
    let newKeys = Set(new.map(\.key))
    for record in old where !newKeys.contains(record.key) { changes.append(.removed(record)) }
    for record in new {
      if let previous = oldByKey[record.key] {
        if previous != record { changes.append(.updated(record)) }
      } else {
        changes.append(.added(record))
      }
    }
    if let order = StoreCatchUp<Key, Metadata>.newOrder(from: old, to: new) {
      changes.append(.reordered(order))
    }
    return changes
  }

  // MARK: Listening

  package func updates() -> AsyncStream<StoreUpdate<Key, Metadata>> {
    let (stream, continuation) = AsyncStream<StoreUpdate<Key, Metadata>>.makeStream(
      bufferingPolicy: .unbounded)
    let id = state.withLock { state in
      let id = state.nextListener
      state.nextListener += 1
      continuation.yield(.snapshot(state.snapshotRecords()))
      state.updateListeners[id] = UpdateListener(
        deliver: { continuation.yield($0) }, finish: { continuation.finish() })
      return id
    }
    continuation.onTermination = { [weak self] _ in self?.stopListening(id) }
    return stream
  }

  /// Calls `deliver` with each change of the records from now on (not the records as
  /// they are), on the thread that made or loaded it, under the store's lock: it must
  /// return at once and call nothing of the store. Returns the number that
  /// ``stopListening(_:)`` takes.
  package func listen(_ deliver: @escaping @Sendable (StoreUpdate<Key, Metadata>) -> Void) -> UInt64 {
    state.withLock { state in
      let id = state.nextListener
      state.nextListener += 1
      state.updateListeners[id] = UpdateListener(deliver: deliver, finish: {})
      return id
    }
  }

  /// Stops the listener `id` of ``updates()`` or ``listen(_:)``.
  package func stopListening(_ id: UInt64) {
    _ = state.withLock { $0.updateListeners.removeValue(forKey: id) }
  }

  package func evictions() -> AsyncStream<Eviction> {
    let (stream, continuation) = AsyncStream<Eviction>.makeStream(bufferingPolicy: .unbounded)
    let id = state.withLock { state in
      let id = state.nextListener
      state.nextListener += 1
      state.evictionListeners[id] = continuation
      return id
    }
    continuation.onTermination = { [weak self] _ in
      _ = self?.state.withLock { $0.evictionListeners.removeValue(forKey: id) }
    }
    return stream
  }

  package func keyRepairs() -> AsyncStream<StoreKeyRepair> {
    let (stream, continuation) = AsyncStream<StoreKeyRepair>.makeStream(bufferingPolicy: .unbounded)
    let id = state.withLock { state in
      let id = state.nextListener
      state.nextListener += 1
      for repair in state.keyRepairs { continuation.yield(repair) }
      state.keyRepairListeners[id] = continuation
      return id
    }
    continuation.onTermination = { [weak self] _ in
      _ = self?.state.withLock { $0.keyRepairListeners.removeValue(forKey: id) }
    }
    return stream
  }

  /// The repairs of the store file's key this store has made, oldest first.
  package var keyRepairsMade: [StoreKeyRepair] { state.withLock { $0.keyRepairs } }

  /// Keeps `repair` and tells its listeners.
  func publish(_ repair: StoreKeyRepair) {
    state.withLock { state in
      state.keyRepairs.append(repair)
      for listener in state.keyRepairListeners.values { listener.yield(repair) }
    }
  }

  /// Ends every stream (the store is going away).
  func finishListeners() {
    let (updates, evictions, repairs) = state.withLock { state in
      defer {
        state.updateListeners = [:]
        state.evictionListeners = [:]
        state.keyRepairListeners = [:]
      }
      return (
        Array(state.updateListeners.values), Array(state.evictionListeners.values),
        Array(state.keyRepairListeners.values)
      )
    }
    updates.forEach { $0.finish() }
    evictions.forEach { $0.finish() }
    repairs.forEach { $0.finish() }
  }
}
