import Synchronization

/// Whether a save was cancelled, as its caller's task sees it, and whether the save
/// stopped for that before its new version was put in place.
final class SaveCancellation: Sendable {
  private let cancelled = Atomic<Bool>(false)
  private let stopped = Atomic<Bool>(false)

  init() {}

  /// Marks the save cancelled; from any thread.
  func cancel() { cancelled.store(true, ordering: .relaxed) }

  var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

  /// Called by the save when it stops because of the cancellation, before the rename.
  func noteStoppedBeforeSwap() { stopped.store(true, ordering: .relaxed) }

  /// Whether the save stopped before the rename because it was cancelled.
  var stoppedBeforeSwap: Bool { stopped.load(ordering: .relaxed) }
}
