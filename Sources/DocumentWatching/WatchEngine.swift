import DocumentBookmarks

/// The state behind a ``DocumentWatcher``: the folders watched (one inotify watch each), the
/// documents followed, and the moves and removals not yet settled. It turns the kernel's
/// events about names in folders into events about documents.
///
/// Memory grows with the folders watched and the documents followed (files carrying a key,
/// or the documents named), not with the other files in the folders: those are looked at
/// when an event names them, and forgotten.
///
/// Used by one thread at a time (the watcher keeps it behind a lock).
final class WatchEngine {
  /// A name in a watched folder.
  struct Entry: Hashable {
    let folder: Int32
    let name: [UInt8]
  }

  /// A watched folder: a root (with its path) or a folder inside another.
  struct Folder {
    var parent: Int32?
    var name: [UInt8]
    var root: FilePath?
  }

  /// A document followed.
  struct Document {
    var entry: Entry
    var identity: DocumentIdentity
    var fingerprint: KeyFingerprint?
    var hasKey: Bool
    /// It lost its key and repair has not put it back yet.
    var awaitingRepair = false
    var lastRefusal: DocumentRepairer.Report.Refusal?
    /// The watcher saw this file, made just then, take the place of the document at its
    /// path (an editor's save): evidence for repair that it is the document's successor.
    var replacedAtPath = false
    /// Until when this file, which appeared carrying a key while watched, counts as a copy
    /// just made (`cp -a A tmp && mv tmp A`, a save that keeps attributes): renamed over a
    /// document with its key by then, it is that document's new version, and the name it
    /// leaves was never the document's, so no file made there later is its successor.
    var freshCopyUntil: ContinuousClock.Instant?
  }

  /// A path a document left, for a while: a file made there soon after is the document's
  /// new version (an editor's save), not a stranger.
  struct Vacancy {
    let identity: DocumentIdentity
    let deadline: ContinuousClock.Instant
    /// When the watcher saw the document leave the path (the realtime clock, as files'
    /// birth times are).
    var leftAt = Timestamp.now
    /// The document was deleted (reported when nothing takes its place by the deadline).
    let deleted: Bool
  }

  /// The first half of a rename, waiting for its second (same cookie).
  struct PendingMove {
    let identity: DocumentIdentity?
    let folder: Int32?
    let oldPath: FilePath
    let deadline: ContinuousClock.Instant
  }

  enum Mode {
    /// Every file carrying a key in the folders is a document.
    case folders
    /// Only the documents named are followed.
    case documents
  }

  /// What a watched folder reports.
  static let folderEvents: Inotify.Events = [
    .created, .deleted, .movedFrom, .movedTo, .closedAfterWriting, .attributesChanged, .onlyFolder,
    .dontFollow, .excludeUnlinked,
  ]
  /// At most this many vacancies and pending moves are kept (the oldest are settled first).
  static let pendingLimit = 4096

  let inotify: Inotify
  let options: WatchOptions
  let mode: Mode
  var folders: [Int32: Folder] = [:]
  var folderByEntry: [Entry: Int32] = [:]
  var documents: [DocumentIdentity: Document] = [:]
  var documentByEntry: [Entry: DocumentIdentity] = [:]
  var vacancies: [Entry: Vacancy] = [:]
  var documentMoves: [UInt32: PendingMove] = [:]
  var folderMoves: [UInt32: PendingMove] = [:]
  var rootPaths: [FilePath] = []
  /// The folders whose filesystem was unmounted, until their watch is removed.
  private var unmountedFolders: Set<Int32> = []
  /// Every folder given to the watcher is gone: the watcher stops.
  private(set) var nothingLeftToWatch = false
  var summary = WatchSummary()
  /// When the batch of events being handled was read.
  private var batchTime = ContinuousClock.now

  /// The paths the escrow recorded documents at (with repair on): a file there without a
  /// key is a document that lost it, followed and repaired even though it was never seen
  /// with its key.
  private var recordedPaths: Set<FilePath> = []
  /// The escrow's records moved to follow a document renamed away from a name that a new
  /// file may still take (see `arrival`), as they were before, until the name settles.
  private var escrowMovesToUndo: [DocumentIdentity: EscrowRecord] = [:]

