import DocbmSystem
import DocumentBookmarks
import FoundationEssentials
import Synchronization

/// The store file on disk: an SQLite database (``StoreSchema``), one row per record, so
/// that a change to one record reads and writes that record, whatever the store's size.
///
/// Every change is one write transaction: it reads what changed since this process last
/// looked (the rows changed after the version it saw, and the keys removed since), applies
/// the change to that, and writes the rows it changed; SQLite's locks serialise the
/// processes and threads that change one store, so no change is lost, and its rollback
/// journal makes each change whole or absent after a crash. A killed writer's lock goes
/// with its descriptors.
///
/// From time to time (when the changes since the last copy reach a sixteenth of the file's
/// pages) a last good copy is written beside the store, with its key, to restore when the
/// store is found damaged.
struct StoreFile<Key: Hashable & Sendable & Codable, Metadata: Sendable & Codable & Equatable>: Sendable {
  typealias Contents = StoreContents<Key, Metadata>
  typealias Failure = BookmarkStoreError<Key>
  typealias Database = StoreDatabase<Key, Metadata>
  typealias Positions = StorePositions<Key, Metadata>
  typealias Change = StoreJournal<Key, Metadata>.Change

  /// The store file, absolute: the path given, with a symbolic link at its end followed
  /// once, here, so that the database's journal, the lock and the last good copy lie beside
  /// the file itself and every name of it is one store (a dotfile manager links single
  /// files).
  let path: FilePath
  let service: BookmarkService
  /// This process's hold on the store: its connection and what it last saw, behind one
  /// lock (a connection is used by one thread at a time).
  private let held = Held()

  final class Held: Sendable {
    let state = Mutex(State())
  }

  /// The connection, and the version of the store last read or written through it.
  struct State: ~Copyable {
    var database: Database?
    var seen: Seen?
  }

  /// A version of the whole store as this process holds it; `catchUp` when it was made
  /// from the version before by another process's rows.
  struct Seen {
    var stamp: Database.Stamp
    var contents: Contents
    var positions: Positions
    var catchUp: StoreCatchUp<Key, Metadata>? = nil
  }

  /// What a read or a change gives its `publish` after the commit: the contents it was
  /// made from and after it, what changed (the positions of the records changed in place,
  /// or the ``StoreEdit`` the change returned), and the catch-up that made `before` from
  /// the version this process saw earlier, when there was one.
  struct Published {
    var before: Contents
    var after: Contents
    var changed: [Int]?
    var edit: StoreEdit<Key, Metadata>?
    var catchUp: StoreCatchUp<Key, Metadata>?
  }

  init(path: FilePath, service: BookmarkService) {
    // A path that cannot be resolved is used as given: opening it reports why.
    self.path = (try? SymbolicLink.followingFinalLinks(path)) ?? path.absolute.lexicallyNormalized
    self.service = service
  }

  /// The store file as a document: what its bookmarks are anchored on.
  var document: AnchoredDocument { service.documents(anchoredOn: path) }
  /// `<store>.lock`: taken while the store file is made or migrated from JSON, as docbm
  /// 0.1 took it for every change.
  var lockPath: FilePath { path.addingSuffix(".lock") }
  /// `<store>.last-good`: a recent copy of the store, with its key.
  var lastGoodPath: FilePath { path.addingSuffix(".last-good") }
  /// `<store>-journal`: SQLite's rollback journal, there while a change is being made.
  var databaseJournalPath: FilePath { path.addingSuffix("-journal") }

  /// What a read found: the contents and the version they are.
  struct Loaded {
    var contents: Contents
    var stamp: Database.Stamp?
  }

  // MARK: Reading

  /// Reads the whole store as it is; a store that does not exist reads as an empty one.
  ///
  /// - Throws: ``BookmarkStoreError`` `newerVersion`, `notAStore`, `corrupt` (damaged; a
  ///   change restores the last good copy), `untrusted`, `docbm` (`permissionDenied`,
  ///   `ioError`, …).
  func read() throws(Failure) -> Contents {
    try held.state.withLock { (state: inout State) throws(Failure) -> Contents in
      guard let database = try connection(&state) else { return Contents() }
      return try database.sqlite("reading") { () throws(SQLiteError) -> Contents in
        try database.connection.readTransaction { () throws(SQLiteError) -> Contents in
          try current(database, &state).contents
        }
      }
    }
  }

