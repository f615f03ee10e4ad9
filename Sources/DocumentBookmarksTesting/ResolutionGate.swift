import DocumentBookmarks

/// A gate that resolves wait at (``ResolutionFault/gate(_:)``) until the test opens it: for
/// testing what an app does while resolving is slow.
///
/// ```swift
/// let gate = ResolutionGate()
/// try await withResolutionFault(.gate(gate)) {
///   async let opened = board.open()            // resolves its bookmarks
///   await gate.waitUntilHeld()                 // a resolve is waiting now
///   #expect(board.showsProgress)
///   gate.open()                                // it goes on, and so do later ones
///   try await opened
/// }
/// ```
public final class ResolutionGate: Sendable {
  private struct State {
    var isOpen = false
    var held = 0
    var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
  }

  private let lock = ConditionLock(State())
  private let opened: ConditionLock<State>.Condition
  private let arrived: ConditionLock<State>.Condition

  public init() {
    opened = lock.makeCondition()
    arrived = lock.makeCondition()
  }

  /// How many resolves have reached the gate so far (those waiting and those it let go).
  public var heldCount: Int { lock.withLock { $0.held } }

  /// Lets every waiting resolve go on, and every later one pass without waiting.
  public func open() {
    lock.withLock { state in
      state.isOpen = true
      opened.broadcast()
    }
  }

  /// Returns once `count` resolves have reached the gate.
  public func waitUntilHeld(_ count: Int = 1) async {
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

  /// Blocks the calling thread until `count` resolves have reached the gate; for tests
  /// that are not `async`. Never call it on a thread a held resolve needs.
  public func waitUntilHeldBlocking(_ count: Int = 1) {
    lock.withLock(waitingOn: arrived, until: { $0.held >= count }) { _ in }
  }

  /// A resolve reaches the gate: counted, then waits until the gate is open.
  func hold() {
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
