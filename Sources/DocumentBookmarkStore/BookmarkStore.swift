import DocbmSystem
public import DocumentBookmarks
import FoundationEssentials
import Synchronization

/// An app's own list of remembered files and folders (recent documents, project folders,
/// places), each a record under a stable key, with a status, pins, last use and metadata.
///
/// The store is a file anchored on itself: each record's bookmark is anchored on the store
/// file, an SQLite database written in place, so the file keeps its key (and `docbm check`
/// and `docbm repair` work on it). A change is one transaction that writes only the records
/// it changes. The format is in docs/format.md.
///
/// Several processes may share one store file: every change is applied, in a transaction,
/// to what the file holds at that moment and saved only when it changes something, so no
/// process loses another's change; each process sees the others' changes within moments
/// (inotify on the store's folder) in ``snapshot`` and ``updates()``.
///
/// Every call does its file-system work on docbm's own threads, never on Swift
/// concurrency's cooperative pool; concurrent resolutions of one key share one.
///
/// ```swift
/// let store = BookmarkStore<String, NoMetadata>(
///   file: "/home/ada/.local/state/editor/recents.json",
///   policy: .recents(limit: 20))
/// _ = try await store.add(target: "/home/ada/Notes/plan.md", key: "plan")
/// let found = try await store.resolve("plan")   // follows renames and moves
/// ```
public final class BookmarkStore<
  Key: Hashable & Sendable & Codable, Metadata: Sendable & Codable & Equatable