  /// The whole store as its JSON holds it (``StoreFormat``): the records in order, with
  /// the rows this version cannot read and the members of a migrated 0.1 file it does not
  /// know, read in one transaction.
  func export() throws(Failure) -> Contents {
    try held.state.withLock { (state: inout State) throws(Failure) -> Contents in
      guard let database = try connection(&state) else { return Contents() }
      return try database.sqlite("reading") { () throws(SQLiteError) -> Contents in
        try database.connection.readTransaction { () throws(SQLiteError) -> Contents in
          var contents = try current(database, &state).contents
          contents.unreadable = try database.unreadableRows()
          contents.unknownMembers = try database.unknownMembers()
          return contents
        }
      }
    }
  }

  /// ``read()`` where the store cannot be changed: a 0.1 store that cannot be migrated
  /// here (a read-only disk) is read as its JSON.
  func readUnchanging() throws(Failure) -> Contents {
    do {
      return try read()
    } catch .docbm(let error)
      where error.code == .readOnlyFilesystem || error.code == .permissionDenied
      || error.code == .unsupportedFileType
    {
      guard case .json = try look() else { throw .docbm(error) }
      return try readLegacy()
    }
  }

  /// The records with `keys` (those the store has), read without reading the others.
  func records(withKeys keys: [Key]) throws(Failure) -> [StoreRecord<Key, Metadata>] {
    try held.state.withLock { (state: inout State) throws(Failure) -> [StoreRecord<Key, Metadata>] in
      guard let database = try connection(&state) else { return [] }
      return try database.records(withKeys: keys).map(\.record)
    }
  }

  /// The whole store at its current version: what this process saw, brought up to date
  /// with the rows changed since, or read whole. Inside a transaction.
  private func current(_ database: Database, _ state: inout State) throws(SQLiteError) -> Seen {
    let stamp = try database.stamp()
    if let seen = state.seen, seen.stamp.name == stamp.name {
      if seen.stamp.version == stamp.version { return seen }
      if seen.stamp.version < stamp.version, seen.stamp.version >= (try database.horizon()),
        let caught = try catchUp(seen, to: stamp, database)
      {
        state.seen = caught
        return caught
      }
    }
    let rows = try database.allRecords()
    var contents = Contents()
    contents.records = StoreRecordList(rows.map(\.record))
    let seen = Seen(
      stamp: stamp, contents: contents,
      positions: Positions(rows.map { ($0.record.key, $0.position) }, bounds: try database.positionBounds()))
    state.seen = seen
    return seen
  }

  /// `seen` with the rows changed after its version applied, or `nil` when more changed
  /// than 64 rows or an eighth of the records (the caller then reads the store whole).
  private func catchUp(_ seen: Seen, to stamp: Database.Stamp, _ database: Database) throws(SQLiteError)
    -> Seen?
  {
    let (put, removed) = try database.changes(since: seen.stamp.version)
    guard put.count + removed.count <= max(64, seen.contents.records.count / 8) else { return nil }
    var catchUp = StoreCatchUp(from: seen.contents.records)
    var seen = seen
    seen.stamp = stamp
    for key in removed {
      if let index = seen.contents.index(of: key) {
        catchUp.remove(seen.contents.records[index])
        seen.contents.records.remove(at: index)
      }
      seen.positions.note(key, at: nil)
    }
    for (record, position) in put {
      var previous: StoreRecord<Key, Metadata>?
      if let index = seen.contents.index(of: record.key) {
        previous = seen.contents.records[index]
        if seen.positions[record.key] == position {
          seen.contents.records[index] = record
          catchUp.put(record, replacing: previous, moved: false)
          continue
        }
        seen.contents.records.remove(at: index)
      }
      seen.positions.note(record.key, at: position)
      let index = seen.positions.insertionIndex(of: position, in: seen.contents.records)
      seen.contents.records.insert(record, at: index)
      catchUp.put(record, replacing: previous, moved: true)
    }
    seen.catchUp = catchUp
    return seen
  }

  /// Reads the store as it is now (restoring the last good copy when it is damaged) and
  /// runs `publish` with the contents now, as a change that changed nothing, with the
  /// catch-up that made them when there was one; still holding this process's hold on the
  /// store, so that versions are published in the order they were saved.
  func reload(publish: (Published) -> Void) throws(Failure) {
    var recovery = 0
    while true {
      do {
        return try held.state.withLock { (state: inout State) throws(Failure) in
          guard let database = try connection(&state) else {
            publish(Published(before: state.seen?.contents ?? Contents(), after: Contents()))
            return
          }
          let seen = try database.sqlite("reading") { () throws(SQLiteError) -> Seen in
            try database.connection.readTransaction { () throws(SQLiteError) -> Seen in
              try current(database, &state)
            }
          }
          publish(Published(before: seen.contents, after: seen.contents, changed: [], catchUp: seen.catchUp))
        }
      } catch .corrupt(_, let reason) {
        try recover(reason: reason, attempt: &recovery)
      }
    }
  }

