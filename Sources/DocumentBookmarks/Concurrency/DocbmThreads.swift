import Dispatch
import Synchronization

/// docbm's own threads, where the `async` calls do their blocking file-system work, so that
/// they never block a thread of Swift concurrency's cooperative pool.
///
/// A small, fixed set of threads (named ``threadName``) made on first use and kept for the
/// life of the process; work waits in one queue, first in, first out.
package enum DocbmThreads {
  /// The name of every docbm thread.
  package static let threadName = "docbm-io"
  /// How many threads there are: enough for a few slow volumes at once, few enough to cost
  /// nothing worth mentioning.
  package static let count = 4

  private static let pool = WorkerPool(threads: count)

  /// Whether the calling thread is one of docbm's.
  package static var isCurrent: Bool { WorkerPool.isWorkerThread }

  /// Runs `work` on a docbm thread and returns its result, suspending (not blocking) the
  /// caller meanwhile.
  package static func run<Value: Sendable>(
    _ work: @escaping @Sendable () throws -> Value
  ) async throws -> Value {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
      pool.submit { continuation.resume(with: Result { try work() }) }
    }
  }
}

/// A fixed set of threads taking work from one queue.
private final class WorkerPool: Sendable {
  private struct State {
    var queue: [@Sendable () -> Void] = []
    var started = false
    /// How many workers could be started (none at the thread limit); `nil` until known.
    var workers: Int?
  }
  private let state = Mutex(State())
  /// Counts the work waiting in the queue: a worker takes one piece per signal.
  private let waiting = DispatchSemaphore(value: 0)
  private let threadCount: Int

  init(threads: Int) { threadCount = threads }

  static var isWorkerThread: Bool { DetachedThread.currentTag == .ioWorker }

  func submit(_ work: @escaping @Sendable () -> Void) {
    let (start, queued) = state.withLock { state -> (Bool, Bool) in
      let start = !state.started
      state.started = true
      // Without a single worker (the thread limit), the work runs here rather than never.
      guard state.workers != 0 else { return (start, false) }
      state.queue.append(work)
      return (start, true)
    }
    if queued { waiting.signal() } else { work() }
    if start { startWorkers() }
  }

  /// Starts the workers; when not one could be started, runs what was queued meanwhile.
  private func startWorkers() {
    var workers = 0
    for _ in 0..<threadCount
    where DetachedThread.start(named: DocbmThreads.threadName, tag: .ioWorker, { [self] in self.serve() }) {
      workers += 1
    }
    let stranded = state.withLock { state -> [@Sendable () -> Void] in
      state.workers = workers
      guard workers == 0 else { return [] }
      defer { state.queue.removeAll() }
      return state.queue
    }
    stranded.forEach { $0() }
  }

  private func serve() {
    while true {
      waiting.wait()
      let work = state.withLock { $0.queue.removeFirst() }
      work()
    }
  }
}
