import DocbmSystem
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
    /// The file handle of the file the watcher last read the document's key on, where the
    /// filesystem gives one: the inode number and birth time of a file just deleted can go
    /// to the next file made within one tick of the clock (`cp -a A tmp && mv tmp A` in a
    /// loop), and the handle, which holds the inode's generation, tells the two apart.
    var handle: KernelFileHandle?
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
    /// The close after writing of this process's own save of this file was read (it is
    /// not a write in place); later ones are.
    var sawOwnSaveClose = false
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
  /// Where each entry renamed from a watched folder was, by the rename's cookie, until its
  /// other half comes (for the journal of renames; at most ``renameSourceLimit``).
  var renameSources: [UInt32: FilePath] = [:]
  /// The renames seen in this batch of events, for ``MoveJournal``.
  var renamesSeen: [MoveJournal.Move] = []
  static let renameSourceLimit = 4_096
  var rootPaths: [FilePath] = []
  /// The folders whose filesystem was unmounted, until their watch is removed.
  var unmountedFolders: Set<Int32> = []
  /// Every folder given to the watcher is gone: the watcher stops.
  var nothingLeftToWatch = false
  var summary = WatchSummary()
  /// When the batch of events being handled was read.
  var batchTime = ContinuousClock.now

  /// The paths the escrow recorded documents at (with repair on): a file there without a
  /// key is a document that lost it, followed and repaired even though it was never seen
  /// with its key.
  var recordedPaths: Set<FilePath> = []
  /// The escrow's records moved to follow a document renamed away from a name that a new
  /// file may still take (see `arrival`), as they were before, until the name settles.
  var escrowMovesToUndo: [DocumentIdentity: EscrowRecord] = [:]

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
    // Looked at just above: a path that cannot be resolved is watched as it reads.
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
    // A path that cannot be resolved is looked at as it reads: that reports why.
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
  func watchTree(
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
      guard mode == .folders else { continue }
      let listing: DirectoryStream
      do {
        listing = try DirectoryStream(next.path)
      } catch {
        unlistedFolder(next.path, error, &events)
        continue
      }
      defer {
        if let failure = listing.failure {
          unlistedFolder(next.path, failure, &events)
        }
      }
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

  /// A folder watched whose listing failed: the files in it now are not followed (those
  /// that come later are), and a notice says so.
  func unlistedFolder(_ path: FilePath, _ error: SystemCallError, _ events: inout [DocumentEvent]) {
    events.append(
      DocumentEvent(
        .notWatched, path: path,
        message:
          "the files in \(path) now are not followed: it cannot be listed (\(error)); files that come to it are"
      ))
  }

  /// Folders left out by the current walk beyond the first few named in notices.
  var notNamed = 0
  var namedInWalk = 0

  /// Counts a folder that could not be watched; the first three of a walk get a notice each,
  /// the others one notice at the walk's end (a tree far past the limit is not a flood).
  func leftOut(_ path: FilePath, _ reason: String, _ events: inout [DocumentEvent]) {
    summary.foldersNotWatched += 1
    if namedInWalk < 3 {
      namedInWalk += 1
      events.append(DocumentEvent(.notWatched, path: path, message: "\(path) is not watched: \(reason)"))
    } else {
      notNamed += 1
    }
  }
}
