import DocbmSystem
import DocumentBookmarks
import FoundationEssentials

/// A thread that sleeps until the store file's folder says the store file was replaced or
/// written, or a change committed (SQLite removes the store's rollback journal at every
/// commit) (inotify: moved to, closed after writing, deleted), then reloads it, so that
/// this process
/// sees another's changes within moments and without polling. The store's own saves wake
/// it too; the reload then finds nothing new and tells nobody.
final class StoreFollower: @unchecked Sendable {
  private let stop: EventNotifier

  /// Starts following, or returns `nil` when the folder cannot be watched (it does not
  /// exist yet, or the user's inotify limits are reached).
  init?(folder: FilePath, names: [[UInt8]], reload: @escaping @Sendable () -> Void) {
    // Any failure: `nil`, as documented; the store is then read when it is used.
    guard let inotify = try? Inotify(), let stop = try? EventNotifier(),
      (try? inotify.watch(folder, for: [.movedTo, .closedAfterWriting, .deleted, .onlyFolder])) != nil
    else { return nil }
    self.stop = stop
    let started = DetachedThread.start(named: "docbm-store") {
      while true {
        // A read fails only without memory (EINTR is retried): following ends, as if stopped.
        guard let (events, stopped) = try? inotify.read(timeout: -1, wakingOn: stop), !stopped else { return }
        if events.contains(where: { names.contains($0.name) || $0.events.contains(.overflowed) }) { reload() }
      }
    }
    guard started else { return nil }
  }

  /// Stops the thread (it ends at its next wake-up, which this causes).
  func cancel() { stop.signal() }

  deinit { stop.signal() }
}