  init(inotify: Inotify, options: WatchOptions, mode: Mode) {
    self.inotify = inotify
    self.options = options
    self.mode = mode
    if options.repairs, let escrow = options.escrow {
      recordedPaths = Set(escrow.entries().entries.flatMap { $0.documents.map(\.path) })
    }
  }

  // MARK: - Starting

  /// Watches `root` (and, when recursive, the folders under it), following the files
  /// carrying a key in it. Returns notices about folders that could not be watched.
  func addRoot(_ root: FilePath) throws(DocbmError) -> [DocumentEvent] {
    let status: FileStatus
    do {
      status = try FileStatus.of(root, followSymlinks: true)
    } catch {
      throw DocbmError(error, operation: .openDocument, path: root)
    }
    guard status.kind == .directory else {
      throw DocbmError(
        .unsupportedFileType, path: root,
        message: "\(root) is not a folder: watch the folder a document is in")
    }
    let real = (try? TargetSnapshot.canonicalPath(root)) ?? root.absolute.lexicallyNormalized
    rootPaths.append(real)
    var events: [DocumentEvent] = []
    guard
      watchTree(real, parent: nil, name: real.lastComponent, isRoot: true, announce: false, &events) != nil
    else {
      let reason = events.first?.message ?? "\(real) could not be watched"
      throw DocbmError(.systemFailure, path: real, message: reason)
    }
    return events
  }

  /// Follows the document at `path`: watches its folder (not recursively), and the file.
  func addDocument(_ path: FilePath) throws(DocbmError) {
    let real = (try? TargetSnapshot.canonicalPath(path)) ?? path.absolute.lexicallyNormalized
    let status: FileStatus
    do {
      status = try FileStatus.of(real, followSymlinks: false)
    } catch {
      throw DocbmError(error, operation: .openDocument, path: path)
    }
    guard status.kind == .regular || status.kind == .directory else {
      throw DocbmError(.unsupportedFileType, path: path, message: "\(path) is neither a file nor a folder")
    }
    let folderPath = real.removingLastComponent
    let watch: Int32
    do {
      watch = try inotify.watch(folderPath, for: Self.folderEvents)
    } catch {
      throw DocbmError(error, operation: .openDocument, path: folderPath)
    }
    if folders[watch] == nil {
      folders[watch] = Folder(parent: nil, name: folderPath.lastComponent, root: folderPath)
      rootPaths.append(folderPath)
    }
    let entry = Entry(folder: watch, name: real.lastComponent)
    let identity = DocumentIdentity(status)
    let key = Self.key(at: real)
    documents[identity] = Document(
      entry: entry, identity: identity, fingerprint: key, hasKey: key != nil)
    documentByEntry[entry] = identity
    refreshCounts()
  }

  /// Watches `path` and (when recursive, and watching folders) the folders under it;
  /// follows the files with a key found there. Returns the root's watch, or `nil` when it
  /// could not be watched.
  @discardableResult
  private func watchTree(
    _ path: FilePath, parent: Int32?, name: [UInt8], isRoot: Bool, announce: Bool,
    _ events: inout [DocumentEvent]
  ) -> Int32? {
    namedInWalk = 0
    var stack: [(path: FilePath, parent: Int32?, name: [UInt8], isRoot: Bool)] = [
      (path, parent, name, isRoot)
    ]
    var first: Int32?
    var isFirst = true
    while let next = stack.popLast() {
      defer { isFirst = false }
      let watch: Int32
      if folders.count >= options.maximumFolders {
        leftOut(
          next.path, "\(options.maximumFolders) folders are watched already (the watcher's limit)", &events)
        continue
      }
      do {
        watch = try inotify.watch(next.path, for: Self.folderEvents)
      } catch {
        // A folder removed since it was listed is not a problem worth a notice.
        if error.errno == .noSuchFile || error.errno == .notDirectory { continue }
        let reason =
          error.errno == .noSpace
          ? "the user's inotify watch limit (fs.inotify.max_user_watches) is reached"
          : "\(error)"
        leftOut(next.path, reason, &events)
        continue
      }
      if isFirst { first = watch }
      if let old = folders[watch], let oldParent = old.parent {
        folderByEntry[Entry(folder: oldParent, name: old.name)] = nil
      }
      folders[watch] = Folder(parent: next.parent, name: next.name, root: next.isRoot ? next.path : nil)
      if let parent = next.parent { folderByEntry[Entry(folder: parent, name: next.name)] = watch }
      guard mode == .folders, let listing = try? DirectoryStream(next.path) else { continue }
      while let item = listing.next() {
        let childPath = next.path.appending(item.name)
        switch item.type {
        case .directory:
          if options.recursive { stack.append((childPath, watch, item.name, false)) }
        case .regular, .unknown:
          let entry = Entry(folder: watch, name: item.name)
          if documentByEntry[entry] == nil { consider(entry, at: childPath, announce: announce, &events) }
        default:
          continue
        }
      }
    }
    if notNamed > 0 {
      events.append(
        DocumentEvent(
          .notWatched, path: path,
          message: "\(notNamed) more folders under \(path) are not watched (and the folders inside them)"))
      notNamed = 0
    }
    refreshCounts()
    return first
  }

