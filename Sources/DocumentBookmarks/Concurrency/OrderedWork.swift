/// Work done on ``WorkerThreads`` while the caller goes on producing more, and handed back
/// to the caller in the order it was submitted: a tree check's documents, a store's
/// records.
///
/// At most `window` inputs are in flight at once, so memory stays flat however many are
/// submitted. The threads take inputs one at a time from one queue, so a slow one holds up
/// no other thread, only its own delivery. The caller is woken once per batch of finished
/// work, not once per input. Only the thread that made it calls ``submit(_:deliver:)`` and
/// ``finish(deliver:)``.
package final class OrderedWork<Input: Sendable, Output: Sendable>: Sendable {
  private struct Ring {
    /// Inputs not yet taken by a thread, by submission number modulo the window.
    var inputs: [Input?]
    /// Outputs by submission number modulo the window.
    var outputs: [Output?]
    var submitted = 0
    var delivered = 0
    var completed = 0
    /// While the caller waits: how many completed outputs wake it.
    var wakeAtCompleted: Int?

    /// Whether the next output in order is there.
    var nextIsReady: Bool { delivered < submitted && outputs[delivered % outputs.count] != nil }
  }

  private let threads: WorkerThreads
  private let transform: @Sendable (Input) -> Output
  private let ring: ConditionLock<Ring>
  private let outputReady: ConditionLock<Ring>.Condition
  private let window: Int

  /// Outputs completed before a waiting caller is woken.
  private static var wakeBatch: Int { 32 }

  /// Starts `workers` threads named `name` that apply `transform` to each input.
  package init(
    workers: Int, window: Int, named name: String, _ transform: @escaping @Sendable (Input) -> Output
  ) {
    self.window = max(1, window)
    self.transform = transform
    ring = ConditionLock(
      Ring(
        inputs: Array(repeating: nil, count: self.window), outputs: Array(repeating: nil, count: self.window))
    )
    outputReady = ring.makeCondition()
    threads = WorkerThreads(named: name, count: workers)
  }

  /// Queues `inputs`, calling `deliver` on the calling thread with every output that is
  /// ready in order, and waiting for outputs while the window is full.
  package func submit(_ inputs: some Sequence<Input>, deliver: (Output) -> Void) {
    for input in inputs {
      if ring.withLock({ $0.submitted - $0.delivered == window }) {
        waitForOutputs()
        deliverReady(deliver)
      }
      let number = ring.withLock { ring in
        defer { ring.submitted += 1 }
        ring.inputs[ring.submitted % window] = input
        return ring.submitted
      }
      threads.submit { [self] in
        // The input is let go of before its output is handed over: once the caller has
        // every output, no thread holds an input (and what it keeps open).
        var input = ring.withLock { ring in
          defer { ring.inputs[number % window] = nil }
          return ring.inputs[number % window]
        }
        let output = transform(input!)
        input = nil
        ring.withLock { ring in
          ring.outputs[number % window] = output
          ring.completed += 1
          if let wake = ring.wakeAtCompleted, ring.completed >= wake, ring.nextIsReady, outputReady.hasWaiters
          {
            outputReady.signal()
          }
        }
      }
    }
    deliverReady(deliver)
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

  /// Delivers the outputs that are ready, in order, without waiting.
  private func deliverReady(_ deliver: (Output) -> Void) {
    while let output = ring.withLock({ ring -> Output? in
      guard ring.nextIsReady else { return nil }
      defer {
        ring.outputs[ring.delivered % window] = nil
        ring.delivered += 1
      }
      return ring.outputs[ring.delivered % window]
    }) {
      deliver(output)
    }
  }

  /// Waits until the next output in order is ready and a batch of others has completed
  /// too (or everything submitted has).
  private func waitForOutputs() {
    ring.withLock(
      waitingOn: outputReady,
      until: { ring in
        let target = min(ring.submitted, ring.delivered + OrderedWork.wakeBatch)
        if ring.nextIsReady && ring.completed >= target { return true }
        ring.wakeAtCompleted = target
        return false
      },
      { $0.wakeAtCompleted = nil })
  }
}
