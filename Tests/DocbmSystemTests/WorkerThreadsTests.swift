import Synchronization
import Testing

@testable import DocbmSystem

@Suite("Worker threads")
struct WorkerThreadsTests {
  @Test("every job submitted runs once, and closing lets the threads end after the queue")
  func everyJobRuns() {
    let threads = WorkerThreads(named: "test-workers", count: 3)
    #expect(threads.threadCount == 3)
    let done = ConditionLock([Int]())
    let allDone = done.makeCondition()
    for index in 0..<500 {
      threads.submit {
        done.withLock { ran in
          ran.append(index)
          if ran.count == 500 { allDone.broadcast() }
        }
      }
    }
    threads.close()
    let ran = done.withLock(waitingOn: allDone, until: { $0.count == 500 }) { $0 }
    #expect(ran.sorted() == Array(0..<500))
  }
}