  /// Folders left out by the current walk beyond the first few named in notices.
  private var notNamed = 0
  private var namedInWalk = 0

  /// Counts a folder that could not be watched; the first three of a walk get a notice each,
  /// the others one notice at the walk's end (a tree far past the limit is not a flood).
  private func leftOut(_ path: FilePath, _ reason: String, _ events: inout [DocumentEvent]) {
    summary.foldersNotWatched += 1
    if namedInWalk < 3 {
      namedInWalk += 1
      events.append(DocumentEvent(.notWatched, path: path, message: "\(path) is not watched: \(reason)"))
    } else {
      notNamed += 1
    }
  }

  // MARK: - Events

  /// Turns the kernel's events into document events, then settles what is due.
  func handle(_ raw: [Inotify.Event], now: ContinuousClock.Instant) -> [DocumentEvent] {
    var events: [DocumentEvent] = []
    batchTime = now
    for event in raw { handle(event, now: now, &events) }
    settle(now: now, &events)
    refreshCounts()
    for event in events { summary.events[event.kind, default: 0] += 1 }
    return events
  }

  /// Settles the moves and removals whose time is up (a timeout of the reader's wait).
  func settle(now: ContinuousClock.Instant) -> [DocumentEvent] {
    handle([], now: now)
  }

  /// When the next pending move or removal is due, if any. The name a document was renamed
  /// from needs no wake-up: it is only forgotten, with the next events.
  var nextDeadline: ContinuousClock.Instant? {
    let all =
      vacancies.values.filter(\.deleted).map(\.deadline) + documentMoves.values.map(\.deadline)
      + folderMoves.values.map(\.deadline)
    return all.min()
  }

