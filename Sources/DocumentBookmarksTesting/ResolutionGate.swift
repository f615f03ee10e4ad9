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
  let state = ResolutionGateState()

  public init() {}

  /// How many resolves have reached the gate so far (those waiting and those it let go).
  public var heldCount: Int { state.heldCount }

  /// Lets every waiting resolve go on, and every later one pass without waiting.
  public func open() { state.open() }

  /// Returns once `count` resolves have reached the gate.
  public func waitUntilHeld(_ count: Int = 1) async { await state.waitUntilHeld(count) }

  /// Blocks the calling thread until `count` resolves have reached the gate; for tests
  /// that are not `async`. Never call it on a thread a held resolve needs.
  public func waitUntilHeldBlocking(_ count: Int = 1) { state.waitUntilHeldBlocking(count) }
}
