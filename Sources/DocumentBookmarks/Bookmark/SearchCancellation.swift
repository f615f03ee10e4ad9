import Synchronization

/// Whether the caller of a resolution has given up on it (its task was cancelled): a walk
/// of a whole filesystem looks before each folder, and stops.
final class SearchCancellation: Sendable {
  private let cancelled = Atomic<Bool>(false)

  init() {}

  /// Marks the search cancelled; from any thread.
  func cancel() { cancelled.store(true, ordering: .relaxed) }

  var isCancelled: Bool { cancelled.load(ordering: .relaxed) }
}
