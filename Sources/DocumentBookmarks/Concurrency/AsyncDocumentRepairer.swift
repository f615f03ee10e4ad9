extension DocumentRepairer {
  /// Repair for Swift concurrency, run on docbm's own threads.
  ///
  /// ```swift
  /// let repairer = DocumentRepairer(escrow: .default)
  /// let report = try await repairer.async.repair(documentPath)
  /// ```
  public var async: AsyncDocumentRepairer { AsyncDocumentRepairer(repairer: self) }
}

/// ``DocumentRepairer``'s calls as `async` functions: made with ``DocumentRepairer/async``.
///
/// Cancellation is checked before a repair starts; once started, it runs to the end and
/// the call returns its report (a key put back is never reported as not put back).
public struct AsyncDocumentRepairer: Sendable {
  /// The repairer that does the work.
  public let repairer: DocumentRepairer

  /// ``DocumentRepairer/repair(_:)`` on docbm's threads.
  ///
  /// - Throws: `CancellationError` when cancelled before the repair started; what repair
  ///   did, or why it refused, is in the report.
  public func repair(_ path: FilePath) async throws -> DocumentRepairer.Report {
    let repairer = repairer
    return try await AsyncAnchoredDocument.write { () throws(DocbmError) in repairer.repair(path) }
  }
}