  /// What is done when the store is found damaged, once each: the file is looked at
  /// afresh (it may have been written over in place, by a copy of a 0.1 store or a
  /// backup), then the last good copy is restored (``restoreLastGood(reason:)``); after
  /// that the error stands.
  private func recover(reason: String, attempt: inout Int) throws(Failure) {
    attempt += 1
    switch attempt {
    case 1:
      held.state.withLock {
        $0.database = nil
        $0.seen = nil
      }
    case 2: try restoreLastGood(reason: reason)
    default: throw .corrupt(path: path, reason: reason)
    }
  }

  // MARK: Changing

  /// Applies `change` to the whole store as it is now, in one write transaction, and saves
  /// the rows it changed; `publish` runs after the commit, still holding this process's
  /// hold on the store (so that whoever keeps the contents in memory sees versions in the
  /// order they were saved), with the contents before and after and what changed: the
  /// ``StoreEdit`` that `change` returns, when it describes what it did, else, when the
  /// change kept every key in its place, the positions of the records it changed.
  ///
  /// - Returns: whether anything was written.
  @discardableResult
  func update(
    _ change: (inout Contents) throws(Failure) -> StoreEdit<Key, Metadata>?,
    publish: (Published) -> Void = { _ in }
  ) throws(Failure) -> Bool {
    try changing(
      create: { (contents: inout Contents) throws(Failure) -> Bool in
        var probe = contents
        let edit = try change(&probe)
        return !(edit.map(\.isEmpty) ?? (probe.records == contents.records))
      }, publish: publish
    ) { (database: Database, state: inout State) throws(Failure) -> Outcome in
      let seen = try database.sqlite("reading") { () throws(SQLiteError) in try current(database, &state) }
      let before = seen.contents
      var after = before
      let edit = try change(&after)
      if let edit {
        assert(
          StoreJournal<Key, Metadata>.applying(edit.line, to: before.records) == after.records,
          "the edit does not say what the change did")
      }
      // A change that says what it did needs no comparison; otherwise one comparison of the
      // records serves the test, the rows written and the listeners.
      let changed = edit == nil ? before.changedPositions(to: after) : nil
      let unchanged = edit.map(\.isEmpty) ?? (changed?.isEmpty == true)
      let nothing = Outcome(
        wrote: false, published: Published(before: before, after: before, changed: [], catchUp: seen.catchUp))
      guard !unchanged else { return nothing }
      guard
        let line = edit?.line ?? StoreJournal<Key, Metadata>.change(from: before, to: after, changed: changed)
      else { return nothing }
      var positions = seen.positions
      let version = try write(line, after: after.records, positions: &positions, isWhole: true, to: database)
      state.seen = Seen(
        stamp: Database.Stamp(name: seen.stamp.name, version: version), contents: after, positions: positions)
      return Outcome(
        wrote: true,
        published: Published(
          before: before, after: after, changed: changed, edit: edit, catchUp: seen.catchUp))
    }
  }

  /// Applies `change` to the records with `keys` and those whose target has one of the
  /// inodes or paths of `targets`, read alone, in one write transaction; the other records
  /// are neither read nor written. `change` sees only those records, and must say what it
  /// did (a ``StoreEdit``) and move records only to the front.
  ///
  /// - Returns: whether anything was written.
  @discardableResult
  func update(
    records keys: [Key], targets: [(inode: UInt64?, path: FilePath)],
    _ change: (inout Contents) throws(Failure) -> StoreEdit<Key, Metadata>
  ) throws(Failure) -> Bool {
    try changing(
      create: { (contents: inout Contents) throws(Failure) -> Bool in
        var probe = contents
        return !(try change(&probe)).isEmpty
      }, publish: { _ in }
    ) { (database: Database, _: inout State) throws(Failure) -> Outcome in
      var rows: [(record: StoreRecord<Key, Metadata>, position: Int64)] = try database.records(withKeys: keys)
      for target in targets { rows += try database.records(withInode: target.inode, orPath: target.path) }
      var seenKeys = Set<Key>()
      rows = rows.filter { seenKeys.insert($0.record.key).inserted }.sorted { $0.position < $1.position }
      var contents = Contents()
      contents.records = StoreRecordList(rows.map(\.record))
      contents.isPartial = true
      let before = contents.records
      let edit = try change(&contents)
      assert(
        StoreJournal<Key, Metadata>.applying(edit.line, to: before) == contents.records,
        "the edit does not say what the change did")
      guard !edit.isEmpty else { return Outcome(wrote: false, published: nil) }
      var positions = Positions(
        rows.map { ($0.record.key, $0.position) },
        bounds: try database.sqlite("reading") { () throws(SQLiteError) in try database.positionBounds() })
      _ = try write(edit.line, after: contents.records, positions: &positions, isWhole: false, to: database)
      // This process's copy of the whole store is behind now: it catches up at its next read.
      return Outcome(wrote: true, published: nil)
    }
  }

