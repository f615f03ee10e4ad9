import DocbmSystem
import DocumentBookmarkStore
import DocumentBookmarks
import Synchronization

/// A `docbm_store`: a ``BookmarkStore`` whose calls run on the caller's thread, following
/// other processes' changes and the user's mounts, with a descriptor that becomes readable
/// when the records change.
final class StoreHandle: CHandle {
  typealias Store = BookmarkStore<JSONValue, JSONValue>

  /// The changes seen since the caller last took them, and the descriptor that says so.
  final class Changes: Sendable {
    let notifier: EventNotifier
    let count = Atomic<UInt64>(0)

    init() throws(SystemCallError) { notifier = try EventNotifier() }

    /// Counts one change and makes the descriptor readable.
    func note() {
      count.add(1, ordering: .relaxed)
      notifier.signal()
    }

    /// The changes counted since the last call; the descriptor is not readable after it
    /// until the next change.
    func take() -> UInt64 {
      notifier.reset()
      return count.exchange(0, ordering: .relaxed)
    }
  }

  let store: Store
  let path: CStringCopy
  let changes: Changes
  /// The store's number for the listener that notes each change in ``changes``.
  private let listener: UInt64

  /// Opens the store at `file` and reads it (a store not made yet is empty).
  ///
  /// - Throws: the store's failure to read the file (``BookmarkStoreError``), or
  ///   `systemFailure` when no descriptor is left for ``changes``.
  init(file: FilePath, policy: StorePolicy) throws(Store.Failure) {
    store = Store(file: file, policy: policy)
    let changes: Changes
    do {
      changes = try Changes()
    } catch {
      throw .docbm(
        DocbmError(
          .systemFailure, path: file,
          message: "no descriptor is left to report the store's changes (\(error))"))
    }
    try store.core.load()
    self.changes = changes
    path = CStringCopy(store.path.bytes)
    listener = store.core.listen { _ in changes.note() }
    following()
  }

  /// Follows other processes' changes and the user's mounts, once the store's folder is
  /// there to watch: after opening, and after each call, since a change may make it.
  func following() { store.startFollowingNow() }

  deinit {
    store.core.stopListening(listener)
    path.release()
  }
}