  private func handle(_ event: Inotify.Event, now: ContinuousClock.Instant, _ events: inout [DocumentEvent]) {
    if event.events.contains(.overflowed) {
      rescan(&events)
      return
    }
    if event.events.contains(.unmounted) {
      unmountedFolders.insert(event.watch)
      return
    }
    if event.events.contains(.watchRemoved) {
      if let root = folders[event.watch]?.root { rootGone(root, watch: event.watch, &events) }
      unmountedFolders.remove(event.watch)
      forgetFolder(event.watch, &events)
      return
    }
    guard let folderPath = path(ofFolder: event.watch), !event.name.isEmpty else { return }
    let entry = Entry(folder: event.watch, name: event.name)
    let path = folderPath.appending(event.name)
    let deadline = now.advanced(by: options.settleTime)

    // A folder followed as a document (documents mode) is handled as a file is.
    if event.events.contains(.isFolder), mode == .folders {
      if event.events.contains(.movedFrom), let child = folderByEntry.removeValue(forKey: entry) {
        folderMoves[event.cookie] = PendingMove(
          identity: nil, folder: child, oldPath: path, deadline: deadline)
      } else if event.events.contains(.movedTo), let move = folderMoves.removeValue(forKey: event.cookie),
        let child = move.folder, folders[child] != nil
      {
        moveFolder(child, from: move.oldPath, to: entry, path: path, &events)
      } else if event.events.contains(.created) || event.events.contains(.movedTo), options.recursive {
        watchTree(path, parent: event.watch, name: event.name, isRoot: false, announce: true, &events)
      } else if event.events.contains(.deleted) {
        folderByEntry[entry] = nil
      }
      return
    }

    if event.events.contains(.movedFrom) {
      if let identity = documentByEntry.removeValue(forKey: entry) {
        documentMoves[event.cookie] = PendingMove(
          identity: identity, folder: nil, oldPath: path, deadline: deadline)
        vacancies[entry] = Vacancy(identity: identity, deadline: deadline, deleted: false)
      }
    } else if event.events.contains(.movedTo) {
      if let move = documentMoves.removeValue(forKey: event.cookie), let identity = move.identity {
        moveDocument(identity, from: move.oldPath, to: entry, path: path, &events)
      } else {
        arrival(entry, at: path, now: now, &events)
      }
    } else if event.events.contains(.created) {
      arrival(entry, at: path, now: now, &events)
    } else if event.events.contains(.deleted) {
      if let identity = documentByEntry.removeValue(forKey: entry) {
        vacancies[entry] = Vacancy(identity: identity, deadline: deadline, deleted: true)
      }
    } else if event.events.contains(.closedAfterWriting) {
      guard let identity = documentByEntry[entry], let document = documents[identity] else { return }
      // Written through a descriptor opened before a replacement: not the document now.
      guard let status = try? FileStatus.of(path, followSymlinks: false), DocumentIdentity(status) == identity
      else { return }
      events.append(
        DocumentEvent(
          .modified, path: path, identity: identity, fingerprint: document.fingerprint,
          message: "\(path) was written in place"))
      checkKey(identity, at: path, retryRepair: true, &events)
    } else if event.events.contains(.attributesChanged) {
      if let identity = documentByEntry[entry] {
        // A mode or owner change can change what repair decides (Emacs gives its new file
        // the document's mode only after writing it): a refused repair is tried again.
        checkKey(identity, at: path, retryRepair: true, &events)
      } else if mode == .folders {
        consider(entry, at: path, announce: true, &events)
      }
    }
  }

  /// A file came to `entry` (made there, or renamed there from a name not followed).
  private func arrival(
    _ entry: Entry, at path: FilePath, now: ContinuousClock.Instant, _ events: inout [DocumentEvent]
  ) {
    guard let status = try? FileStatus.of(path, followSymlinks: false),
      status.kind == .regular || (mode == .documents && status.kind == .directory)
    else { return }
    let identity = DocumentIdentity(status)
    if let old = documentByEntry[entry] {
      guard old != identity else { return }  // already known (seen by a listing)
      replace(old, with: identity, at: entry, path: path, oldPath: path, seenAt: .now, &events)
      return
    }
    // A removed document's inode number is often given to the next file made (the same
    // identity, another file): that is its replacement too.
    if let vacancy = vacancies[entry], vacancy.deadline >= now, let document = documents[vacancy.identity],
      documents[identity] == nil || (vacancy.deleted && identity == vacancy.identity)
    {
      vacancies[entry] = nil
      let oldPath = self.path(of: document.entry) ?? path
      // The document was renamed away and a new file took its name (Vim's and Emacs's
      // backup-rename save): the document stays at its name, and the backup is a copy.
      if let moved = escrowMovesToUndo.removeValue(forKey: vacancy.identity) {
        try? options.escrow?.putBack(moved)
      }
      if documentByEntry[document.entry] == vacancy.identity { documentByEntry[document.entry] = nil }
      replace(
        vacancy.identity, with: identity, at: entry, path: path, oldPath: oldPath, seenAt: vacancy.leftAt,
        &events)
      return
    }
    guard documents[identity] == nil, mode == .folders else { return }
    consider(entry, at: path, announce: true, &events)
  }

  /// How much earlier than the watcher saw the document leave (or be replaced) a file that
  /// takes its path may have been made and still count as the editor's new version: events
  /// are read after the fact. A file older than that was moved in, not written.
  static let replacementSlack: Int64 = 2