  /// What a change did: whether it wrote, and what to publish after the commit.
  private struct Outcome {
    let wrote: Bool
    let published: Published?
  }

  /// Runs `body` in a write transaction on the store's database, made first when there is
  /// none and `create` says the change, applied to an empty store, would change it; then
  /// `publish`es what `body` says, after the commit. A store found damaged is restored
  /// from its last good copy (``restoreLastGood(reason:)``) and the change made on that.
  private func changing(
    create: (inout Contents) throws(Failure) -> Bool,
    publish: (Published) -> Void,
    _ body: (Database, inout State) throws(Failure) -> Outcome
  ) throws(Failure) -> Bool {
    var recovery = 0
    while true {
      do {
        let attempt = try held.state.withLock { (state: inout State) throws(Failure) -> Attempt in
          guard let database = try connection(&state) else {
            var empty = Contents()
            guard try create(&empty) else { return .done(false) }
            try makeStore()
            return .madeStore
          }
          let outcome = try transaction(database, &state) { (state: inout State) throws(Failure) in
            try body(database, &state)
          }
          if let published = outcome.published { publish(published) }
          if outcome.wrote { refreshLastGoodIfDue(database) }
          return .done(outcome.wrote)
        }
        switch attempt {
        case .done(let wrote): return wrote
        case .madeStore: continue
        }
      } catch .corrupt(_, let reason) {
        try recover(reason: reason, attempt: &recovery)
      }
    }
  }

  /// Runs `body` between `BEGIN IMMEDIATE` and `COMMIT`, rolling back when it throws (and
  /// forgetting what this process saw, which the change may have advanced).
  private func transaction<Value>(
    _ database: Database, _ state: inout State, _ body: (inout State) throws(Failure) -> Value
  ) throws(Failure) -> Value {
    try database.sqlite("changing") { () throws(SQLiteError) in
      try database.connection.execute("BEGIN IMMEDIATE")
    }
    do {
      let value = try body(&state)
      try database.sqlite("writing") { () throws(SQLiteError) in try database.connection.execute("COMMIT") }
      return value
    } catch {
      // A transaction SQLite rolled back itself is gone already; nothing was written either way.
      try? database.connection.execute("ROLLBACK")
      state.seen = nil
      throw error
    }
  }

  /// Writes `change` (the records after it: `records`) at a new version: rows put, removed
  /// and moved. Returns the version.
  private func write(
    _ change: Change, after records: StoreRecordList<Key, Metadata>, positions: inout Positions,
    isWhole: Bool,
    to database: Database
  ) throws(Failure) -> Int64 {
    do {
      try mappingSystemErrors(.save(.write), path: path) { () throws(SystemCallError) in
        try SaveFaults.check(.write, call: "write", destination: path)
      }
    } catch {
      throw .docbm(error)
    }
    let version = try database.sqlite("writing") { () throws(SQLiteError) in try database.nextVersion() }
    let moved = positions.assign(change, after: records, isWhole: isWhole)
    for key in change.remove ?? [] { try database.remove(key, version: version) }
    var put = Set<Key>()
    for record in change.put ?? [] {
      guard let position = positions[record.key] else { continue }
      try database.put(record, at: position, version: version)
      put.insert(record.key)
    }
    for key in moved where !put.contains(key) {
      guard let position = positions[key] else { continue }
      try database.move(key, to: position, version: version)
    }
    return version
  }

  /// Writes the store's rows afresh (``StoreDatabase/compact()``) and refreshes its last
  /// good copy: before a copy of the store file alone is taken.
  func compact() throws(Failure) {
    try held.state.withLock { (state: inout State) throws(Failure) in
      guard let database = try connection(&state) else { return }
      try database.sqlite("compacting") { () throws(SQLiteError) in try database.connection.execute("VACUUM")
      }
      try writeLastGood(database)
    }
  }

  /// Makes the store file (an empty store) when there is none, so that bookmarks can be
  /// anchored on it.
  func createIfMissing() throws(Failure) {
    if FileManager.default.fileExists(atPath: path.description) { return }
    try makeStore()
  }
}

/// What one attempt at a change came to.
private enum Attempt {
  case done(Bool)
  /// The store file was made: the change is made on it.
  case madeStore
}
