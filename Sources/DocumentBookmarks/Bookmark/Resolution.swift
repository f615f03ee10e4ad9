/// A bookmark that resolved: where its target is now, and whether the app should store a
/// refreshed bookmark.
public struct Resolution: Hashable, Sendable {
  /// Where the target is now.
  public let path: FilePath
  /// What the target is.
  public let kind: TargetKind
  /// Why the bookmark is stale; empty when it resolved exactly as recorded.
  public let staleReasons: [StaleReason]
  /// A new bookmark for the target as it is now, signed with the same key; present when the
  /// bookmark is stale. Store it in place of the old one with the document's next save.
  public let refreshed: Bookmark?
  /// What the verified bookmark recorded.
  public let recorded: BookmarkContents

  /// Whether the bookmark resolved, but not the way it was recorded.
  public var isStale: Bool { !staleReasons.isEmpty }
}
