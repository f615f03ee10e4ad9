import DocbmSystem
import DocumentBookmarks
import DocumentWatching
import Synchronization

/// A `docbm_watcher`: a started ``DocumentWatcher`` whose events wait in a queue until the
/// caller reads them, with a descriptor that is readable while the queue holds one.
final class WatcherHandle: CHandle {
  /// The events delivered and not yet read.
  final class Queue: Sendable {
    private struct Events {
      var list: [DocumentEvent] = []
      /// The next event to read in `list`.
      var next = 0
    }

    let notifier: EventNotifier
    private let events = Mutex(Events())

    init() throws(SystemCallError) { notifier = try EventNotifier() }

    /// Queues `event` (on the watcher's thread) and makes the descriptor readable.
    func add(_ event: DocumentEvent) {
      events.withLock { events in
        events.list.append(event)
        notifier.signal()
      }
    }

    /// The oldest event not read, or `nil`; the descriptor stays readable while one is
    /// left.
    func next() -> DocumentEvent? {
      events.withLock { events in
        guard events.next < events.list.count else { return nil }
        let event = events.list[events.next]
        events.next += 1
        if events.next == events.list.count {
          events = Events()
          notifier.reset()
        }
        return event
      }
    }
  }

  let watcher: DocumentWatcher
  let queue: Queue

  /// Starts `watcher`, queueing its events.
  ///
  /// - Throws: `systemFailure` when no descriptor or thread is left.
  init(_ watcher: DocumentWatcher) throws(DocbmError) {
    do {
      queue = try Queue()
    } catch {
      throw DocbmError(
        .systemFailure, message: "no descriptor is left to report the watcher's events (\(error))")
    }
    self.watcher = watcher
    try watcher.start { [queue] event in queue.add(event) }
  }

  deinit { watcher.stop() }
}

/// `docbm_watch_event`: one event, its strings in C form.
final class WatchEventHandle: CHandle {
  let event: DocumentEvent
  let path: CStringCopy?
  let oldPath: CStringCopy?
  let key: CStringCopy?
  let message: CStringCopy

  init(_ event: DocumentEvent) {
    self.event = event
    path = event.path.map { CStringCopy($0.bytes) }
    oldPath = event.oldPath.map { CStringCopy($0.bytes) }
    key = event.fingerprint.map { CStringCopy($0.description) }
    message = CStringCopy(event.message)
  }

  deinit {
    path?.release()
    oldPath?.release()
    key?.release()
    message.release()
  }
}

extension DocumentEvent.Kind {
  /// The `docbm_event_kind` value.
  var cValue: UInt32 {
    switch self {
    case .appeared: 1
    case .moved: 2
    case .replaced: 3
    case .modified: 4
    case .deleted: 5
    case .movedOut: 6
    case .keyLost: 7
    case .keyRestored: 8
    case .repairRefused: 9
    case .rescanned: 10
    case .notWatched: 11
    case .folderGone: 12
    }
  }
}
