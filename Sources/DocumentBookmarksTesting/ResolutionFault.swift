public import DocumentBookmarks

/// A failure to inject into resolves, so that an app can test what it shows and does when
/// a file is missing, a disk is unplugged, a document lost its key or a device fails, or
/// what it does while a resolve is slow (``gate(_:)``), without real files going away.
///
/// Every resolve the fault reaches fails alike (a disk stays unplugged) with the
/// `DocbmError` a real failure gives: its code, the recorded target as its path and
/// `DocbmError.lastKnownPath` (the document, for `keyMissing`), the recommendation that
/// code carries, and a message that ends "(a fault injected for a test)".
public struct ResolutionFault: Sendable {
  enum Action {
    case fail(DocbmError.Code)
    case hold(ResolutionGate)
  }

  let action: Action
  let targets: FilePath?

  /// The target is gone (`missing`, recommendation `Recommendation.forget`).
  public static let missing = ResolutionFault(action: .fail(.missing), targets: nil)

  /// The target's disk is not mounted (`volumeUnavailable`, recommendation
  /// `Recommendation.retryLater`): an unplugged USB stick, an unmounted network share.
  public static let volumeUnavailable = ResolutionFault(action: .fail(.volumeUnavailable), targets: nil)

  /// The document has no key (`keyMissing`, recommendation `Recommendation.repairKey`):
  /// another program's save dropped it.
  public static let keyMissing = ResolutionFault(action: .fail(.keyMissing), targets: nil)

  /// The device failed while the target was looked for (`ioError`, errno `EIO`,
  /// recommendation `Recommendation.retryLater`).
  public static let ioError = ResolutionFault(action: .fail(.ioError), targets: nil)

  /// Each resolve waits at `gate` until the test opens it, then resolves for real: for
  /// testing what an app shows while resolving is slow, and what it does when the user acts
  /// meanwhile. The resolve holds its thread while it waits (a docbm thread, for the
  /// `async` calls): open the gate before the test ends.
  public static func gate(_ gate: ResolutionGate) -> ResolutionFault {
    ResolutionFault(action: .hold(gate), targets: nil)
  }

  /// The same fault, for bookmarks whose recorded target is inside `folder` only (one
  /// project's images, one disk's files); other bookmarks resolve as usual.
  public func onlyForTargets(in folder: FilePath) -> ResolutionFault {
    ResolutionFault(action: action, targets: folder)
  }

  /// The fault as the library's resolves see it.
  func injectable() -> ResolutionFaults.Fault {
    switch action {
    case .fail(let code): ResolutionFaults.Fault(.fail(code), targets: targets)
    case .hold(let gate): ResolutionFaults.Fault(.hold({ gate.state.hold() }), targets: targets)
    }
  }
}

/// Runs `body`; every resolve it performs on this task fails with `fault` (or waits at its
/// gate).
///
/// The fault is task-local: it reaches `AnchoredDocument.resolve(_:)` and the
/// batch `AnchoredDocument.resolve(_:)` on the task that runs `body`, on
/// child tasks, and in the library's `async` calls made from them (`document.async.resolve`,
/// and a `BookmarkStore`'s resolves, which run on docbm's threads for the task); not
/// resolves on another thread or a detached task: for those, use
/// ``withProcessWideResolutionFault(_:in:_:)``. Checking (`DocumentChecker`) is not faulted.
public func withResolutionFault<Result>(_ fault: ResolutionFault, _ body: () throws -> Result) rethrows
  -> Result
{
  try ResolutionFaults.$injected.withValue(fault.injectable(), operation: body)
}

/// Runs the async `body`; every resolve it performs on this task fails with `fault`. See
/// ``withResolutionFault(_:_:)``.
public func withResolutionFault<Result>(
  _ fault: ResolutionFault, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Result
) async rethrows -> Result {
  try await ResolutionFaults.$injected.withValue(fault.injectable(), operation: body, isolation: isolation)
}

/// Runs `body`; every resolve against a document inside `folder`, by any thread or task of
/// the process, fails with `fault` (or waits at its gate) while `body` runs.
///
/// Use it when the resolves under test run off the test's task (`Task.detached`, a
/// dispatch queue, an actor's executor). `body` must wait for the resolves it starts.
/// Faults for folders apart from each other hold side by side, so that tests that each use
/// a scratch folder of their own run in parallel; a task-local fault
/// (``withResolutionFault(_:_:)``) on the resolving task takes precedence.
///
/// - Throws: ``SaveFaultScopeError/alreadyActive`` (before running `body`) when another
///   process-wide resolution fault covers the same documents (`folder` holds, or is inside,
///   its folder); otherwise whatever `body` throws.
@discardableResult
public func withProcessWideResolutionFault<Result>(
  _ fault: ResolutionFault, in folder: FilePath, _ body: () throws -> Result
) throws -> Result {
  let injected = fault.injectable()
  guard ResolutionFaults.processWide.begin(injected, in: folder) else {
    throw SaveFaultScopeError.alreadyActive
  }
  defer { ResolutionFaults.processWide.end(injected) }
  return try body()
}

/// Runs the async `body` with `fault` installed for resolves against documents inside
/// `folder`; see ``withProcessWideResolutionFault(_:in:_:)``.
///
/// - Throws: ``SaveFaultScopeError/alreadyActive`` when another process-wide resolution
///   fault covers the same documents; otherwise whatever `body` throws.
@discardableResult
public func withProcessWideResolutionFault<Result>(
  _ fault: ResolutionFault, in folder: FilePath, isolation: isolated (any Actor)? = #isolation,
  _ body: () async throws -> Result
) async throws -> Result {
  let injected = fault.injectable()
  guard ResolutionFaults.processWide.begin(injected, in: folder) else {
    throw SaveFaultScopeError.alreadyActive
  }
  defer { ResolutionFaults.processWide.end(injected) }
  return try await body()
}
