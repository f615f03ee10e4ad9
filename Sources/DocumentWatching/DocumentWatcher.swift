import DocbmSystem
public import DocumentBookmarks
import FoundationEssentials
import Synchronization

/// Follows documents, not paths, while other programs rename, move, replace, delete or
/// strip them, and tells the app: the Linux counterpart of a file presenter.
///
/// Watch folders (``init(watching:options:)``: every file carrying a key in them, and
/// folders made in them later) or a few documents (``init(following:options:)``). Events
/// arrive through ``events()``, an `AsyncSequence`, or through a callback given to
/// ``start(_:)``, on the watcher's own thread (`docbm-watch`), in the order things happened:
///
/// - ``DocumentEvent/Kind/moved``: renamed or moved within the watched folders (new path);
/// - ``DocumentEvent/Kind/replaced``: a new file took the document's place (an atomic save
///   by another program): reload it, unless ``DocumentEvent/isOwnSave`` says it is this
///   process's own `replaceDocument`;
/// - ``DocumentEvent/Kind/deleted``, ``DocumentEvent/Kind/movedOut``;
/// - ``DocumentEvent/Kind/keyLost``, and with ``WatchOptions/repairs`` the repair's outcome,
///   ``DocumentEvent/Kind/keyRestored`` or ``DocumentEvent/Kind/repairRefused``;
/// - ``DocumentEvent/Kind/folderGone``: a folder given to the watcher was removed or
///   unmounted. After the last one, the watcher stops by itself (``hasNothingLeftToWatch``):
///   ``events()`` ends, and a supervisor can start it again once the folder is back.
///
/// Underneath is inotify: one watch per folder, up to ``WatchOptions/maximumFolders``.
/// When the kernel's queue overflows, the folders are listed again and what changed is
/// reported all the same. The watcher's thread sleeps in `poll(2)` when nothing happens:
/// no timer wakes it, except while a removal waits ``WatchOptions/settleTime`` to see
/// whether a save puts a new file in its place.
///
/// Repair is `DocumentRepairer`'s: a key goes back only on a document of the user's that
/// the escrow recorded for that key, never on a file holding a pasted bookmark or on
/// another user's file. Documents seen at a new path are recorded in the escrow, as
/// `docbm check` records them, so a later repair still knows them.
///
/// Call ``stop()`` when done: the thread holds the watcher until then.
public final class DocumentWatcher: Sendable {
  private struct Run {
    var started = false
    var stopping = false
    /// Whether the reader thread has ended.
    var ended = false
  }

  private let inotify: Inotify
  private let wake: EventNotifier
  private let engine: Mutex<WatchEngine>
  /// Notices from setting up, delivered first.
  private let setupEvents: [DocumentEvent]
  private let run = ConditionLock(Run())
  private let threadEnded: ConditionLock<Run>.Condition

  /// Watches `folders` (recursively, unless ``WatchOptions/recursive`` is off) and follows
  /// every file carrying a key in them. The folders are watched when this returns: changes
  /// from then on are reported once the watcher is started.
  ///
  /// - Throws: `DocbmError`: `notFound` or `permissionDenied` for a folder that cannot be
  ///   read, `unsupportedFileType` for a path that is not a folder, `systemFailure` when no
  ///   inotify instance or watch can be made (the user's limits).
  public convenience init(watching folders: [FilePath], options: WatchOptions = WatchOptions())
    throws(DocbmError)
  {
    try self.init(mode: .folders, paths: folders, options: options)
  }

  /// Follows the documents at `documents` (files or folders): watches the folder each is in
  /// (not recursively), wherever they go within those folders.
  ///
  /// - Throws: `DocbmError` for a document that cannot be found or read.
  public convenience init(following documents: [FilePath], options: WatchOptions = WatchOptions())
    throws(DocbmError)
  {
    var options = options
    options.recursive = false
    try self.init(mode: .documents, paths: documents, options: options)
  }

  private init(mode: WatchEngine.Mode, paths: [FilePath], options: WatchOptions) throws(DocbmError) {
    do {
      inotify = try Inotify()
      wake = try EventNotifier()
    } catch {
      throw DocbmError(
        .systemFailure,
        message: "cannot watch: \(error) (the user's inotify instances, fs.inotify.max_user_instances?)",
        systemCall: error.call, errno: error.errno.rawValue)
    }
    let engine = WatchEngine(inotify: inotify, options: options, mode: mode)
    var notices: [DocumentEvent] = []
    for path in paths {
      switch mode {
      case .folders: notices += try engine.addRoot(path)
      case .documents: try engine.addDocument(path)
      }
    }
    setupEvents = notices
    self.engine = Mutex(engine)
    threadEnded = run.makeCondition()
  }

