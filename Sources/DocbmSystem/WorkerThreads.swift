/// Threads of docbm's own that run jobs from one queue, first in, first out: where blocking
/// file-system work runs, so that it never blocks a thread of Swift concurrency's
/// cooperative pool. docbm's one pool of worker threads: the `async` calls' threads, a tree
/// check's workers and a store's refresh all are one.
///
/// The threads start when the pool is made and end when it is closed and its queue is
/// empty; until ``close()`` they keep the pool alive. When not one thread could be started
/// (the user's or the system's thread limit), each job runs on the thread that submits it,
/// so no job is ever stranded.
package final class WorkerThreads: Sendable {
  /// A job: it runs once, on one of the threads.
  package typealias Job = @Sendable () -> Void

  private struct Queue {
    var jobs: [Job?] = []
    /// The index in `jobs` of the next job to run.
    var next = 0
    var closed = false

    var isEmpty: Bool { next == jobs.count }

    mutating func take() -> Job? {
      guard !isEmpty else { return nil }
      defer {
        jobs[next] = nil
        next += 1
        // Once half the array is done, the rest moves to its front.
        if next > 64 && next * 2 > jobs.count {
          jobs.removeFirst(next)
          next = 0
        }
      }
      return jobs[next]
    }
  }

  private let queue = ConditionLock(Queue())
  private let jobWaiting: ConditionLock<Queue>.Condition
  /// How many threads were started: up to the number asked for, none at the thread limit.
  package let threadCount: Int

  /// Starts `count` threads (at least one), each named `name` in the kernel (what `ps -T`
  /// and debuggers show; at most 15 bytes are kept) and tagged `tag`.
  package init(named name: String, tag: DetachedThread.Tag = .none, count: Int) {
    jobWaiting = queue.makeCondition()
    var started = 0
    // The threads capture `queue` and the condition, not `self`, so the loop below may
    // start them before `self` is whole.
    let queue = queue
    let jobWaiting = jobWaiting
    for _ in 0..<max(1, count)
    where DetachedThread.start(named: name, tag: tag, { WorkerThreads.serve(queue, jobWaiting) }) {
      started += 1
    }
    threadCount = started
  }

  /// Queues `job`; it runs on the first thread free. Without threads it runs now, on the
  /// calling thread.
  ///
  /// - Precondition: the pool is not closed.
  package func submit(_ job: @escaping Job) {
    guard threadCount > 0 else { return job() }
    queue.withLock { queue in
      precondition(!queue.closed, "a job submitted to closed worker threads")
      queue.jobs.append(job)
      if jobWaiting.hasWaiters { jobWaiting.signal() }
    }
  }

  /// Runs the job queued first, if any, on the calling thread: a caller about to wait for
  /// the threads works instead. Returns whether there was one.
  package func runQueuedJob() -> Bool {
    guard let job = queue.withLock({ $0.take() }) else { return false }
    job()
    return true
  }

  /// Lets the threads end once every job queued has run. The pool takes no job after.
  package func close() {
    queue.withLock { queue in
      queue.closed = true
      jobWaiting.broadcast()
    }
  }

  /// A thread's loop: the next job, until the pool is closed and its queue empty.
  private static func serve(_ queue: ConditionLock<Queue>, _ jobWaiting: ConditionLock<Queue>.Condition) {
    while let job = queue.withLock(waitingOn: jobWaiting, until: { !$0.isEmpty || $0.closed }, { $0.take() })
    {
      job()
    }
  }
}
