/// Why a process-wide fault could not be installed.
public enum SaveFaultScopeError: Error, Hashable, Sendable, CustomStringConvertible {
  /// Another `withProcessWideSaveFault` is running (on another thread, or nested): with two,
  /// which save fails would be unclear. Run tests that use it serialized.
  case alreadyActive

  public var description: String {
    switch self {
    case .alreadyActive:
      "another process-wide save fault is installed; run tests that use withProcessWideSaveFault serialized"
    }
  }
}
