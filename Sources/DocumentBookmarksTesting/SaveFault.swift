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

extension SaveFault {
  /// The fault as the library's saves see it.
  func injectable() -> SaveFaults.Fault {
    SaveFaults.Fault(step: step, errno: errno, leavesTemporary: leavesTemporary)
  }
}

/// Runs `body`; the first `replaceDocument` (or `saveCopy`) it performs on this task fails
/// with `fault`. Later saves succeed.
///
/// The fault is task-local: it reaches saves on the task that runs `body`, on child tasks
/// (`async let`, task groups) and in the library's `async` calls made from them
/// (`document.async.replaceDocument`, which saves on docbm's own threads for the task),
/// not saves on another thread or a detached task
/// (`DispatchQueue.global().async`, `Thread.detachNewThread`, `Task.detached`); for those,
/// use ``withProcessWideSaveFault(_:in:_:)``.
///
/// A ``SaveFault/crashBeforeRename`` save leaves its temporary beside the document, for
/// `body` to see; when `body` returns, the temporary is removed (a real leftover would wait
/// ten minutes for a later save to sweep it).
public func withSaveFault<Result>(_ fault: SaveFault, _ body: () throws -> Result) rethrows -> Result {
  let injected = fault.injectable()
  defer { injected.removeLeftTemporaries() }
  return try SaveFaults.$injected.withValue(injected, operation: body)
}

/// Runs the async `body`; the first save it performs on this task fails with `fault`. See
/// ``withSaveFault(_:_:)``.
public func withSaveFault<Result>(
  _ fault: SaveFault, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Result
) async rethrows -> Result {
  let injected = fault.injectable()
  defer { injected.removeLeftTemporaries() }
  return try await SaveFaults.$injected.withValue(injected, operation: body, isolation: isolation)
}

/// Runs `body`; the first `replaceDocument` (or `saveCopy`) that any thread or task of the
/// process performs while `body` runs fails with `fault`. Later saves succeed.
///
/// Use it when the save under test runs off the test's task: on
/// `DispatchQueue.global().async`, `Thread.detachNewThread`, `Task.detached`, an actor's
/// executor. Its limits:
/// - The fault is installed for the duration of `body` only: `body` must wait for the saves
///   it starts (a `DispatchGroup`, a semaphore, `await` on the task). A save that runs after
///   `body` returned is not faulted.
/// - Without `folder` it is process-wide: any save, by any test running at the same time,
///   may be the one that fails. Run such tests serialized (`.serialized`, or a suite of
///   their own).
/// - `folder` narrows it to saves of documents inside that folder (a test's scratch
///   folder): tests running at the same time are not hit, and tests that each narrow
///   their fault to a folder of their own run in parallel.
/// - A task-local fault (``withSaveFault(_:_:)``) on the saving task takes precedence.
/// - Temporaries left by ``SaveFault/crashBeforeRename`` are removed when `body` returns.
///
/// - Throws: ``SaveFaultScopeError/alreadyActive`` (before running `body`) when another
///   process-wide save fault covers the same saves (one without a folder, or for a folder
///   that holds or is inside `folder`), since two would make it unclear which save fails;
///   otherwise whatever `body` throws.
@discardableResult
public func withProcessWideSaveFault<Result>(
  _ fault: SaveFault, in folder: FilePath? = nil, _ body: () throws -> Result
) throws -> Result {
  let injected = fault.injectable()
  guard SaveFaults.beginProcessWide(injected, in: folder) else { throw SaveFaultScopeError.alreadyActive }
  defer {
    SaveFaults.endProcessWide(injected)
    injected.removeLeftTemporaries()
  }
  return try body()
}

/// Runs the async `body` with `fault` installed for the whole process; see
/// ``withProcessWideSaveFault(_:in:_:)``.
///
/// - Throws: ``SaveFaultScopeError/alreadyActive`` when another process-wide save fault
///   covers the same saves; otherwise whatever `body` throws.
@discardableResult
public func withProcessWideSaveFault<Result>(
  _ fault: SaveFault, in folder: FilePath? = nil, isolation: isolated (any Actor)? = #isolation,
  _ body: () async throws -> Result
) async throws -> Result {
  let injected = fault.injectable()
  guard SaveFaults.beginProcessWide(injected, in: folder) else { throw SaveFaultScopeError.alreadyActive }
  defer {
    SaveFaults.endProcessWide(injected)
    injected.removeLeftTemporaries()
  }
  return try await body()
}
