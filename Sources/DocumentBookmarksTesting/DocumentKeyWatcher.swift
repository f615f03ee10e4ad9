import DocbmSystem
import DocumentBookmarks
import Synchronization

/// Follows the documents a test anchored bookmarks on, with inotify, so that a save that
/// drops a key is caught even when the test deletes the document afterwards (the usual
/// `defer` cleanup), which would hide it from a check at the end.
///
/// For each document it holds a descriptor on the file now at its path, and watches its
/// folder. New files in the folder are opened as soon as they appear, so that when one is
/// renamed over the document (an atomic save) its attributes can be read through the held
/// descriptor, even after the file is gone. A document's file is judged when it leaves
/// its path (replaced or removed) and at the end of the test. Limits: a file renamed over a
/// document, or made anew at its path, and removed before the watcher could open it is
/// reported as not checkable, unless its name shows that `replaceDocument` wrote it; a
/// queue overflow is reported, and so is a document that cannot be followed at all (no
/// inotify instance, its folder not watchable, events that cannot be read).
final class DocumentKeyWatcher: Sendable {
  private struct Entry: Hashable {
    let watch: Int32
    let name: [UInt8]
  }

  private struct Tracked {
    let path: FilePath
    let fingerprint: KeyFingerprint
    var current: FileDescriptor?
  }

  private struct State {
    var folders: [Int32: FilePath] = [:]
    var documents: [Entry: Tracked] = [:]
    var held: [Entry: FileDescriptor] = [:]
    var moves: [UInt32: (descriptor: FileDescriptor?, name: [UInt8])] = [:]
    var failures: [FilePath: String] = [:]
  }

  /// At most this many new files per folder are held open at a time.
  private static let heldLimit = 256
  private static let marker = Array(".docbm-save-".utf8)

  /// The inotify instance, or why there is none.
  private let inotify: Result<Inotify, SystemCallError>
  private let state = Mutex(State())
  private let stopping = Atomic<Bool>(false)
  /// Whether the reading thread has ended (or never started).
  private let stopped = ConditionLock(false)
  private let threadEnded: ConditionLock<Bool>.Condition

  init() {
    inotify = Result { () throws(SystemCallError) in try Inotify() }
    threadEnded = stopped.makeCondition()
    // Without an instance, no thread: `follow` reports each document as not followed.
    let hasInotify = if case .success = inotify { true } else { false }
    let started =
      hasInotify
      && DetachedThread.start(named: "docbm-keywatch") { [self] in
        while !stopping.load(ordering: .acquiring) { drain(timeout: 20) }
        stopped.withLock { stopped in
          stopped = true
          threadEnded.broadcast()
        }
      }
    if !started { stopped.withLock { $0 = true } }
  }

  /// Starts following the document at `path`, whose key has `fingerprint`.
  func follow(_ path: FilePath, _ fingerprint: KeyFingerprint) {
    let absolute = path.absolute.lexicallyNormalized
    let folder = absolute.removingLastComponent
    let events: Inotify.Events = [.created, .movedFrom, .movedTo, .deleted, .onlyFolder]
    let watch: Int32
    do throws(SystemCallError) {
      watch = try inotify.get().watch(folder, for: events)
    } catch {
      // Not followed: a save that drops the key and a removal after it would go unseen.
      state.withLock { state in
        if state.failures[absolute] == nil {
          state.failures[absolute] = "\(absolute) could not be followed during the test: \(error)"
        }
      }
      return
    }
    state.withLock { state in
      state.folders[watch] = folder
      let entry = Entry(watch: watch, name: absolute.lastComponent)
      if state.documents[entry] == nil {
        // A document that cannot be opened now is judged by the file that next comes to its
        // path, and at the end of the test by its path.
        state.documents[entry] = Tracked(
          path: absolute, fingerprint: fingerprint,
          current: try? FileDescriptor.open(absolute, [.readOnly, .nonBlocking]))
      }
    }
  }

  /// Stops following, judges every document's current file, and returns the failures by
  /// path.
  func finish() -> [FilePath: String] {
    stopping.store(true, ordering: .releasing)
    stopped.withLock(waitingOn: threadEnded, until: { $0 }) { _ in }
    drain(timeout: 0)
    return state.withLock { state in
      for (entry, tracked) in state.documents {
        if let current = tracked.current {
          judge(tracked, current, when: "at the end of the test", in: &state)
          current.close()
        }
        state.documents[entry]?.current = nil
      }
      for descriptor in state.held.values { descriptor.close() }
      state.held.removeAll()
      for move in state.moves.values { move.descriptor?.close() }
      state.moves.removeAll()
      return state.failures
    }
  }

