import DocbmSystem

/// Work done on ``WorkerThreads`` while the caller goes on producing more, and handed back
/// to the caller in the order it was submitted: a tree check's documents, a store's
/// records.
///
/// At most `window` inputs are in flight at once, so memory stays flat however many are
/// submitted. The threads take jobs (one input, or a run of consecutive ones) from one
/// queue, so a slow input holds up no other thread, only its own job's delivery. The caller
/// is one of the workers: when it would wait for outputs, it runs queued jobs itself, and
/// sleeps only when every job is taken, to be woken once per batch of finished work, not
/// once per input. So `workers` workers are `workers - 1` threads of docbm's and the
/// caller, never more threads than there is work for. Only the thread that made it calls
/// ``submit(_:deliver:)`` and ``finish(deliver:)``.
package final class OrderedWork<Input: Sendable, Output: Sendable>: Sendable {
  /// The jobs in flight, each a run of consecutive inputs, by job number modulo the window:
  /// a job's inputs and its outputs move in and out of the ring as one array each, so the
  /// threads meet on the lock once per job, not once per input.
  private struct Ring {
    /// Each queued job's inputs, until a thread takes them.
    var inputs: [[Input]?]
    /// Each job's outputs, from when it is done until they are delivered.
    var outputs: [[Output]?]
    var jobsQueued = 0
    var jobsDelivered = 0
    /// Inputs submitted, completed and delivered.
    var submitted = 0
    var completed = 0
    var delivered = 0
    /// While the caller waits: how many completed inputs wake it.
    var wakeAtCompleted: Int?

    /// Whether the next job in order is done.
    var nextIsReady: Bool { jobsDelivered < jobsQueued && outputs[jobsDelivered % outputs.count] != nil }

    /// Whether a waiting caller has enough to deliver: the next job in order, and a batch
    /// of other inputs completed too (or everything submitted).
    var batchIsReady: Bool {
      nextIsReady && completed >= min(submitted, delivered + OrderedWork.wakeBatch)
    }
  }

  private let threads: WorkerThreads
  private let transform: @Sendable (Input) -> Output
  private let ring: ConditionLock<Ring>
  private let outputReady: ConditionLock<Ring>.Condition
  private let window: Int
  /// How many consecutive inputs one job transforms.
  private let inputsPerJob: Int

  /// Inputs completed before a waiting caller is woken.
  private static var wakeBatch: Int { 32 }

  /// Starts `workers - 1` threads named `name` (at least one) that apply `transform` to
  /// each input, the caller being the last worker. A thread takes `inputsPerJob`
  /// consecutive inputs at a time (fewer at the end of a ``submit(_:deliver:)``): more
  /// than one where each input is little work, so that the threads meet on the queue and
  /// the ring once per batch, not once per input.
  package init(
    workers: Int, window: Int, inputsPerJob: Int = 1, named name: String,
    _ transform: @escaping @Sendable (Input) -> Output
  ) {
    self.window = max(1, window)
    self.inputsPerJob = min(max(1, inputsPerJob), self.window)
    self.transform = transform
    // Every job in flight holds at least one input in flight, so `window` slots are enough.
    ring = ConditionLock(
      Ring(
        inputs: Array(repeating: nil, count: self.window), outputs: Array(repeating: nil, count: self.window))
    )
    outputReady = ring.makeCondition()
    threads = WorkerThreads(named: name, count: workers - 1)
  }

  /// Queues `inputs`, calling `deliver` on the calling thread with every output that is
  /// ready in order, and waiting for outputs while the window is full.
  package func submit(_ inputs: some Sequence<Input>, deliver: (Output) -> Void) {
    // The inputs no job has been queued for yet.
    var batch: [Input] = []
    for input in inputs {
      if ring.withLock({ $0.submitted - $0.delivered }) + batch.count == window {
        if !batch.isEmpty { queueJob(for: &batch) }
        waitForOutputs()
        deliverReady(deliver)
      }
      if batch.isEmpty { batch.reserveCapacity(inputsPerJob) }
      batch.append(input)
      if batch.count == inputsPerJob { queueJob(for: &batch) }
    }
    if !batch.isEmpty { queueJob(for: &batch) }
    deliverReady(deliver)
  }

  /// Queues the job that transforms `batch`, leaving it empty.
  private func queueJob(for batch: inout [Input]) {
    let count = batch.count
    let slot = ring.withLock { ring in
      let slot = ring.jobsQueued % window
      ring.inputs[slot] = batch
      ring.jobsQueued += 1
      ring.submitted += count
      return slot
    }
    batch = []
    threads.submit { [self] in
      // The inputs are let go of before their outputs are handed over: once the caller has
      // every output, no thread holds an input (and what it keeps open).
      var inputs = ring.withLock { $0.inputs[slot].take()! }
      var outputs: [Output] = []
      outputs.reserveCapacity(inputs.count)
      for input in inputs { outputs.append(transform(input)) }
      inputs = []
      ring.withLock { ring in
        ring.outputs[slot] = outputs
        ring.completed += count
        if let wake = ring.wakeAtCompleted, ring.completed >= wake, ring.nextIsReady, outputReady.hasWaiters {
          outputReady.signal()
        }
      }
    }
  }

  /// Waits for every submitted input, delivering the outputs in order, then lets the
  /// threads end. The work takes no input after.
  package func finish(deliver: (Output) -> Void) {
    while ring.withLock({ $0.delivered < $0.submitted }) {
      waitForOutputs()
      deliverReady(deliver)
    }
    threads.close()
  }

  /// Delivers the outputs of the jobs that are done, in order, without waiting.
  private func deliverReady(_ deliver: (Output) -> Void) {
    while let outputs = ring.withLock({ ring -> [Output]? in
      guard ring.nextIsReady else { return nil }
      let outputs = ring.outputs[ring.jobsDelivered % window].take()
      ring.jobsDelivered += 1
      ring.delivered += outputs?.count ?? 0
      return outputs
    }) {
      for output in outputs { deliver(output) }
    }
  }

  /// Waits until the next output in order is ready and a batch of others has completed
  /// too (or everything submitted has), transforming queued inputs meanwhile.
  private func waitForOutputs() {
    while !ring.withLock({ $0.batchIsReady }), threads.runQueuedJob() {}
    ring.withLock(
      waitingOn: outputReady,
      until: { ring in
        if ring.batchIsReady { return true }
        ring.wakeAtCompleted = min(ring.submitted, ring.delivered + OrderedWork.wakeBatch)
        return false
      },
      { $0.wakeAtCompleted = nil })
  }
}
