/// What an app should do about a failure. Every ``DocbmError`` carries one.
public enum Recommendation: String, Hashable, Sendable, Codable, CaseIterable {
  /// Nothing is wrong with the bookmark; try again later (a volume is not mounted, a
  /// resource is busy, the disk is full).
  case retryLater
  /// Ask the user to pick the target (or the document) again, then make a new bookmark.
  case pickAgain
  /// The target is gone for good: remove the bookmark.
  case forget
  /// The document lost its key: restore it from the escrow (`docbm repair`), or ask the user
  /// to pick the targets again. (A document that carries another key cannot be repaired:
  /// that is `pickAgain`.)
  case repairKey
  /// The document's location cannot hold a key (no user extended attributes, read-only
  /// or immutable): move or copy the document somewhere that can, or change its flags.
  case useAnotherLocation
}
