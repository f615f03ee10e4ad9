import DocumentBookmarks
import FoundationEssentials

/// The store file on disk and its journal: read without a lock (whole saves replace the
/// file by rename, and a journal line counts only when whole, so a reader sees one version),
/// changed read-merge-write under an `flock` on a sibling lock file. A change is one line
/// appended to the journal and flushed; from time to time (when the journal has grown to a
/// quarter of the file, or a change is too large for a line) the file is written whole with
/// `replaceDocument` (so it keeps its key), and a last good copy is kept beside it to restore
/// when it is found damaged.
///
/// Several processes (and threads) may use one store file: each change applies to what the
/// file holds at that moment, so no process's change is lost. A killed holder's lock goes
/// with its descriptors.
struct StoreFile<Key: Hashable & Sendable & Codable, Metadata: Sendable & Codable & Equatable>: Sendable {
  typealias Contents = StoreContents<Key, Metadata>
  typealias Failure = BookmarkStoreError<Key>
  typealias Format = StoreFormat<Key, Metadata>

  /// The store file, absolute: the path given, with a symbolic link at its end followed
  /// once, here, so that the journal, the lock and the last good copy lie beside the file
  /// itself and every name of it takes the same lock (a dotfile manager links single files).
  let path: FilePath
  let service: BookmarkService
  /// The version last read or written, and each record's JSON.
  let cache = StoreFileCache<Key, Metadata>()
  /// `<store>.journal`: the changes since the file was last written whole.
  let journal: StoreJournal<Key, Metadata>

  init(path: FilePath, service: BookmarkService) {
    self.path = (try? SymbolicLink.followingFinalLinks(path)) ?? path.absolute.lexicallyNormalized
    self.service = service
    journal = StoreJournal(storePath: self.path)
  }

  /// How large the journal may grow before the next change writes the file whole: a
  /// quarter of the file (so that reading the journal costs less than reading the file),
  /// and at least 64 KiB (so that a small store is not rewritten at every change).
  static func journalLimit(fileSize: UInt64) -> Int { max(64 << 10, Int(clamping: fileSize / 4)) }

  /// The store file as a document: what its bookmarks are anchored on.
  var document: AnchoredDocument { service.documents(anchoredOn: path) }
  /// `<store>.lock`: never the store file itself, which saves replace.
  var lockPath: FilePath { path.addingSuffix(".lock") }
  /// `<store>.last-good`: a copy of the last version written, with the store's key.
  var lastGoodPath: FilePath { path.addingSuffix(".last-good") }

  /// What a read found: the contents (the journal applied), the store file's signature
  /// (`nil`: there is no file), and how far the journal was read.
  struct Loaded {
    var contents: Contents
    var signature: StoreFileCache<Key, Metadata>.Signature?
    var journal: StoreJournal<Key, Metadata>.Reading
  }

  /// Reads the file as it is, with its journal; a file that does not exist reads as an
  /// empty store.
  ///
  /// - Throws: ``BookmarkStoreError`` `newerVersion`, `notAStore`, `corrupt` (damaged; a
  ///   change under the lock restores the last good copy), `untrusted`, `docbm`
  ///   (`permissionDenied`, `ioError`, …).
  func read() throws(Failure) -> Contents { try load().contents }

  /// Reads the file and its journal (only the journal lines added since, when the file is
  /// the version last seen).
  ///
  /// Without the lock a whole save may come between reading the file and reading its
  /// journal; the file is looked at again after the journal, and the read starts over when
  /// it was replaced meanwhile, so that what is returned is one version. `locked`: the
  /// caller holds the lock, so no save can come between, and the file is not looked at again.
  func load(locked: Bool = false) throws(Failure) -> Loaded {
    var cached = true
    for _ in 0..<8 {
      var contents: Contents
      let signature: StoreFileCache<Key, Metadata>.Signature
      var from: StoreJournal<Key, Metadata>.Position?
      switch try readFile(path, cached: cached) {
      case .absent: return Loaded(contents: Contents(), signature: nil, journal: .none)
      case .cached(let seen, let seenSignature, let position):
        (contents, signature, from) = (seen, seenSignature, position)
      case .bytes(let bytes, let readSignature):
        (contents, signature, from) = (try decode(bytes, at: path), readSignature, nil)
      }
      switch try journal.replay(onto: &contents, snapshot: contents.snapshotID, from: from) {
      case .startOver:
        cached = false
      case .read(let reading):
        guard locked || currentSignature() == signature else {
          cached = false
          continue
        }
        cache.remember(contents, signature: signature, journal: reading.position)
        return Loaded(contents: contents, signature: signature, journal: reading)
      }
    }
    throw .docbm(
      DocbmError(
        .ioError, path: path, message: "\(path) kept being replaced while it was read; try again"))
  }