  /// The document `old` is now the file `identity` at `entry`: report the replacement,
  /// then what became of its key. `seenAt`: when the watcher saw the document leave or be
  /// replaced (`nil` when it did not see it happen, as after a queue overflow); a file made
  /// no more than ``replacementSlack`` seconds before is the observed successor.
  func replace(
    _ old: DocumentIdentity, with identity: DocumentIdentity, at entry: Entry, path: FilePath,
    oldPath: FilePath, seenAt: Timestamp? = nil, _ events: inout [DocumentEvent]
  ) {
    guard var document = documents.removeValue(forKey: old) else { return }
    if let displaced = documents[identity] {
      // A followed document was renamed over this one: it is followed at its new place.
      documentByEntry[displaced.entry] = nil
    }
    document.entry = entry
    document.identity = identity
    document.replacedAtPath = false
    if let seenAt, let born = (try? FileStatus.of(path, followSymlinks: false))?.birthTime {
      document.replacedAtPath =
        born >= Timestamp(seconds: seenAt.seconds - Self.replacementSlack, nanoseconds: seenAt.nanoseconds)
    }
    documents[identity] = document
    documentByEntry[entry] = identity
    let moved = oldPath == path ? "" : " (it was at \(oldPath))"
    events.append(
      DocumentEvent(
        .replaced, oldPath: oldPath, path: path, oldIdentity: old, identity: identity,
        fingerprint: document.fingerprint, isOwnSave: identity.isOwnSave,
        message: identity.isOwnSave
          ? "\(path) was replaced by this process's own save\(moved)"
          : "\(path) was replaced by another file\(moved): reload it"))
    checkKey(identity, at: path, retryRepair: true, &events)
  }

  /// The followed document `identity` was renamed from `oldPath` to `entry`.
  func moveDocument(
    _ identity: DocumentIdentity, from oldPath: FilePath, to entry: Entry, path: FilePath,
    _ events: inout [DocumentEvent]
  ) {
    guard var document = documents[identity] else { return }
    if let displaced = documentByEntry[entry], displaced != identity, let other = documents[displaced] {
      documents[displaced] = nil
      if document.hasKey, other.fingerprint == document.fingerprint {
        // A new version carrying the same key renamed over the document: a safe save
        // (`replaceDocument`, or a copy made with its attributes). One document, replaced.
        if let until = document.freshCopyUntil, batchTime <= until {
          vacancies = vacancies.filter { $0.value.identity != identity || $0.value.deleted }
        }
        document.freshCopyUntil = nil
        document.entry = entry
        documents[identity] = document
        documentByEntry[entry] = identity
        let own = identity.isOwnSave
        events.append(
          DocumentEvent(
            .replaced, oldPath: path, path: path, oldIdentity: displaced, identity: identity,
            fingerprint: document.fingerprint, isOwnSave: own,
            message: own
              ? "\(path) was replaced by this process's own save, which kept its key"
              : "\(path) was replaced by a new version that kept its key: reload it"))
        return
      }
      events.append(
        DocumentEvent(
          .replaced, oldPath: path, path: path, oldIdentity: displaced, identity: identity,
          fingerprint: other.fingerprint, isOwnSave: identity.isOwnSave,
          message: "\(path) was replaced by \(oldPath), renamed over it: reload it"))
    } else if oldPath.lastComponent.firstRange(of: TemporaryVersion.marker) != nil {
      // A new document (`createDocument`, `saveCopy`) renamed from its save's hidden name:
      // it appeared, it did not move.
      document.entry = entry
      documents[identity] = document
      documentByEntry[entry] = identity
      events.append(
        DocumentEvent(
          .appeared, path: path, identity: identity, fingerprint: document.fingerprint,
          isOwnSave: identity.isOwnSave,
          message: "\(path) carries key \(document.fingerprint.map(String.init(describing:)) ?? "none")"))
      recordMove(document, at: path)
      return
    }
    document.entry = entry
    documents[identity] = document
    documentByEntry[entry] = identity
    events.append(
      DocumentEvent(
        .moved, oldPath: oldPath, path: path, oldIdentity: identity, identity: identity,
        fingerprint: document.fingerprint, message: "\(oldPath) moved to \(path)"))
    recordMove(document, at: path)
    if document.awaitingRepair {
      repair(&document, at: path, &events)
      documents[identity] = document
    }
  }

