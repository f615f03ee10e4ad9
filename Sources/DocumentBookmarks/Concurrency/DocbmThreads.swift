import DocbmSystem

/// docbm's own threads, where the `async` calls do their blocking file-system work, so that
/// they never block a thread of Swift concurrency's cooperative pool.
///
/// A small, fixed set of ``WorkerThreads`` (named ``threadName``) made on first use and
/// kept for the life of the process; work waits in one queue, first in, first out.
package enum DocbmThreads {
  /// The name of every docbm thread.
  package static let threadName = "docbm-io"
  /// How many threads there are: enough for a few slow volumes at once, few enough to cost
  /// nothing worth mentioning.
  package static let count = 4

  private static let pool = WorkerThreads(named: threadName, tag: .ioWorker, count: count)

  /// Whether the calling thread is one of docbm's.
  package static var isCurrent: Bool { DetachedThread.currentTag == .ioWorker }

  /// Runs `work` on a docbm thread and returns its result, suspending (not blocking) the
  /// caller meanwhile. A save, resolution or store fault the calling task installed (the
  /// testing product's `withSaveFault`, `withResolutionFault`, `withStoreReadFault`) is
  /// installed for `work` too: the save, resolve or read it runs is the caller's.
  package static func run<Value: Sendable>(
    _ work: @escaping @Sendable () throws -> Value
  ) async throws -> Value {
    let saveFault = SaveFaults.injected
    let resolutionFault = ResolutionFaults.injected
    let storeFault = StoreFaults.injected
    return try await withCheckedThrowingContinuation {
      (continuation: CheckedContinuation<Value, any Error>) in
      pool.submit {
        continuation.resume(
          with: Result {
            try SaveFaults.$injected.withValue(saveFault) {
              try ResolutionFaults.$injected.withValue(resolutionFault) {
                try StoreFaults.$injected.withValue(storeFault) { try work() }
              }
            }
          })
      }
    }
  }
}
