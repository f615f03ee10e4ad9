/// What one streaming scan did with its memory and how much it examined, for tests,
/// benchmarks and the checker.
package struct BookmarkScanStatistics: Sendable, Equatable {
  /// Bytes read from the file.
  package var bytesRead: UInt64 = 0
  /// Windows scanned (one per chunk, plus the final one).
  package var windows = 0
  /// The most bytes kept from one window for the next (the carry-over). Never above
  /// ``BookmarkScanner/maximumCarry``.
  package var maximumCarriedBytes = 0
  /// The most bytes held at once: the carry-over plus a chunk. Never above the chunk size
  /// plus ``BookmarkScanner/maximumCarry``.
  package var maximumBufferedBytes = 0
  /// The size of the one buffer the scan allocated.
  package var bufferCapacity = 0
  /// Candidates (anchor hits) examined; never above ``BookmarkScanLimits/candidates``.
  package var candidatesExamined = 0
  /// Bookmarks reported; never above ``BookmarkScanLimits/bookmarks``.
  package var bookmarksFound = 0
  /// Document bytes read by base64 decodes (a byte read by two decodes counts twice).
  package var bytesDecoded = 0
  /// Whether the scan reached the end or stopped at a limit.
  package var completion = BookmarkScanCompletion.complete

  package init() {}
}