  /// The folder `child` was renamed from `oldPath` to `entry`: every document under it moved.
  private func moveFolder(
    _ child: Int32, from oldPath: FilePath, to entry: Entry, path: FilePath, _ events: inout [DocumentEvent]
  ) {
    let inside = documents.values.filter { isInside($0.entry.folder, child) }
    let before = inside.map { self.path(of: $0.entry) }
    folders[child]?.parent = entry.folder
    folders[child]?.name = entry.name
    folderByEntry[entry] = child
    for (document, old) in zip(inside, before) {
      guard let now = self.path(of: document.entry), let old else { continue }
      events.append(
        DocumentEvent(
          .moved, oldPath: old, path: now, oldIdentity: document.identity, identity: document.identity,
          fingerprint: document.fingerprint, message: "\(old) moved to \(now) (its folder \(oldPath) moved)"))
      recordMove(document, at: now)
    }
  }

  /// A file not followed by this name, at `entry`: followed from now on when it carries a
  /// key; a followed document that left its name for this one (seen by listing a folder
  /// just made, before its rename's event) is reported moved.
  func consider(_ entry: Entry, at path: FilePath, announce: Bool, _ events: inout [DocumentEvent]) {
    guard let status = try? FileStatus.of(path, followSymlinks: false), status.kind == .regular else {
      return
    }
    let identity = DocumentIdentity(status)
    if let known = documents[identity] {
      guard known.entry != entry else { return }
      let oldPath = self.path(of: known.entry)
      let stillThere =
        oldPath.flatMap { try? FileStatus.of($0, followSymlinks: false) }.map {
          DocumentIdentity($0) == identity
        }
        ?? false
      guard !stillThere else { return }  // a second name of a followed file (a hard link)
      if documentByEntry[known.entry] == identity { documentByEntry[known.entry] = nil }
      documentMoves = documentMoves.filter { $0.value.identity != identity }
      moveDocument(identity, from: oldPath ?? path, to: entry, path: path, &events)
      return
    }
    guard let fingerprint = Self.key(at: path) else {
      guard recordedPaths.contains(path), case .absent? = try? Self.readKey(at: path) else { return }
      // A document the escrow recorded here, without its key: lost while nothing watched.
      var document = Document(entry: entry, identity: identity, fingerprint: nil, hasKey: false)
      document.awaitingRepair = true
      documentByEntry[entry] = identity
      events.append(
        DocumentEvent(
          .keyLost, path: path, identity: identity,
          message:
            "\(path) carries no key, but the escrow recorded a document here: a save dropped user.docbm.key"))
      repair(&document, at: path, &events)
      documents[identity] = document
      return
    }
    var document = Document(entry: entry, identity: identity, fingerprint: fingerprint, hasKey: true)
    if announce { document.freshCopyUntil = batchTime.advanced(by: options.settleTime) }
    documents[identity] = document
    documentByEntry[entry] = identity
    // A new version `replaceDocument` is writing is followed, not announced: its rename over
    // the document is reported as the document's replacement.
    guard announce, entry.name.firstRange(of: TemporaryVersion.marker) == nil else { return }
    events.append(
      DocumentEvent(
        .appeared, path: path, identity: identity, fingerprint: fingerprint,
        message: "\(path) carries key \(fingerprint)"))
    recordMove(document, at: path)
  }

  /// Reads the document's key again; reports a lost key and, when asked, repairs it.
  func checkKey(
    _ identity: DocumentIdentity, at path: FilePath, retryRepair: Bool, _ events: inout [DocumentEvent]
  ) {
    guard var document = documents[identity] else { return }
    defer { documents[identity] = document }
    let found: KeyAttribute.Found
    do {
      found = try Self.readKey(at: path)
    } catch {
      return  // gone, or unreadable now: the next event says what became of it
    }
    switch found {
    case .key(let key):
      document.hasKey = true
      document.fingerprint = key.fingerprint
      document.awaitingRepair = false
      return
    case .malformed:
      // Something is in the attribute: not a lost key, and repair never replaces one.
      document.awaitingRepair = false
      return
    case .absent:
      break
    }
    if document.hasKey {
      document.hasKey = false
      document.awaitingRepair = true
      document.lastRefusal = nil
      let named = document.fingerprint.map { " (\($0))" } ?? ""
      events.append(
        DocumentEvent(
          .keyLost, path: path, identity: identity, fingerprint: document.fingerprint,
          message: "\(path) lost its key\(named): a save dropped user.docbm.key"))
    } else if !(retryRepair && document.awaitingRepair) {
      return
    }
    repair(&document, at: path, &events)
  }

