import DocbmSystem
import Glibc
import Synchronization
import Testing

@testable import DocumentBookmarks

@Suite("Ordered work over the worker threads")
struct OrderedWorkTests {
  @Test("outputs come back in submission order though later inputs finish first")
  func outputsInOrder() {
    // Input 0 is held until input 7 has finished: delivery must still start with 0.
    let finished = ConditionLock(Set<Int>())
    let oneFinished = finished.makeCondition()
    let work = OrderedWork<Int, Int>(workers: 4, window: 16, named: "test-ordered") { input in
      if input == 0 {
        finished.withLock(waitingOn: oneFinished, until: { $0.contains(7) }) { _ in }
      }
      finished.withLock { set in
        set.insert(input)
        oneFinished.broadcast()
      }
      return input * 10
    }
    var delivered: [Int] = []
    work.submit(0..<100) { delivered.append($0) }
    work.finish { delivered.append($0) }
    #expect(delivered == (0..<100).map { $0 * 10 })
  }

  @Test("no more inputs than the window are in flight at once")
  func windowBound() {
    // Started and not yet delivered: never more than the window.
    let inFlight = Atomic(0)
    let most = Atomic(0)
    let work = OrderedWork<Int, Int>(workers: 4, window: 8, named: "test-window") { input in
      let now = inFlight.add(1, ordering: .relaxed).newValue
      _ = most.max(now, ordering: .relaxed)
      return input
    }
    var delivered = 0
    let deliver = { (_: Int) in
      delivered += 1
      inFlight.subtract(1, ordering: .relaxed)
    }
    work.submit(0..<400, deliver: deliver)
    work.finish(deliver: deliver)
    #expect(delivered == 400)
    #expect(most.load(ordering: .relaxed) <= 8)
    #expect(most.load(ordering: .relaxed) >= 1)
  }

  /// An input that counts how many of its kind are alive.
  private final class Tracked: Sendable {
    static let alive = Atomic(0)
    let number: Int
    init(_ number: Int) {
      self.number = number
      Tracked.alive.add(1, ordering: .relaxed)
    }
    deinit { Tracked.alive.subtract(1, ordering: .relaxed) }
  }

  @Test("once every output is delivered, no thread holds an input")
  func inputsLetGo() {
    let work = OrderedWork<Tracked, Int>(workers: 2, window: 4, named: "test-inputs") { $0.number }
    var sum = 0
    work.submit((0..<40).map(Tracked.init)) { sum += $0 }
    work.finish { sum += $0 }
    #expect(sum == (0..<40).reduce(0, +))
    #expect(Tracked.alive.load(ordering: .relaxed) == 0)
  }
}

@Suite("Ordered work: batches, and the caller as a worker")
struct OrderedWorkBatchTests {
  @Test("inputs taken several at a time come back in order, within the window")
  func batchesInOrder() {
    let inFlight = Atomic(0)
    let most = Atomic(0)
    let work = OrderedWork<Int, Int>(workers: 3, window: 10, inputsPerJob: 4, named: "test-batches") {
      input in
      let now = inFlight.add(1, ordering: .relaxed).newValue
      _ = most.max(now, ordering: .relaxed)
      return input * 2
    }
    var delivered: [Int] = []
    let deliver = { (output: Int) in
      delivered.append(output)
      inFlight.subtract(1, ordering: .relaxed)
    }
    // Submissions of several sizes, so that batches end both full and short.
    work.submit(0..<7, deliver: deliver)
    work.submit(7..<8, deliver: deliver)
    work.submit(8..<301, deliver: deliver)
    work.finish(deliver: deliver)
    #expect(delivered == (0..<301).map { $0 * 2 })
    #expect(most.load(ordering: .relaxed) <= 10)
  }

  @Test("a caller whose window is full transforms queued inputs itself")
  func callerWorks() {
    // Two workers: one thread and the caller. The thread's first input waits until the
    // caller has transformed another, which it does only if it works instead of waiting.
    let caller = pthread_self()
    let byCaller = Atomic(0)
    let work = OrderedWork<Int, Bool>(workers: 2, window: 4, named: "test-caller") { input in
      if pthread_equal(pthread_self(), caller) != 0 {
        byCaller.add(1, ordering: .releasing)
        return true
      }
      if input == 0 {
        // Bounded, so that a caller that never works fails the test instead of hanging it.
        let deadline = ContinuousClock.now + .seconds(60)
        while byCaller.load(ordering: .acquiring) == 0, ContinuousClock.now < deadline { sched_yield() }
      }
      return false
    }
    var outputs: [Bool] = []
    work.submit(0..<12) { outputs.append($0) }
    work.finish { outputs.append($0) }
    #expect(outputs.count == 12)
    #expect(outputs.contains(true))
  }
}
