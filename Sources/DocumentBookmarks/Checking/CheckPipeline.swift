import FoundationEssentials
import Glibc

/// Checks documents on worker threads while the caller goes on walking the tree, and hands
/// the checks back to the caller in the order the documents were submitted.
///
/// Up to `window` documents are in flight at once, so memory stays flat however large the
/// tree. Workers take documents one at a time from a shared queue, so a slow document (a
/// large file, a bookmark whose target must be searched for) holds up no other worker; the
/// caller lists folders and prints results at the same time, instead of waiting for each
/// folder's checks to finish before listing the next.
///
/// One mutex guards the queue; workers wait on one condition for work, the caller on another
/// for the check it must deliver next, and each side signals the other only when it is
/// known to be waiting.
final class CheckPipeline: @unchecked Sendable {
  /// A document to check: where it is, and the folder it was listed in, open, so that it
  /// is opened by name (no second walk of its whole path).
  struct Document {
    let path: FilePath
    let folder: OpenFolder?
    let name: [UInt8]
    /// The inode number `readdir` gave.
    let inode: UInt64
  }

  /// A listed folder, kept open until every document listed in it has been checked and the
  /// walk has let go of it. Workers only use its descriptor for `openat`; the listing
  /// itself is finished before the folder is shared.
  final class OpenFolder: @unchecked Sendable {
    private let stream: DirectoryStream

    init(_ stream: DirectoryStream) { self.stream = stream }

    var descriptor: FileDescriptor { stream.descriptor }
  }

  private let checker: DocumentChecker
  private let window: Int
  private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
  private let workAvailable = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
  private let resultReady = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
  // Ring buffers indexed by submission number modulo `window`; guarded by `lock`.
  private var pending: [Document?]
  private var results: [DocumentCheck?]
  private var submitted = 0
  private var claimed = 0
  private var delivered = 0
  private var completed = 0
  private var idleWorkers = 0
  /// While the caller waits: the number of completed checks that wakes it.
  private var wakeAtCompleted: Int?
  private var closed = false

  /// Starts `workers` threads; `nil` when not one could be started (the thread limit), so
  /// that the caller checks on its own thread instead.
  init?(checker: DocumentChecker, workers: Int, window: Int) {
    self.checker = checker
    self.window = max(1, window)
    pending = Array(repeating: nil, count: self.window)
    results = Array(repeating: nil, count: self.window)
    pthread_mutex_init(lock, nil)
    pthread_cond_init(workAvailable, nil)
    pthread_cond_init(resultReady, nil)
    var started = 0
    for _ in 0..<max(1, workers) where DetachedThread.start(named: "docbm-check", { [self] in work() }) {
      started += 1
    }
    if started == 0 { return nil }
  }

  deinit {
    pthread_cond_destroy(resultReady)
    pthread_cond_destroy(workAvailable)
    pthread_mutex_destroy(lock)
    resultReady.deallocate()
    workAvailable.deallocate()
    lock.deallocate()
  }

  /// Queues `documents`, calling `deliver` on the calling thread for every check that is
  /// ready in order, and waiting for checks when the window is full.
  func submit(_ documents: [Document], deliver: (DocumentCheck) -> Void) {
    var next = 0
    while next < documents.count {
      pthread_mutex_lock(lock)
      if submitted - delivered == window {
        waitForResults()
        pthread_mutex_unlock(lock)
        deliverReady(deliver)
        pthread_mutex_lock(lock)
      }
      while next < documents.count && submitted - delivered < window {
        pending[submitted % window] = documents[next]
        submitted += 1
        next += 1
      }
      if idleWorkers > 0 { pthread_cond_broadcast(workAvailable) }
      pthread_mutex_unlock(lock)
    }
    deliverReady(deliver)
  }

  /// Waits for every submitted document, delivering the checks in order, then lets the
  /// workers end.
  func finish(deliver: (DocumentCheck) -> Void) {
    pthread_mutex_lock(lock)
    while delivered < submitted {
      waitForResults()
      pthread_mutex_unlock(lock)
      deliverReady(deliver)
      pthread_mutex_lock(lock)
    }
    closed = true
    pthread_cond_broadcast(workAvailable)
    pthread_mutex_unlock(lock)
  }

  /// Delivers the checks that are ready, in order, without waiting.
  private func deliverReady(_ deliver: (DocumentCheck) -> Void) {
    while true {
      pthread_mutex_lock(lock)
      let slot = delivered % window
      guard delivered < submitted, let check = results[slot] else {
        pthread_mutex_unlock(lock)
        return
      }
      results[slot] = nil
      delivered += 1
      pthread_mutex_unlock(lock)
      deliver(check)
    }
  }

  /// Waits until the next check in order is ready and a batch of others has completed
  /// too (or everything submitted has), so that the caller wakes once per batch rather
  /// than once per document. Called and returns with `lock` held.
  private func waitForResults() {
    let target = min(submitted, delivered + CheckPipeline.wakeBatch)
    while results[delivered % window] == nil || completed < target {
      wakeAtCompleted = target
      pthread_cond_wait(resultReady, lock)
      wakeAtCompleted = nil
    }
  }

  /// Checks that complete before a waiting caller is woken.
  private static let wakeBatch = 32

  /// A worker's loop: take the next document, check it, store the check; end when the
  /// pipeline is closed and drained.
  private func work() {
    pthread_mutex_lock(lock)
    while true {
      while claimed == submitted && !closed {
        idleWorkers += 1
        pthread_cond_wait(workAvailable, lock)
        idleWorkers -= 1
      }
      if claimed == submitted {
        pthread_mutex_unlock(lock)
        return
      }
      let index = claimed
      claimed += 1
      var document = pending[index % window]
      pending[index % window] = nil
      pthread_mutex_unlock(lock)

      let check = document.map {
        checker.check($0.path, in: $0.folder?.descriptor, named: $0.name, inode: $0.inode)
      }!
      // Let go of the folder before the check is handed over: once the caller has every
      // check, no worker keeps a folder open.
      document = nil

      pthread_mutex_lock(lock)
      results[index % window] = check
      completed += 1
      if let wakeAtCompleted, completed >= wakeAtCompleted, results[delivered % window] != nil {
        pthread_cond_signal(resultReady)
      }
    }
  }
}