  /// The store file's signature now, or `nil` when it cannot be looked at.
  private func currentSignature() -> StoreFileCache<Key, Metadata>.Signature? {
    // No signature only costs a read: the file is then read again, not taken from the cache.
    (try? FileStatus.of(path, followSymlinks: true)).map(\.version)
  }

  private func decode(_ bytes: [UInt8], at path: FilePath) throws(Failure) -> Contents {
    switch Format.decode(bytes) {
    case .success(let contents): return contents
    case .failure(.corrupt(let reason)): throw .corrupt(path: path, reason: reason)
    case .failure(.notAStore(let reason)): throw .notAStore(path: path, reason: reason)
    case .failure(.newerVersion(let version)): throw .newerVersion(schemaVersion: version, path: path)
    }
  }

  /// The bytes of the file at `path`, or `nil` when there is none. Opened without blocking
  /// (a FIFO is refused, not waited on), a regular file only, at most the size limit.
  private func readBytes(_ path: FilePath) throws(Failure) -> [UInt8]? {
    if case .bytes(let bytes, _) = try readFile(path, cached: false) { return bytes }
    return nil
  }

  /// Reads the file at `path`: its bytes and signature, or (with `cached`) the contents
  /// last seen when the file is still that version, without reading it.
  private func readFile(_ path: FilePath, cached: Bool) throws(Failure) -> FoundFile<Key, Metadata> {
    let cache = cached ? cache : nil
    let opened: StoreFileOpener.Opened<FoundFile<Key, Metadata>>
    do {
      opened = try mappingSystemErrors(.openDocument, path: path) {
        () throws(SystemCallError) -> StoreFileOpener.Opened<FoundFile<Key, Metadata>> in
        try StoreFaults.checkRead(of: path)
        return try StoreFileOpener.open(path) {
          (fd, status) throws(SystemCallError) -> FoundFile<Key, Metadata> in
          let signature = status.version
          if let seen = cache?.contents(for: signature) {
            return .cached(seen.contents, signature, seen.journal)
          }
          return .bytes(try fd.readWhole(limit: StoreFileOpener.sizeLimit), signature)
        }
      }
    } catch {
      throw .docbm(error)
    }
    switch opened {
    case .absent: return .absent
    case .read(let found): return found
    case .refused(let refusal): throw refusal.error(at: path)
    }
  }

  /// Under the lock: reads, and when the file is damaged, quarantines it and restores the
  /// last good copy (``restoreLastGood(reason:)``) before reading again.
  private func readRepairingLocked() throws(Failure) -> Loaded {
    do {
      return try load(locked: true)
    } catch .corrupt(_, let reason) {
      try restoreLastGood(reason: reason)
      return try load(locked: true)
    }
  }

  /// The file is damaged: if the last good copy reads, the damaged file is kept under
  /// `<store>.corrupt-<seconds>[-n]` (a hard link to it, so nothing is copied) and the last
  /// good version is saved over it with the last good copy's attributes (the key among
  /// them, even when whatever damaged the file also dropped its key). The last good copy
  /// is the version last written whole, so the journal still belongs to it.
  ///
  /// The copy is checked when read, and its attributes (the key) are copied from its path
  /// by the save: so it is restored only when no other user could swap it in between, that
  /// is when the store's folder and those above it pass ``FolderChainTrust``. Otherwise the
  /// store is left as it is and the error is `untrusted`.
  private func restoreLastGood(reason: String) throws(Failure) {
    if let (folder, problem) = FolderChainTrust.problem(from: path.removingLastComponent) {
      throw .untrusted(
        path: lastGoodPath,
        reason:
          "\(reason); the folder \(folder) \(problem), so another user could swap the last good copy while it is restored: restore it by hand"
      )
    }
    guard let bytes = try? readBytes(lastGoodPath), (try? decode(bytes, at: lastGoodPath)) != nil else {
      throw .corrupt(path: path, reason: reason + "; there is no readable last good copy (\(lastGoodPath))")
    }
    let stamp = Int(Date().timeIntervalSince1970)
    var quarantine = path.addingSuffix(".corrupt-\(stamp)")
    var attempt = 1
    while (try? FileManager.default.linkItem(atPath: path.description, toPath: quarantine.description)) == nil
    {
      attempt += 1
      guard attempt < 100 else {
        throw .corrupt(path: path, reason: reason + "; it could not be quarantined")
      }
      quarantine = path.addingSuffix(".corrupt-\(stamp)-\(attempt)")
    }
    do {
      try service.documents(anchoredOn: lastGoodPath).saveCopy(
        to: path, key: .carry, options: ReplaceOptions(hardLinks: .split), data: Data(bytes))
    } catch {
      throw .docbm(error)
    }
  }