>:
  Sendable
{
  public typealias Record = StoreRecord<Key, Metadata>
  public typealias Failure = BookmarkStoreError<Key>

  package let core: StoreCore<Key, Metadata>
  private let followsOthers: Bool
  private let followsMounts: Bool
  private let follower = Mutex<StoreFollower?>(nil)
  private let mountWatcher = Mutex<MountWatcher?>(nil)
  private let flights = Mutex<[Key: Task<ResolvedRecord<Key, Metadata>, any Error>]>([:])
  /// The private folder of a ``temporary(policy:service:)`` store, removed with it.
  private let temporaryFolder: TemporaryFolder?

  /// A store kept in `file` (made on the first change; its folder too, mode 0700).
  ///
  /// - Parameters:
  ///   - file: the store file's path; a symbolic link at its end is followed now, once
  ///     (``path``).
  ///   - policy: duplicates, order, limit, eviction and failure handling.
  ///   - service: how bookmarks resolve (search budget) and where new keys are escrowed
  ///     (by default the user's escrow, so that a store whose key is lost is repaired).
  ///   - followsOtherProcesses: whether to reload when another process saves the store.
  ///   - followsMounts: whether to follow mounts and unmounts (``MountEvents``): records
  ///     on a filesystem that goes away are marked `volumeUnavailable` at once, without
  ///     touching it, and resolved again when it comes back.
  ///
  /// Following starts with the first call that reads the store; each costs one thread that
  /// sleeps until something happens.
  public init(
    file: FilePath, policy: StorePolicy = StorePolicy(), service: BookmarkService = BookmarkService(),
    followsOtherProcesses: Bool = true, followsMounts: Bool = true
  ) {
    core = StoreCore(file: file, policy: policy, service: service)
    followsOthers = followsOtherProcesses
    self.followsMounts = followsMounts
    temporaryFolder = nil
  }

  private init(in folder: TemporaryFolder, policy: StorePolicy, service: BookmarkService) {
    core = StoreCore(file: folder.path.appending("store.json"), policy: policy, service: service)
    followsOthers = false
    followsMounts = false
    temporaryFolder = folder
  }

  /// A store in a private folder of its own (mode 0700, under `$TMPDIR`), removed with
  /// everything in it when the store is released: the API of any store, with no file for
  /// the caller to name or clean up, for an app's tests and previews. A store's bookmarks
  /// are anchored on its file's key, so this store too keeps a file while it lives. It
  /// follows no other process and no mounts (feed it mount events with
  /// ``refreshStatuses(on:)``). Its key goes to no escrow unless `service` names one: the
  /// user's escrow keeps keys of files that outlive the test.
  ///
  /// - Throws: `docbm` when the folder cannot be made (the temporary directory is full, or
  ///   not writable).
  public static func temporary(
    policy: StorePolicy = StorePolicy(), service: BookmarkService = BookmarkService(escrow: nil)
  ) throws(Failure) -> BookmarkStore {
    do {
      return BookmarkStore(
        in: try TemporaryFolder.make(prefix: "docbm-store-"), policy: policy, service: service)
    } catch {
      throw .docbm(
        DocbmError(error, operation: .save(.prepareTemporary), path: error.path ?? FilePath("/tmp")))
    }
  }

  deinit {
    follower.withLock { $0?.cancel() }
    mountWatcher.withLock { $0?.cancel() }
    core.finishListeners()
    temporaryFolder?.remove()
  }

  /// The store file's path: `file` made absolute, in its folder's canonical path, with a
  /// symbolic link at its end followed (once, when the store is made), so that SQLite's
  /// journal, the lock and the last good copy lie beside the file itself whatever name it
  /// is reached by.
  public var path: FilePath { core.path }

  /// The records as this process last saw them (no I/O).
  public var snapshot: StoreSnapshot<Key, Metadata> { core.snapshot }

  /// The records, in the store's order, as last seen (no I/O; call ``load()`` first).
  public var records: [Record] { core.snapshot.records }

  /// Runs `work` on the store's core, on a docbm thread, then starts following other
  /// processes when asked: the one way each call reaches the core.
  private func run<Value: Sendable>(
    _ work: @escaping @Sendable (StoreCore<Key, Metadata>) throws(Failure) -> Value
  ) async throws(Failure) -> Value {
    let core = core
    return try await finishing { try await DocbmThreads.run { () throws -> Value in try work(core) } }
  }

  /// Starts following mounts and other processes now, without waiting for a first call.
  package func startFollowingNow() { startFollowing() }

  /// Awaits `work` (done on docbm's threads), then starts following; its errors are the
  /// store's own (anything else, which docbm's calls do not throw, as `systemFailure`).
  private func finishing<Value: Sendable>(_ work: () async throws -> Value) async throws(Failure) -> Value {
    do {
      let value = try await work()
      startFollowing()
      return value
    } catch let error as Failure {
      throw error
    } catch {
      throw .docbm(DocbmError(.systemFailure, path: core.path, message: "\(error)"))
    }
  }

  private func startFollowing() {
    if followsMounts {
      mountWatcher.withLock { watcher in
        guard watcher == nil else { return }
        let core = core
        watcher = MountWatcher { events in events.forEach(core.handle) }
      }
    }
    guard followsOthers else { return }
    follower.withLock { follower in
      guard follower == nil else { return }
      let core = core
      follower = StoreFollower(
        folder: core.path.removingLastComponent,
        names: [core.path.lastComponent, core.file.databaseJournalPath.lastComponent]
      ) {
        // A read that fails here (a damaged store, a lost permission) is tried again at the
        // next change seen; every call that changes the store reads it and reports it.
        try? core.reload()
      }
    }
  }

  /// Reads the store file (restoring its last good copy when it is damaged).
  ///
  /// - Throws: ``BookmarkStoreError``: `newerVersion` (never overwritten), `notAStore`,
  ///   `untrusted` (another user's file, or one others may write),
  ///   `corrupt` (damaged and no last good copy), `docbm` (permissions, I/O).
  @discardableResult
  public func load() async throws(Failure) -> [Record] {
    return try await run { core throws(Failure) in try core.load() }
  }

  /// Bookmarks `target` (a file or folder; a link is followed) and adds it under `key`.
  /// The same key again gives the record a new target and keeps its pin and dates. A
  /// target some record already holds (found by identity, even renamed) follows
  /// ``StorePolicy/duplicates``. Over the limit, records are evicted (``evictions()``).
  ///
  /// - Returns: the record added (or, with ``StorePolicy/Duplicates/returnExisting``, the
  ///   existing one).
  /// - Throws: `duplicate(of:)`; `docbm` (`notFound`, `unsupportedFileType`, the store
  ///   file's key cannot be written, the save failed).
  @discardableResult
  public func add(target: FilePath, key: Key, metadata: Metadata) async throws(Failure) -> Record {
    return try await run { core throws(Failure) in try core.add(target: target, key: key, metadata: metadata)
    }
  }

  /// Bookmarks each target and adds them all in one save (importing a list, say), each as
  /// ``add(target:key:metadata:)`` would.
  ///
  /// - Throws: as ``add(target:key:metadata:)``; when one target cannot be bookmarked,
  ///   nothing is added.
  @discardableResult
  public func add(targets: [(target: FilePath, key: Key, metadata: Metadata)]) async throws(Failure)
    -> [Record]
  {
    let targets = targets.map { Entry(target: $0.target, key: $0.key, metadata: $0.metadata) }
    return try await run { core throws(Failure) in
      try core.add(targets: targets.map { ($0.target, $0.key, $0.metadata) })
    }
  }

  /// A target to add, as a `Sendable` value.
  private struct Entry: Sendable {
    let target: FilePath
    let key: Key
    let metadata: Metadata
  }

  /// Adds a bookmark already made on the store file (`makeBookmark(to:)` of the document at
  /// ``path``); its status is unknown until resolved.
  ///
  /// - Throws: `docbm` `keyMismatch` when the bookmark was made on another document.
  @discardableResult
  public func add(bookmark: Bookmark, key: Key, metadata: Metadata) async throws(Failure) -> Record {
    return try await run { core throws(Failure) in
      try core.add(bookmark: bookmark, key: key, metadata: metadata)
    }
  }

  /// Adds a copy of `record`, a record of `other`, under the same key: a bookmark can only
  /// be resolved against the store file it was made on, so the record's target is found
  /// by resolving it in `other` (verified with that store's key, and followed if it moved)
  /// and bookmarked anew on this store's file. Its metadata, pin and dates are kept; a
  /// path-only record is copied as one. `other` is left as it is, apart from what resolving
  /// commits there; forget the record there to move it.
  ///
  /// - Returns: the record added, as ``add(target:key:metadata:)`` adds it.
  /// - Throws: `notFound` when `other` has no record with the key; `docbm` with the
  ///   resolution's failure in `other` (`missing`, `volumeUnavailable`, …: nothing is
  ///   added); as ``add(target:key:metadata:)`` for this store.
  @discardableResult
  public func add(copyOf record: Record, from other: BookmarkStore<Key, Metadata>) async throws(Failure)
    -> Record
  {
    let target: FilePath?
    let current: Record
    if record.hasBookmark {
      let resolved = try await other.resolve(record.key)
      (target, current) = (resolved.path, resolved.record)
    } else {
      _ = try await other.load()
      guard let found = other.snapshot[record.key] else { throw .notFound(record.key) }
      (target, current) = (nil, found)
    }
    return try await run { core throws(Failure) in try core.add(copyOf: current, at: target) }
  }

  /// Adds a path without bookmarking it yet (a file on a disk not plugged in, a path typed
  /// by the user): the record gets its bookmark when it is first resolved and the path is
  /// reachable. Until then it follows no move.
  @discardableResult
  public func add(pathOnly path: FilePath, key: Key, metadata: Metadata) async throws(Failure) -> Record {
    return try await run { core throws(Failure) in try core.add(pathOnly: path, key: key, metadata: metadata)
    }
  }

  /// Resolves the record's bookmark (or makes the first one of a path-only record) and
  /// commits what it found: status, path, and a refreshed bookmark when the target moved.
  /// A failure is committed as the record's status; one that repeats the stored status
  /// writes nothing. Concurrent calls for one key share one resolution.
  ///
  /// - Throws: `notFound` (no such record, or forgotten meanwhile), `docbm` with the
  ///   resolution's error (`missing` with its last known path, `volumeUnavailable`, …),
  ///   `keyLost` when the store file lost its key and it cannot be put back
  ///   (``keyRepairs()``).
  public func resolve(_ key: Key) async throws(Failure) -> ResolvedRecord<Key, Metadata> {
    let task = flights.withLock { flights in
      if let task = flights[key] { return task }
      let core = core
      let task = Task<ResolvedRecord<Key, Metadata>, any Error> {
        try await DocbmThreads.run { () throws -> ResolvedRecord<Key, Metadata> in try core.resolve(key) }
      }
      flights[key] = task
      return task
    }
    defer { _ = flights.withLock { $0[key] == task ? $0.removeValue(forKey: key) : nil } }
    return try await finishing { try await task.value }
  }

  /// Resolves every record (or only those not known to be available), several at once,
  /// and commits all the statuses in one save. Path-only records that can be reached get
  /// their bookmark. Returns the failures by key.
  @discardableResult
  public func refreshStatuses(includingAvailable: Bool = true) async throws(Failure) -> [Key: DocbmError] {
    return try await run { core throws(Failure) in
      try core.refreshStatuses(includingAvailable: includingAvailable)
    }
  }

  /// Relinks the records whose targets moved with a folder tree: each record whose
  /// recorded path lies under `from` is looked for at the same place under `to`
  /// (`AnchoredDocument.relink(_:from:to:)`: the very file on its own filesystem; the
  /// recorded kind, size and modification time on another; never a symbolic link), and the
  /// relinked records get their new bookmark and path, in one save. Returns what became of
  /// each record under `from`, by key; the others are left as they are.
  public func relink(from: FilePath, to: FilePath) async throws(Failure) -> [Key: Relink] {
    return try await run { core throws(Failure) in try core.relink(from: from, to: to) }
  }

  /// Removes the record with `key` (here and, through the file, for every process); it
  /// stays removed. Returns whether there was one. Not an eviction.
  @discardableResult
  public func forget(_ key: Key) async throws(Failure) -> Bool {
    return try await run { core throws(Failure) in !(try core.forget([key])).isEmpty }
  }

  /// Removes, in one save, every record `matches` picks; returns them.
  @discardableResult
  public func forget(where matches: @escaping @Sendable (Record) -> Bool) async throws(Failure) -> [Record] {
    return try await run { core throws(Failure) in try core.forget(where: matches) }
  }

  /// Rewrites the store file without its free space (SQLite's `VACUUM`, in place, so the
  /// store keeps its key) and writes its last good copy (`<store>.last-good`; docs/format.md).
  ///
  /// The store writes the last good copy by itself as changes accumulate; call this after
  /// forgetting many records, or to have a copy that holds the latest change.
  ///
  /// - Throws: ``BookmarkStoreError``, as ``load()`` and the changes do.
  public func compact() async throws(Failure) {
    try await run { core throws(Failure) in try core.compact() }
  }

  /// Gives a store whose file lost its key for good a new start, keeping every record.
  ///
  /// A store puts its file's key back by itself when another program saved the file
  /// without it (``keyRepairs()``); when it cannot (no escrow was given, the escrow has no
  /// copy of the key), its calls throw ``BookmarkStoreError/keyLost(path:reason:)``, and
  /// this is the way on: each record whose bookmark the file's key cannot verify keeps
  /// its key, path, pin, times and metadata, loses its bookmark, and is bookmarked again at
  /// its last known path under the key the file gets now (escrowed with the service's
  /// escrow). A record whose target is no longer at that path stays without a bookmark,
  /// `missing`: its target moved while the old bookmark could not follow it.
  ///
  /// When the key can be put back, it is, and nothing is lost. The escrow's record of the
  /// store file under its old key is forgotten, so that the file can get a new one.
  ///
  /// - Returns: the records that lost their bookmark, as they are now (empty when the key
  ///   was put back, or every bookmark verifies).
  /// - Throws: ``BookmarkStoreError``, as ``load()`` and the changes do.
  @discardableResult
  public func reanchor() async throws(Failure) -> [Record] {
    return try await run { core throws(Failure) in try core.reanchor() }
  }

  /// Removes every record.
  public func removeAll() async throws(Failure) {
    _ = try await run { core throws(Failure) in try core.forget { _ in true } }
  }

  /// Pins or unpins a record: eviction spares pinned records unless they are gone.
  @discardableResult
  public func setPinned(_ key: Key, _ isPinned: Bool) async throws(Failure) -> Record {
    return try await run { core throws(Failure) in try core.setPinned(key, isPinned) }
  }

  /// Records where the app knows the record's target is now: after it saved the item to
  /// `path` (a Save As), or renamed it itself. For a record with a bookmark it is a hint,
  /// shown in ``StoreRecord/lastKnownPath`` until the bookmark next resolves, which sets the
  /// path to where the target really is; a path-only record is bookmarked at `path` the next
  /// time it is resolved. Nothing is read at `path`.
  ///
  /// - Throws: `notFound` when no record has `key`; the store file's save errors.
  @discardableResult
  public func updateLastKnownPath(_ key: Key, to path: FilePath) async throws(Failure) -> Record {
    return try await run { core throws(Failure) in try core.updateLastKnownPath(key, to: path) }
  }

  /// Notes that the app used the record now (for least-recently-used eviction, and the
  /// order of a most-recently-used store).
  @discardableResult
  public func markUsed(_ key: Key) async throws(Failure) -> Record {
    return try await run { core throws(Failure) in try core.markUsed(key) }
  }

  /// Replaces a record's metadata.
  @discardableResult
  public func updateMetadata(_ key: Key, _ metadata: Metadata) async throws(Failure) -> Record {
    return try await run { core throws(Failure) in try core.updateMetadata(key, metadata) }
  }

  /// Moves a record to `position` in the store's order (0 first).
  @discardableResult
  public func move(_ key: Key, to position: Int) async throws(Failure) -> Record {
    return try await run { core throws(Failure) in try core.move(key, to: position) }
  }

  /// The key of the record that holds the file or folder at `path`: by identity first (a
  /// renamed or moved target is still found), then by path.
  public func key(matching path: FilePath) async throws(Failure) -> Key? {
    return try await run { core throws(Failure) in try core.key(matching: path) }
  }

  /// Marks the records on the filesystem that was mounted at `mountPoint` unavailable
  /// (`volumeUnavailable`), in one save, without touching that filesystem (a UI can grey
  /// them at once). A store that follows mounts does this by itself.
  ///
  /// - Returns: the keys of the records marked.
  @discardableResult
  public func markUnavailable(onUnmountOf mountPoint: FilePath) async throws(Failure) -> [Key] {
    return try await run { core throws(Failure) in try core.markUnavailable(onUnmountOf: mountPoint) }
  }

  /// Follows `events` (``MountEvents/stream()``) until it ends: on an unmount, marks the
  /// records on it unavailable; on a mount, resolves the records waiting for it. For a
  /// store made with `followsMounts: false`, or other sources of events.
  public func refreshStatuses(on events: AsyncStream<MountEvent>) async {
    let core = core
    for await event in events {
      // handle(_:) throws nothing, and notes its own failures in the records.
      _ = try? await DocbmThreads.run { core.handle(event) }
    }
  }

  /// The store's records as they change: first ``StoreUpdate/snapshot(_:)`` with the
  /// records as they are, then each change, made here or loaded from another process's
  /// save. ``snapshot`` is up to date before a change is delivered.
  public func updates() -> AsyncStream<StoreUpdate<Key, Metadata>> {
    startFollowing()
    return core.updates()
  }

  /// Records the store removed without being asked: beyond its limit, or for a failure the
  /// policy drops. Not ``forget(_:)``, nor removals by another process (those are updates).
  public func evictions() -> AsyncStream<StoreEviction<Key, Metadata>> { core.evictions() }

  /// Each time the store found its file without its key and put the key back, first those
  /// made before the call. A store file loses its key when another program saves it
  /// without the key (an app's `.atomic` write of it, a copy, a backup restored); before
  /// the store makes a bookmark or resolves one, it puts the escrowed key back (the
  /// service's `BookmarkService.escrow`), narrowing the file to its owner first when the
  /// save let others read it. When it cannot, the call throws
  /// ``BookmarkStoreError/keyLost(path:reason:)``, and ``reanchor()`` goes on from there.
  public func keyRepairs() -> AsyncStream<StoreKeyRepair> { core.keyRepairs() }
}

extension BookmarkStore where Metadata == NoMetadata {
  /// ``add(target:key:metadata:)`` for a store without metadata.
  @discardableResult
  public func add(target: FilePath, key: Key) async throws(Failure) -> Record {
    try await add(target: target, key: key, metadata: NoMetadata())
  }

  /// ``add(pathOnly:key:metadata:)`` for a store without metadata.
  @discardableResult
  public func add(pathOnly path: FilePath, key: Key) async throws(Failure) -> Record {
    try await add(pathOnly: path, key: key, metadata: NoMetadata())
  }
}
