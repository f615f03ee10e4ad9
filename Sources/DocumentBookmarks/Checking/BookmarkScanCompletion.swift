/// How far a scan went: to the document's end, or to one of its ``BookmarkScanLimits``.
/// New cases may be added in later versions: a `switch` over them needs a `default`.
public enum BookmarkScanCompletion: Hashable, Sendable {
  /// Every byte was searched.
  case complete
  /// One bookmark more than ``BookmarkScanLimits/bookmarks`` was found, at `offset`; it
  /// and the bytes after it were not reported.
  case stoppedAtBookmarkLimit(offset: UInt64)
  /// One candidate more than ``BookmarkScanLimits/candidates`` came, at `offset`; the
  /// bytes from there on were not searched.
  case stoppedAtCandidateLimit(offset: UInt64)

  /// Whether every byte was searched.
  public var isComplete: Bool { self == .complete }

  /// Where the scan stopped, when it stopped early.
  public var stopOffset: UInt64? {
    switch self {
    case .complete: nil
    case .stoppedAtBookmarkLimit(let offset), .stoppedAtCandidateLimit(let offset): offset
    }
  }
}