  /// Runs `body` holding the store's lock.
  func locked<Value>(_ body: () throws(Failure) -> Value) throws(Failure) -> Value {
    makeFolder()
    let opened: FileDescriptor.LockFile
    do {
      opened = try mappingSystemErrors(.lock, path: lockPath) { () throws(SystemCallError) in
        try FileDescriptor.openLocked(lockPath) { StoreFileOpener.trustProblem($0) == nil }
      }
    } catch {
      throw .docbm(error)
    }
    let lock: FileDescriptor
    switch opened {
    case .locked(let fd): lock = fd
    case .refused(let status) where status.kind != .regular:
      throw .docbm(
        DocbmError(
          .unsupportedFileType, path: lockPath,
          message:
            "the store's lock file \(lockPath) is a \(status.kindDescription), not a regular file, so the store cannot be changed; remove it (docbm makes a new one)"
        ))
    case .refused(let status):
      // permissionDenied: the store is still read, without the lock (StoreCore.load).
      throw .docbm(
        DocbmError(
          .permissionDenied, path: lockPath,
          message:
            "the store's lock file \(lockPath) is not trusted (\(StoreFileOpener.trustProblem(status) ?? "it is not yours")), so the store cannot be changed here"
        ))
    }
    defer { lock.close() }
    return try body()
  }

  /// Applies `change` to what the file holds now, under the lock, and saves the result when
  /// it differs: one line appended to the journal, or the file written whole; `publish`
  /// runs, still under the lock, with the contents before and after (so that whoever keeps
  /// them in memory sees versions in the order they were saved) and what changed: the
  /// ``StoreEdit`` that `change` returns, when it describes what it did, else, when the
  /// change kept every key in its place, the positions of the records it changed.
  ///
  /// - Returns: whether anything was written.
  @discardableResult
  func update(
    _ change: (inout Contents) throws(Failure) -> StoreEdit<Key, Metadata>?,
    publish: (_ before: Contents, _ after: Contents, _ changed: [Int]?, _ edit: StoreEdit<Key, Metadata>?) ->
      Void =
      { _, _, _, _ in }
  ) throws(Failure) -> Bool {
    try locked { () throws(Failure) -> Bool in
      let loaded = try readRepairingLocked()
      let before = loaded.contents
      var after = before
      let edit = try change(&after)
      if let edit {
        assert(
          StoreJournal<Key, Metadata>.applying(edit.line, to: before.records) == after.records,
          "the edit does not say what the change did")
      }
      // A change that says what it did needs no comparison; otherwise one comparison of the
      // records serves the test, the journal line and the listeners.
      let changed = edit == nil ? before.changedPositions(to: after) : nil
      let unchanged = edit.map(\.isEmpty) ?? (changed?.isEmpty == true)
      guard !unchanged || !before.sameUnreadParts(as: after) else {
        publish(before, before, [], nil)
        return false
      }
      let line = edit?.line ?? StoreJournal<Key, Metadata>.change(from: before, to: after, changed: changed)
      if !(try appendToJournal(after, loaded: loaded, line: line)) {
        try write(after, replacing: loaded.journal)
      }
      publish(before, after, changed, edit)
      return true
    }
  }