  private func repair(_ document: inout Document, at path: FilePath, _ events: inout [DocumentEvent]) {
    guard options.repairs, let escrow = options.escrow else { return }
    // Events are read after the fact: when the file at the path is no longer this document
    // (moved on, replaced again), a later event brings it, and the repair is tried then.
    guard let status = try? FileStatus.of(path, followSymlinks: false),
      DocumentIdentity(status) == document.identity
    else { return }
    // A repairer per repair: its checker reads the escrow's records as they are now,
    // moves recorded since the watch began included.
    let report = DocumentRepairer(escrow: escrow).repair(
      path, evidence: document.replacedAtPath ? .observedReplacement : [])
    switch report.action {
    case .restored:
      recordedPaths.insert(path)  // repair recorded the document as it is now
      document.hasKey = true
      document.awaitingRepair = false
      document.fingerprint = report.fingerprint ?? document.fingerprint
      events.append(
        DocumentEvent(
          .keyRestored, path: path, identity: document.identity, fingerprint: report.fingerprint,
          repair: report,
          message: "\(path): key \(report.fingerprint.map(String.init(describing:)) ?? "") put back"))
    case .refused:
      guard document.lastRefusal != report.refusal else { return }
      document.lastRefusal = report.refusal
      events.append(
        DocumentEvent(
          .repairRefused, path: path, identity: document.identity, fingerprint: report.fingerprint,
          repair: report, message: "\(path): \(report.message)"))
    case .nothingToDo:
      return
    }
  }

  private func recordMove(_ document: Document, at path: FilePath) {
    guard options.recordsSightings, document.hasKey, let escrow = options.escrow,
      let fingerprint = document.fingerprint
    else { return }
    guard let moved = try? escrow.followDocument(of: fingerprint, to: path) else { return }
    if vacancies.values.contains(where: { $0.identity == document.identity && !$0.deleted }) {
      escrowMovesToUndo[document.identity] = moved
    }
    if options.repairs { recordedPaths.insert(path) }
  }

  // MARK: - Settling

  private func settle(now: ContinuousClock.Instant, _ events: inout [DocumentEvent]) {
    let overfull = vacancies.count + documentMoves.count + folderMoves.count > Self.pendingLimit
    let due = { (deadline: ContinuousClock.Instant) in overfull || deadline <= now }
    for (cookie, move) in folderMoves where due(move.deadline) {
      folderMoves[cookie] = nil
      guard let child = move.folder, folders[child] != nil else { continue }
      let inside = documents.values.filter { isInside($0.entry.folder, child) }
      for document in inside {
        let old = path(of: document.entry)
        documents[document.identity] = nil
        documentByEntry[document.entry] = nil
        events.append(
          DocumentEvent(
            .movedOut, oldPath: old, path: nil, oldIdentity: document.identity,
            fingerprint: document.fingerprint,
            message:
              "\(old.map(String.init(describing:)) ?? "a document") left the watched folders with \(move.oldPath)"
          ))
      }
      removeFolderTree(child)
    }
    for (cookie, move) in documentMoves where due(move.deadline) {
      documentMoves[cookie] = nil
      guard let identity = move.identity, let document = documents[identity],
        documentByEntry[document.entry] != identity
      else { continue }
      documents[identity] = nil
      events.append(
        DocumentEvent(
          .movedOut, oldPath: move.oldPath, path: nil, oldIdentity: identity,
          fingerprint: document.fingerprint,
          message: "\(move.oldPath) moved out of the watched folders"))
    }
    for (entry, vacancy) in vacancies where due(vacancy.deadline) {
      vacancies[entry] = nil
      // A document renamed away whose name nothing took: its move in the escrow stands.
      escrowMovesToUndo[vacancy.identity] = nil
      guard vacancy.deleted, let document = documents[vacancy.identity],
        documentByEntry[document.entry] != vacancy.identity
      else { continue }
      documents[vacancy.identity] = nil
      let old = path(of: entry)
      events.append(
        DocumentEvent(
          .deleted, oldPath: old, path: nil, oldIdentity: vacancy.identity, fingerprint: document.fingerprint,
          message: "\(old.map(String.init(describing:)) ?? "a document") was deleted"))
    }
  }

