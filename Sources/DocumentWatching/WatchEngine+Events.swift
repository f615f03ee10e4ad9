import DocbmSystem
import DocumentBookmarks

/// How the engine turns the kernel's events into events about documents: arrivals,
/// moves of documents and folders, and the repairs they call for.
extension WatchEngine {
  /// Turns the kernel's events into document events, then settles what is due.
  func handle(_ raw: [Inotify.Event], now: ContinuousClock.Instant) -> [DocumentEvent] {
    var events: [DocumentEvent] = []
    batchTime = now
    for event in raw {
      noteRename(event)
      handle(event, now: now, &events)
    }
    if !renamesSeen.isEmpty, let escrow = options.escrow {
      MoveJournal(folder: escrow.folder).record(renamesSeen)
    }
    renamesSeen = []
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

  /// Notes a rename within the watched folders, of any file or folder, for the journal of
  /// renames that resolution reads (``MoveJournal``): its source by cookie, then, with its
  /// other half, its identity at the new path.
  func noteRename(_ event: Inotify.Event) {
    guard options.escrow != nil, !event.name.isEmpty, let folderPath = path(ofFolder: event.watch) else {
      return
    }
    let path = folderPath.appending(event.name)
    if event.events.contains(.movedFrom) {
      if renameSources.count >= Self.renameSourceLimit { renameSources.removeAll() }
      renameSources[event.cookie] = path
    } else if event.events.contains(.movedTo), let old = renameSources.removeValue(forKey: event.cookie),
      old != path
    {
      // Renamed on again (or unreadable) before this event was read: the paths still chain
      // (inode 0).
      let status = try? FileStatus.of(path, followSymlinks: false)
      renamesSeen.append(
        MoveJournal.Move(
          inode: status?.inode ?? 0, birthTime: status?.birthTime, oldPath: old, newPath: path))
    }
  }

  func handle(_ event: Inotify.Event, now: ContinuousClock.Instant, _ events: inout [DocumentEvent]) {
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
      // This process's save closing the descriptor it wrote the new version with, after
      // renaming it into place: the save was reported, nothing was written in place.
      if !document.sawOwnSaveClose, identity.closesAfterOwnSave {
        documents[identity]?.sawOwnSaveClose = true
        return
      }
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
        consider(entry, at: path, announce: true, fromEvent: true, &events)
      }
    }
  }

  /// A file came to `entry` (made there, or renamed there from a name not followed).
  func arrival(
    _ entry: Entry, at path: FilePath, now: ContinuousClock.Instant, _ events: inout [DocumentEvent]
  ) {
    // Gone again before its event was read: nothing arrived to follow.
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
        // Best effort, like every sighting: a record left at the backup is corrected when the
        // document is next seen, and the escrow keeps the key either way.
        try? options.escrow?.putBack(moved)
      }
      if documentByEntry[document.entry] == vacancy.identity { documentByEntry[document.entry] = nil }
      replace(
        vacancy.identity, with: identity, at: entry, path: path, oldPath: oldPath, seenAt: vacancy.leftAt,
        &events)
      return
    }
    guard documents[identity] == nil, mode == .folders else { return }
    consider(entry, at: path, announce: true, fromEvent: true, &events)
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
    document.handle = nil
    document.replacedAtPath = false
    document.sawOwnSaveClose = false
    // Evidence for repair only: without a birth time, none is claimed.
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
        // (`replaceDocument`, or a copy made with its attributes). One document, replaced;
        // the name the new version leaves was never the document's, so no file made there
        // later is its save, whenever the rename's events are read.
        vacancies = vacancies.filter { $0.value.identity != identity || $0.value.deleted }
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
    if let until = document.freshCopyUntil, batchTime <= until {
      // A copy just made, renamed on: the name it leaves was never a document's, so no
      // file made there later (the next `cp -a` to the same temporary name) is its save.
      vacancies = vacancies.filter { $0.value.identity != identity || $0.value.deleted }
    }
    document.freshCopyUntil = nil
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
  func moveFolder(
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
  /// just made, before its rename's event) is reported moved. `fromEvent`: asked by an
  /// event about this name (a file made, or its attributes changed), not by a listing.
  func consider(
    _ entry: Entry, at path: FilePath, announce: Bool, fromEvent: Bool = false,
    _ events: inout [DocumentEvent]
  ) {
    // Gone again before it was looked at: a later event, or none, tells what became of it.
    guard let status = try? FileStatus.of(path, followSymlinks: false), status.kind == .regular else {
      return
    }
    let identity = DocumentIdentity(status)
    if let known = documents[identity] {
      guard known.entry != entry else { return }
      // An event about another name, while the watcher still follows the document at its
      // own: a different file that got the document's inode number and birth time in turn
      // (a deleted file's number given to the next file within one tick of the clock, as
      // `cp -a A tmp && mv tmp A` in a loop does), not the document moving, whose own
      // rename events say so. Its later events follow it once the document's are read.
      if fromEvent, documentByEntry[known.entry] == identity { return }
      let oldPath = self.path(of: known.entry)
      // An old name that cannot be looked at no longer shows the file there.
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
      // Only a key read as absent is lost; one that cannot be read says nothing.
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
    document.handle = Self.handle(at: path)
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
    // Events are read after the fact: when the file at the path is no longer this document
    // (a `cp -a` temporary renamed away and made again under the same name before its
    // attribute event was read), its key says nothing about this one; a later event brings
    // what became of it.
    guard let status = try? FileStatus.of(path, followSymlinks: false), DocumentIdentity(status) == identity
    else { return }
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
      if document.handle == nil { document.handle = Self.handle(at: path) }
      return
    case .malformed:
      // Something is in the attribute: not a lost key, and repair never replaces one.
      document.awaitingRepair = false
      return
    case .absent:
      // Another file that got the document's inode number and birth time in turn, its key
      // not copied yet: its own events, and the document's, say what became of each.
      if isAnotherFile(than: document, at: path) { return }
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

  /// Whether the file at `path`, which has the document's inode number and birth time, is
  /// nonetheless another file: its handle differs from the one the document's key was read
  /// on. `false` when either handle is unknown, and on FUSE, whose handles hold node IDs the
  /// server hands out anew.
  func isAnotherFile(than document: Document, at path: FilePath) -> Bool {
    guard let recorded = document.handle, let current = Self.handle(at: path), current != recorded else {
      return false
    }
    // A filesystem that cannot be told is taken for FUSE: the key's loss is reported.
    return FileSystemIdentity.fuseAnswer(path: path) == .notFUSE
  }

  /// The file handle of the file at `path` (a final symbolic link not followed); `nil` when
  /// the filesystem gives none or it cannot be read, and the identity alone then decides.
  static func handle(at path: FilePath) -> KernelFileHandle? {
    // `nil`, as documented.
    (try? KernelFileHandle.of(path, followSymlinks: false)) ?? nil
  }

  func repair(_ document: inout Document, at path: FilePath, _ events: inout [DocumentEvent]) {
    guard options.repairs, let escrow = options.escrow else { return }
    // Events are read after the fact: when the file at the path is no longer this document
    // (moved on, replaced again), a later event brings it, and the repair is tried then.
    guard let status = try? FileStatus.of(path, followSymlinks: false),
      DocumentIdentity(status) == document.identity
    else { return }
    // A repairer per repair: its checker reads the escrow's records as they are now,
    // moves recorded since the watch began included.
    // The key it carried, when the watcher saw one on it: the file is that document,
    // wherever it was renamed to, and never takes the key recorded for another path.
    let report = DocumentRepairer(escrow: escrow).repair(
      path, evidence: document.replacedAtPath ? .observedReplacement : [], formerKey: document.fingerprint)
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

  func recordMove(_ document: Document, at path: FilePath) {
    guard options.recordsSightings, document.hasKey, let escrow = options.escrow,
      let fingerprint = document.fingerprint
    else { return }
    // Best effort: a sighting that cannot be recorded leaves the escrow's last one, and the
    // key in it; the next sighting records the document where it is.
    guard let moved = try? escrow.followDocument(of: fingerprint, to: path) else { return }
    if vacancies.values.contains(where: { $0.identity == document.identity && !$0.deleted }) {
      escrowMovesToUndo[document.identity] = moved
    }
    if options.repairs { recordedPaths.insert(path) }
  }
}
