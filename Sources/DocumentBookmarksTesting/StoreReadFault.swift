public import DocumentBookmarks

/// Runs `body`; every read of a store file it performs on this task (a `BookmarkStore`'s
/// load, and the reads its changes and resolves start with) fails as if the read had
/// returned `errno`: `EIO` is `DocbmError.Code.ioError`, `EACCES` `permissionDenied`, as a
/// real failure would be. Saves are faulted with ``withSaveFault(_:_:)``.
///
/// The fault is task-local: it reaches the store's calls made on the task that runs
/// `body` and its child tasks (they run on docbm's threads for the task); for stores read
/// on other threads, use ``withProcessWideStoreReadFault(errno:in:isolation:_:)``.
public func withStoreReadFault<Result>(errno: Int32 = 5, _ body: () throws -> Result) rethrows -> Result {
  try StoreFaults.$injected.withValue(StoreFaults.Fault(errno: errno), operation: body)
}

/// Runs the async `body` with every read of a store file on this task failing with
/// `errno`; see ``withStoreReadFault(errno:_:)``.
public func withStoreReadFault<Result>(
  errno: Int32 = 5, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Result
) async rethrows -> Result {
  try await StoreFaults.$injected.withValue(
    StoreFaults.Fault(errno: errno), operation: body, isolation: isolation)
}

/// Runs the async `body`; every read of a store file inside `folder`, by any thread or task
/// of the process, fails with `errno` while `body` runs. Faults for folders apart from each
/// other hold side by side; a task-local fault on the reading task takes precedence.
///
/// - Throws: ``SaveFaultScopeError/alreadyActive`` (before running `body`) when another
///   process-wide store fault covers the same files; otherwise whatever `body` throws.
@discardableResult
public func withProcessWideStoreReadFault<Result>(
  errno: Int32 = 5, in folder: FilePath, isolation: isolated (any Actor)? = #isolation,
  _ body: () async throws -> Result
) async throws -> Result {
  let fault = StoreFaults.Fault(errno: errno)
  guard StoreFaults.processWide.begin(fault, in: folder) else { throw SaveFaultScopeError.alreadyActive }
  defer { StoreFaults.processWide.end(fault) }
  return try await body()
}