  /// What is watched now, and what has been seen.
  public var summary: WatchSummary {
    engine.withLock { engine in
      var summary = engine.summary
      for event in setupEvents { summary.events[event.kind, default: 0] += 1 }
      return summary
    }
  }

  /// Whether every folder given to the watcher is gone (removed, or its filesystem
  /// unmounted): the watcher has then stopped by itself, after a
  /// ``DocumentEvent/Kind/folderGone`` event for the last one.
  public var hasNothingLeftToWatch: Bool { engine.withLock { $0.nothingLeftToWatch } }

  /// Starts delivering events to `handler`, on the watcher's thread, one at a time and in
  /// order; returns at once. For apps without Swift concurrency. A handler that takes long
  /// holds up the events after it (the kernel keeps them meanwhile; when its queue
  /// overflows, a rescan reports what changed). Starting twice does nothing.
  ///
  /// - Throws: `DocbmError` `systemFailure` when the watcher's thread cannot be made (the
  ///   user's or the system's thread limit): nothing is watched then, and `start` may be
  ///   called again later.
  public func start(_ handler: @escaping @Sendable (DocumentEvent) -> Void) throws(DocbmError) {
    guard start(handler, finished: {}) else {
      throw DocbmError(
        .systemFailure,
        message:
          "cannot watch: no thread could be made for the watcher (the user's or the system's thread limit: ulimit -u, kernel.threads-max)",
        systemCall: "pthread_create", errno: Errno.tryAgain.rawValue)
    }
  }

  /// The events as an `AsyncSequence`, starting the watcher. The sequence ends when the
  /// watcher is stopped; ending its iteration (or cancelling the task) stops the watcher.
  /// Events are buffered until read. When the watcher's thread cannot be made (the thread
  /// limit), the sequence ends at once: ``start(_:)`` says why.
  public func events() -> AsyncStream<DocumentEvent> {
    AsyncStream(bufferingPolicy: .unbounded) { continuation in
      continuation.onTermination = { [self] _ in stop() }
      _ = start({ continuation.yield($0) }, finished: { continuation.finish() })
    }
  }

  /// Stops watching and waits until the watcher's thread is done (unless called from a
  /// handler, on that thread). Events not yet delivered are dropped, except the rest of
  /// the batch that left nothing to watch (so that every ``DocumentEvent/Kind/folderGone``
  /// arrives). Safe to call twice.
  public func stop() {
    let (started, alreadyStopping) = run.withLock { run in
      defer { run.stopping = true }
      return (run.started, run.stopping)
    }
    guard !alreadyStopping else { return }
    wake.signal()
    guard started, DetachedThread.currentTag != .watcher else { return }
    run.withLock(waitingOn: threadEnded, until: { $0.ended }) { _ in }
  }

  /// Starts the reader thread; `false` when no thread could be made (`done` has run, and
  /// the watcher is as before: not started).
  private func start(
    _ handler: @escaping @Sendable (DocumentEvent) -> Void, finished done: @escaping @Sendable () -> Void
  ) -> Bool {
    let go = run.withLock { run in
      defer { run.started = true }
      return !run.started && !run.stopping
    }
    guard go else {
      done()
      return true
    }
    let started = DetachedThread.start(named: "docbm-watch", tag: .watcher) { [self] in
      for event in setupEvents { handler(event) }
      serve(handler)
      done()
      run.withLock { run in
        run.ended = true
        threadEnded.broadcast()
      }
    }
    if !started {
      // No thread to read events: nothing is watched; a later start may find one.
      run.withLock { $0.started = false }
      done()
    }
    return started
  }

  private var isStopping: Bool { run.withLock { $0.stopping } }

  /// The reader: sleeps in poll until the kernel has events (or a pending removal is due,
  /// or ``stop()`` wakes it), turns them into document events, delivers them.
  private func serve(_ handler: @Sendable (DocumentEvent) -> Void) {
    while !isStopping {
      let deadline = engine.withLock { $0.nextDeadline }
      var timeout: Int32 = -1
      if let deadline {
        let left = deadline - ContinuousClock.now
        let milliseconds =
          left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000
        timeout = Int32(clamping: max(0, milliseconds + 1))
      }
      let read: (events: [Inotify.Event], woken: Bool)
      do {
        read = try inotify.read(timeout: timeout, wakingOn: wake)
      } catch {
        return
      }
      if isStopping { return }
      let now = ContinuousClock.now
      let events = engine.withLock { $0.handle(read.events, now: now) }
      // When nothing is left to watch, the batch is delivered whole even if a stop comes
      // meanwhile (its last event may be what made the app stop the watcher).
      let ending = hasNothingLeftToWatch
      for event in events {
        if isStopping && !ending { return }
        handler(event)
      }
      if ending { return }
    }
  }
}