  private func drain(timeout: Int32) {
    guard case .success(let inotify) = inotify else { return }
    let events: [Inotify.Event]
    do {
      events = try inotify.read(timeout: timeout)
    } catch {
      // Events lost: every document followed may have been saved unseen.
      state.withLock { state in
        for tracked in state.documents.values where state.failures[tracked.path] == nil {
          state.failures[tracked.path] =
            "\(tracked.path) could not be followed: its events could not be read (\(error))"
        }
      }
      return
    }
    guard !events.isEmpty else { return }
    state.withLock { state in
      for event in events { handle(event, in: &state) }
    }
  }

  private func handle(_ event: Inotify.Event, in state: inout State) {
    if event.events.contains(.overflowed) {
      for tracked in state.documents.values where state.failures[tracked.path] == nil {
        state.failures[tracked.path] =
          "\(tracked.path) could not be followed: too many changes at once (the inotify queue overflowed)"
      }
      return
    }
    guard let folder = state.folders[event.watch], !event.events.contains(.isFolder) else { return }
    let entry = Entry(watch: event.watch, name: event.name)
    let open = {
      // `nil` when the file is gone again: each use below says what that means.
      try? FileDescriptor.open(folder.appending(event.name), [.readOnly, .nonBlocking, .noFollow])
    }

    if var tracked = state.documents[entry] {
      if event.events.contains(.movedTo) {
        tracked.current?.close()
        tracked.current = nil
        let from = state.moves.removeValue(forKey: event.cookie)
        if let from, from.name.firstRange(of: Self.marker) != nil {
          // replaceDocument's own new version: it carries the key by construction. It is not
          // judged by the descriptor held for its name, which may be a later save's file:
          // save slots are numbered, and the next save takes the same name again.
          from.descriptor?.close()
          tracked.current = open()
        } else if let descriptor = from?.descriptor ?? open() {
          tracked.current = descriptor
          judge(tracked, descriptor, when: "when a save renamed a new file over it", in: &state)
        } else if state.failures[tracked.path] == nil {
          state.failures[tracked.path] =
            "\(tracked.path) was replaced by a new file that was removed before its key could be checked; save with replaceDocument"
        }
      } else if event.events.contains(.created) {
        tracked.current?.close()
        tracked.current = open()
        if tracked.current == nil, state.failures[tracked.path] == nil {
          // A new file at the document's path starts without attributes; this one was gone
          // before anything could be known about its key.
          state.failures[tracked.path] =
            "\(tracked.path) was removed and made anew by a save, and the new file was removed before its key could be checked; save with replaceDocument"
        }
      } else if event.events.contains(.deleted) {
        if let current = tracked.current {
          judge(tracked, current, when: "when it was removed", in: &state)
          current.close()
        }
        tracked.current = nil
      } else if event.events.contains(.movedFrom) {
        // The document itself was renamed away: no longer at its path, no longer followed.
        tracked.current?.close()
        state.documents[entry] = nil
        return
      }
      state.documents[entry] = tracked
      return
    }

    if event.events.contains(.created) || event.events.contains(.movedTo) {
      let descriptor =
        event.events.contains(.movedTo)
        ? (state.moves.removeValue(forKey: event.cookie)?.descriptor ?? open()) : open()
      state.held.removeValue(forKey: entry)?.close()
      if let descriptor {
        if state.held.count >= Self.heldLimit, let any = state.held.first {
          any.value.close()
          state.held[any.key] = nil
        }
        state.held[entry] = descriptor
      }
    } else if event.events.contains(.movedFrom) {
      state.moves[event.cookie] = (state.held.removeValue(forKey: entry), event.name)
    } else if event.events.contains(.deleted) {
      state.held.removeValue(forKey: entry)?.close()
    }
  }

  /// Records a failure when the file open as `descriptor` does not carry the document's key.
  private func judge(
    _ tracked: Tracked, _ descriptor: FileDescriptor, when moment: String, in state: inout State
  ) {
    guard state.failures[tracked.path] == nil else { return }
    let found = Result { () throws(DocbmError) in try KeyAttribute.read(from: descriptor, path: tracked.path)
    }
    switch found {
    case .success(.key(let key)) where key.fingerprint == tracked.fingerprint:
      return
    case .success(.key(let key)):
      state.failures[tracked.path] =
        "\(tracked.path) carried key \(key.fingerprint), not \(tracked.fingerprint), \(moment)"
    case .success(.absent):
      state.failures[tracked.path] =
        "\(tracked.path) lost its key (\(tracked.fingerprint)) during the test, seen \(moment): a save dropped user.docbm.key; save with replaceDocument"
    case .success(.malformed(let reason, _)):
      state.failures[tracked.path] = "\(tracked.path) has a damaged key \(moment): \(reason)"
    case .failure(let error):
      state.failures[tracked.path] = "\(tracked.path) could not be checked \(moment): \(error)"
    }
  }
}
