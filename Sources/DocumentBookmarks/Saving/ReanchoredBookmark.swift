/// One bookmark of a document, re-anchored for a copy saved elsewhere: what
/// ``AnchoredDocument/saveCopy(to:bookmarks:options:_:)`` hands its writer, one per
/// bookmark, in order.
public struct ReanchoredBookmark: Hashable, Sendable {
  /// What became of the bookmark. New outcomes may be added in later versions: a `switch`
  /// over them needs a `default`.
  public enum Outcome: Hashable, Sendable {
    /// Resolved against the original document and signed for the copy's place.
    case reanchored(Bookmark)
    /// Resolved, but the evidence cannot tell the original target from another file
    /// (stale ``StaleReason/ambiguous``): not re-anchored; let the user choose among the
    /// candidates.
    case ambiguous(candidates: [Resolution.Candidate])
    /// Did not resolve (`missing`, `keyMissing`, …): not re-anchored.
    case failed(DocbmError)
  }

  /// The bookmark as the original document stores it.
  public let original: Bookmark
  /// What became of it.
  public let outcome: Outcome

  /// The bookmark for the copy, or `nil` when it was not re-anchored.
  public var bookmark: Bookmark? {
    if case .reanchored(let bookmark) = outcome { return bookmark }
    return nil
  }

  /// Whether the bookmark was re-anchored for the copy.
  public var isReanchored: Bool { bookmark != nil }
}

/// A copy saved with ``AnchoredDocument/saveCopy(to:bookmarks:options:_:)``.
public struct SavedCopy: Sendable {
  /// The copy, ready to resolve the re-anchored bookmarks.
  public let document: AnchoredDocument
  /// Every bookmark given, in order, with what became of it.
  public let bookmarks: [ReanchoredBookmark]

  /// The bookmarks that were not re-anchored: report them (the copy holds whatever the
  /// writer chose to store for them).
  public var notReanchored: [ReanchoredBookmark] { bookmarks.filter { !$0.isReanchored } }
}
