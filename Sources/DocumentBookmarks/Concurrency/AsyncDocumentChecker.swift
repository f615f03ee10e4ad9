extension DocumentChecker {
  /// The checker's calls for Swift concurrency, run on docbm's own threads, never on the
  /// cooperative pool.
  ///
  /// ```swift
  /// let check = try await DocumentChecker().async.check(documentPath)
  /// ```
  public var async: AsyncDocumentChecker { AsyncDocumentChecker(checker: self) }
}

/// ``DocumentChecker``'s calls as `async` functions: made with ``DocumentChecker/async``.
///
/// A check reads a document's key and bytes, which may take a while on slow storage; this
/// runs it on docbm's threads (named `docbm-io`) and suspends the calling task meanwhile.
/// Cancelled before it starts, or by the time the check is done, the call throws
/// `CancellationError` (a check never writes, so there is nothing to undo).
public struct AsyncDocumentChecker: Sendable {
  /// The checker that does the work.
  public let checker: DocumentChecker

  /// ``DocumentChecker/check(_:)`` on docbm's threads.
  ///
  /// - Throws: `CancellationError` only; what a check finds is in its verdict.
  public func check(_ path: FilePath) async throws -> DocumentCheck {
    let checker = checker
    return try await AsyncAnchoredDocument.perform { () throws(DocbmError) in checker.check(path) }
  }
}