  // MARK: - Folders

  /// A watch the kernel removed (its folder deleted) or that was removed here.
  /// Reports that the folder `root`, given to the watcher, is gone; when it was the last,
  /// says that nothing is left to watch (``nothingLeftToWatch``).
  func rootGone(_ root: FilePath, watch: Int32, _ events: inout [DocumentEvent]) {
    rootPaths.removeAll { $0 == root }
    if rootPaths.isEmpty { nothingLeftToWatch = true }
    let how = unmountedFolders.contains(watch) ? "its filesystem was unmounted" : "it was removed"
    let rest =
      nothingLeftToWatch
      ? "nothing is left to watch, and the watcher has stopped"
      : "nothing in it is watched any more"
    events.append(DocumentEvent(.folderGone, path: root, message: "\(root) is gone (\(how)): \(rest)"))
  }

  func forgetFolder(_ watch: Int32, _ events: inout [DocumentEvent]) {
    guard let folder = folders.removeValue(forKey: watch) else { return }
    if let parent = folder.parent, folderByEntry[Entry(folder: parent, name: folder.name)] == watch {
      folderByEntry[Entry(folder: parent, name: folder.name)] = nil
    }
    for (identity, document) in documents where document.entry.folder == watch {
      documents[identity] = nil
      documentByEntry[document.entry] = nil
    }
  }

  /// Stops watching `watch` and every folder under it.
  private func removeFolderTree(_ watch: Int32) {
    let inside = folders.keys.filter { isInside($0, watch) }
    for folder in inside {
      inotify.unwatch(folder)
      if let removed = folders.removeValue(forKey: folder), let parent = removed.parent {
        folderByEntry[Entry(folder: parent, name: removed.name)] = nil
      }
      for (identity, document) in documents where document.entry.folder == folder {
        documents[identity] = nil
        documentByEntry[document.entry] = nil
      }
    }
  }

  /// Whether folder `watch` is `ancestor` or inside it.
  private func isInside(_ watch: Int32, _ ancestor: Int32) -> Bool {
    var current: Int32? = watch
    var steps = 0
    while let folder = current, steps < 4096 {
      if folder == ancestor { return true }
      current = folders[folder]?.parent
      steps += 1
    }
    return false
  }

  /// The path of a watched folder, from its root.
  func path(ofFolder watch: Int32) -> FilePath? {
    var names: [[UInt8]] = []
    var current = watch
    for _ in 0..<4096 {
      guard let folder = folders[current] else { return nil }
      if let root = folder.root {
        return names.reversed().reduce(root) { $0.appending($1) }
      }
      names.append(folder.name)
      guard let parent = folder.parent else { return nil }
      current = parent
    }
    return nil
  }

  func path(of entry: Entry) -> FilePath? {
    path(ofFolder: entry.folder)?.appending(entry.name)
  }

  private func refreshCounts() {
    summary.folders = folders.count
    summary.documents = documents.count
  }

  // MARK: - Keys

  /// The fingerprint of the key the file at `path` carries, if it carries one.
  static func key(at path: FilePath) -> KeyFingerprint? {
    guard case .key(let key)? = try? readKey(at: path) else { return nil }
    return key.fingerprint
  }

  /// The file's key attribute, read without following a final symbolic link.
  static func readKey(at path: FilePath) throws(SystemCallError) -> KeyAttribute.Found {
    guard
      let value = try ExtendedAttributes.value(
        KeyAttribute.name, of: .path(path, followSymlinks: false), sizeHint: 64)
    else { return .absent }
    return KeyAttribute.decode(value)
  }
}