  /// Records the change from `loaded` to `after`, `line`, as one journal line, when the
  /// file has a journal name and holds a bookmark, its journal is not damaged, the change
  /// can be said in a line (`line` is not `nil`, and the members and records this version
  /// does not read are unchanged) and the journal stays within its limit. Returns whether
  /// it did.
  ///
  /// A file that holds no bookmark yet is written whole: from its first bookmark on, the
  /// file itself shows (to `docbm check`, to a repair) that its key is the store's, and its
  /// last good copy carries the key.
  private func appendToJournal(
    _ after: Contents, loaded: Loaded, line change: StoreJournal<Key, Metadata>.Change?
  ) throws(Failure) -> Bool {
    guard let signature = loaded.signature, let snapshot = loaded.contents.snapshotID,
      !loaded.journal.isDamaged, loaded.contents.sameUnreadParts(as: after),
      loaded.contents.records.contains(where: { $0.bookmark != nil }),
      let change, let line = try? StoreJournal<Key, Metadata>.line(for: change)
    else { return false }
    let length = loaded.journal.position?.length ?? 0
    guard length + line.count <= Self.journalLimit(fileSize: signature.size) else { return false }
    cache.remember(loaded.contents, signature: nil, journal: nil)
    let position = try journal.append(line, snapshot: snapshot, after: loaded.journal)
    cache.remember(after, signature: signature, journal: position)
    return true
  }

  /// Makes the store file (an empty store) when there is none, so that bookmarks can be
  /// anchored on it. Under the lock.
  func createIfMissing() throws(Failure) {
    if FileManager.default.fileExists(atPath: path.description) { return }
    try locked { () throws(Failure) in
      if FileManager.default.fileExists(atPath: path.description) { return }
      try write(Contents(), replacing: .none)
    }
  }

  /// Writes the file whole, folding its journal in (under the lock), even when nothing
  /// changed: before a copy of the store file alone is taken, or it is edited by hand.
  func compact() throws(Failure) {
    try locked { () throws(Failure) in
      let loaded = try readRepairingLocked()
      guard loaded.signature != nil else { return }
      try write(loaded.contents, replacing: loaded.journal)
    }
  }

  /// Makes the store's folder (and those above it) when missing, private (0700).
  private func makeFolder() {
    let folder = path.removingLastComponent.description
    if FileManager.default.fileExists(atPath: folder) { return }
    try? FileManager.default.createDirectory(
      atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
  }

  /// Saves `contents` whole with `replaceDocument`, under a new journal name, then refreshes
  /// the last good copy and removes the journal it replaces (keeping a damaged one aside).
  /// A new store file is made private (0600): it lists the user's files.
  private func write(_ contents: Contents, replacing old: StoreJournal<Key, Metadata>.Reading) throws(Failure)
  {
    var contents = contents
    contents.snapshotID = Self.newSnapshotID()
    let data: Data
    do {
      data = try Format.encode(contents, cache: cache)
    } catch {
      throw .corrupt(path: path, reason: "its records cannot be encoded: \(error)")
    }
    let isNew = !FileManager.default.fileExists(atPath: path.description)
    do {
      cache.remember(contents, signature: nil, journal: nil)
      try document.replaceDocument(with: data)
      if isNew {
        try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path.description)
      }
      // The last good copy is rewritten with every whole save; it is not flushed (it is
      // whole or absent after a crash, and the store itself was flushed).
      try document.saveUnflushedCopy(to: lastGoodPath, data: data)
    } catch {
      throw .docbm(error)
    }
    // The journal names the version before: readers ignore it from now on.
    journal.remove(keepingAside: old.isDamaged)
    // The version just written is known: the next change under the lock need not decode
    // it again (another writer's whole save gives the file a new inode).
    if let signature = currentSignature() { cache.remember(contents, signature: signature, journal: nil) }
  }

  /// A new journal name: 16 random bytes in hexadecimal.
  private static func newSnapshotID() -> String {
    var generator = SystemRandomNumberGenerator()
    return (0..<2).map { _ in
      let value = generator.next() as UInt64
      let hex = String(value, radix: 16)
      return String(repeating: "0", count: 16 - hex.count) + hex
    }.joined()
  }
}

/// What reading a store file's path found.
private enum FoundFile<Key: Hashable & Sendable & Codable, Metadata: Sendable & Codable & Equatable> {
  case absent
  case bytes([UInt8], StoreFileCache<Key, Metadata>.Signature)
  case cached(
    StoreContents<Key, Metadata>, StoreFileCache<Key, Metadata>.Signature,
    StoreJournal<Key, Metadata>.Position?)
}
