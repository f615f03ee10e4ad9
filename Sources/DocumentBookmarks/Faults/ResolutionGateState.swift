import DocbmSystem

/// The gate that held resolves wait at until a test opens it: counts the resolves that
/// reach it, lets waiters know, and blocks each resolve until it is open.
///
/// The public faces of this are `ResolutionGate` in DocumentBookmarksTesting and C's
/// `docbm_test_hold_resolves`.
package final class ResolutionGateState: Sendable {
  private struct State {
    var isOpen = false
    var held = 0
    var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
  }

  private let lock = ConditionLock(State())
  private let opened: ConditionLock<State>.Condition
  private let arrived: ConditionLock<State>.Condition

  package init() {
    opened = lock.makeCondition()
    arrived = lock.makeCondition()
  }

  /// How many resolves have reached the gate so far (those waiting and those it let go).
  package var heldCount: Int { lock.withLock { $0.held } }

  /// Lets every waiting resolve go on, and every later one pass without waiting.
  package func open() {
    lock.withLock { state in
      state.isOpen = true
      opened.broadcast()
    }
  }

  /// Returns once `count` resolves have reached the gate.
  package func waitUntilHeld(_ count: Int) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      lock.withLock { state in
        if state.held >= count {
          continuation.resume()
        } else {
          state.waiters.append((count, continuation))
        }
      }
    }
  }

  /// Blocks the calling thread until `count` resolves have reached the gate.
  package func waitUntilHeldBlocking(_ count: Int) {
    lock.withLock(waitingOn: arrived, until: { $0.held >= count }) { _ in }
  }

  /// A resolve reaches the gate: counted, then waits until the gate is open.
  package func hold() {
    lock.withLock { state in
      state.held += 1
      let held = state.held
      state.waiters.removeAll { waiter in
        guard waiter.count <= held else { return false }
        waiter.continuation.resume()
        return true
      }
      arrived.broadcast()
    }
    lock.withLock(waitingOn: opened, until: { $0.isOpen }) { _ in }
  }
}
