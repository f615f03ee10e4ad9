/// Why a process-wide fault could not be installed.
public enum SaveFaultScopeError: Error, Hashable, Sendable, CustomStringConvertible {
  /// Another `withProcessWideSaveFault` (or `withProcessWideResolutionFault`) covering the
  /// same paths is running, on another thread or nested: with two, which operation fails
  /// would be unclear. Narrow each test's fault to a scratch folder of its own, or run such
  /// tests serialized.
  case alreadyActive

  public var description: String {
    switch self {
    case .alreadyActive:
      "another process-wide fault covers the same paths; give each test's fault a folder of its own (in:), or run such tests serialized"
    }
  }
}
