public import DocumentBookmarks

/// A failure to inject into the next `replaceDocument`, so that an app can test that it
/// reports the error and keeps the user's work.
public struct SaveFault: Sendable {
  let step: SaveStep
  let errno: Int32
  let leavesTemporary: Bool

  /// The filesystem is full while the new version is written (ENOSPC at `step`).
  public static func diskFull(during step: SaveStep = .write) -> SaveFault {
    SaveFault(step: step, errno: 28, leavesTemporary: false)
  }

  /// The device reports an input/output error, by default when the new version is flushed
  /// (EIO at `step`). A failed flush is never retried, and the document stays as it was.
  public static func ioError(at step: SaveStep = .syncFile) -> SaveFault {
    SaveFault(step: step, errno: 5, leavesTemporary: false)
  }

  /// The save stops just before the rename, as a crash would: the document is the old
  /// version and the new one is left beside it, for the next save to sweep.
  public static let crashBeforeRename = SaveFault(step: .swap, errno: 5, leavesTemporary: true)

  /// A fault with any `errno` at any step.
  public static func failing(at step: SaveStep, errno: Int32) -> SaveFault {
    SaveFault(step: step, errno: errno, leavesTemporary: false)
  }
}

/// Runs `body`; the first `replaceDocument` (or `saveCopy`) it performs on this task fails
/// with `fault`. Later saves succeed.
public func withSaveFault<Result>(_ fault: SaveFault, _ body: () throws -> Result) rethrows -> Result {
  try SaveFaults.$injected.withValue(
    SaveFaults.Fault(step: fault.step, errno: fault.errno, leavesTemporary: fault.leavesTemporary),
    operation: body)
}

/// Runs the async `body`; the first save it performs on this task fails with `fault`.
public func withSaveFault<Result>(
  _ fault: SaveFault, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Result
) async rethrows -> Result {
  try await SaveFaults.$injected.withValue(
    SaveFaults.Fault(step: fault.step, errno: fault.errno, leavesTemporary: fault.leavesTemporary),
    operation: body, isolation: isolation)
}
