import Glibc

/// A value guarded by a mutex, and conditions that threads wait on until the value is what
/// they need: docbm's one lock that a thread can sleep on.
///
/// Every access to the value goes through ``withLock(_:)`` or
/// ``withLock(waitingOn:until:_:)``; a ``Condition`` made by ``makeCondition()`` is signalled
/// from inside them, when the value changed in a way its waiters wait for. Threads of
/// docbm's own use it (``WorkerThreads``, ``OrderedWork``); code on Swift concurrency's
/// cooperative pool never waits on it.
///
/// The corresponding C types are `pthread_mutex_t` and `pthread_cond_t`.
package final class ConditionLock<State>: @unchecked Sendable {
  /// Something the value may come to be, which threads wait for under this lock.
  package final class Condition: @unchecked Sendable {
    fileprivate let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    /// Threads waiting on it now; changed and read with the lock held.
    fileprivate var waiters = 0

    fileprivate init() { pthread_cond_init(condition, nil) }

    deinit {
      pthread_cond_destroy(condition)
      condition.deallocate()
    }

    /// Whether a thread waits on it. Read it with the lock held.
    package var hasWaiters: Bool { waiters > 0 }

    /// Wakes one thread waiting on it, if there is one. Call it with the lock held.
    package func signal() { pthread_cond_signal(condition) }

    /// Wakes every thread waiting on it. Call it with the lock held.
    package func broadcast() { pthread_cond_broadcast(condition) }
  }

  private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
  private let state: UnsafeMutablePointer<State>

  /// Makes a lock guarding `initial`.
  package init(_ initial: State) {
    pthread_mutex_init(mutex, nil)
    state = .allocate(capacity: 1)
    state.initialize(to: initial)
  }

  deinit {
    state.deinitialize(count: 1)
    state.deallocate()
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }

  /// A condition to wait on under this lock (and no other).
  package func makeCondition() -> Condition { Condition() }

  /// Runs `body` with the lock held and the value to read and change.
  package func withLock<Result, Failure: Error>(
    _ body: (inout State) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return try body(&state.pointee)
  }

  /// Takes the lock, waits on `condition` until `ready` says the value is what the caller
  /// needs, then runs `body` with the lock still held.
  ///
  /// `ready` runs with the lock held, before each wait and after each wake-up (a wake-up
  /// can come without a signal); it may change the value, to tell the signalling side what
  /// it waits for. The lock is released while the thread sleeps.
  package func withLock<Result, Failure: Error>(
    waitingOn condition: Condition, until ready: (inout State) -> Bool,
    _ body: (inout State) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    while !ready(&state.pointee) {
      condition.waiters += 1
      pthread_cond_wait(condition.condition, mutex)
      condition.waiters -= 1
    }
    return try body(&state.pointee)
  }
}
