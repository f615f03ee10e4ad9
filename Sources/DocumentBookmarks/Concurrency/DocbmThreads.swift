import Foundation
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
private final class WorkerPool: @unchecked Sendable {
  // `condition` guards `queue` and `started`.
  private let condition = NSCondition()
  private var queue: [@Sendable () -> Void] = []
  private var started = false
  private let threadCount: Int

  /// The marker every worker thread sets in its thread dictionary.
  private static let markerKey = "org.docbm.worker"

  init(threads: Int) { threadCount = threads }

  static var isWorkerThread: Bool { Thread.current.threadDictionary[markerKey] as? Bool == true }

  func submit(_ work: @escaping @Sendable () -> Void) {
    condition.lock()
    if !started {
      started = true
      for _ in 0..<threadCount {
        // Named before it starts as well as from inside: a thread started from a Dispatch
        // worker otherwise begins with that worker's name, and Foundation may report it.
        let thread = Thread { [self] in self.serve() }
        thread.name = DocbmThreads.threadName
        thread.start()
      }
    }
    queue.append(work)
    condition.signal()
    condition.unlock()
  }

  private func serve() {
    // Named from inside: the kernel's name of the thread (what `ps` and debuggers show), too.
    Thread.current.name = DocbmThreads.threadName
    ThreadName.setCurrent(DocbmThreads.threadName)
    Thread.current.threadDictionary[WorkerPool.markerKey] = true
    while true {
      condition.lock()
      while queue.isEmpty { condition.wait() }
      let work = queue.removeFirst()
      condition.unlock()
      work()
    }
  }
}
