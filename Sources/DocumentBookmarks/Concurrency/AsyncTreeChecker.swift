extension TreeChecker {
  /// Tree checks for Swift concurrency, run on docbm's own threads.
  public var async: AsyncTreeChecker { AsyncTreeChecker(treeChecker: self) }
}

/// ``TreeChecker``'s check as an `async` function: made with ``TreeChecker/async``.
///
/// The walk runs on a docbm thread (and the checker's workers) and suspends the calling
/// task meanwhile. A check never writes: cancelled before it starts, or by the time the
/// walk is done, the call throws `CancellationError`; a walk once started is not stopped
/// part way, so cancel before checking a large tree when the answer is no longer wanted.
public struct AsyncTreeChecker: Sendable {
  /// The tree checker that does the work.
  public let treeChecker: TreeChecker

  /// ``TreeChecker/check(_:progressInterval:progress:found:)`` on docbm's threads:
  /// `progress` and `found` are called on that thread, in walk order.
  ///
  /// - Returns: the entries the walk could not read.
  /// - Throws: `CancellationError` only; what the checks find is in their verdicts.
  public func check(
    _ root: FilePath, progressInterval: Int = 500,
    progress: @escaping @Sendable (TreeChecker.Progress) -> Void = { _ in },
    found: @escaping @Sendable (DocumentCheck) -> Void
  ) async throws -> [TreeChecker.Unreadable] {
    let treeChecker = treeChecker
    return try await AsyncAnchoredDocument.perform { () throws(DocbmError) in
      treeChecker.check(root, progressInterval: progressInterval, progress: progress, found: found)
    }
  }
}
