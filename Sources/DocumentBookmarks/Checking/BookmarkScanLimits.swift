/// How much of a document one scan examines at most, so that crafted bytes cost bounded
/// time and memory.
///
/// Real documents stay far below these limits: a candidate is a place where one of the
/// scanner's anchors (the magic, or its base64) appears, which random and text bytes
/// practically never hold, and each bookmark takes one. A file made of fake record
/// headers reaches them, and its scan stops there: the scan then reports
/// ``BookmarkScanCompletion/stoppedAtBookmarkLimit(offset:)`` or
/// ``BookmarkScanCompletion/stoppedAtCandidateLimit(offset:)``, and a checker says the
/// document was not fully checked (``CheckVerdict/incomplete``).
public struct BookmarkScanLimits: Hashable, Sendable {
  /// The most bookmarks reported for one document.
  public var bookmarks: Int
  /// The most candidates examined in one document (each costs at most decoding a header).
  public var candidates: Int

  /// Makes limits.
  ///
  /// - Precondition: both are positive.
  public init(bookmarks: Int, candidates: Int) {
    precondition(bookmarks > 0 && candidates > 0, "scan limits must be positive")
    self.bookmarks = bookmarks
    self.candidates = candidates
  }

  /// 10 000 bookmarks and 100 000 candidates per document: what a checker uses.
  public static let standard = BookmarkScanLimits(bookmarks: 10_000, candidates: 100_000)

  /// No limit: for bytes already in memory whose every bookmark is wanted.
  public static let unlimited = BookmarkScanLimits(bookmarks: .max, candidates: .max)
}
