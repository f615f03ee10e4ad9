/// What an app should do about a failure. Every ``DocbmError`` carries one.
///
/// New recommendations may be added in later versions: a `switch` over them needs a
/// `default` (for example, to show the error's message).
public enum Recommendation: String, Hashable, Sendable, Codable, CaseIterable {
  /// Nothing is wrong with the bookmark; try again later (a volume is not mounted, a
  /// resource is busy, the disk is full).
  case retryLater
  /// Ask the user to pick the target (or the document) again, then make a new bookmark.
  case pickAgain
  /// The target is gone for good: remove the bookmark.
  case forget
  /// The target was not found in the part of its filesystem searched, and may exist
  /// further away: resolve again with a wider search (``SearchBudget/wholeFilesystem``,
  /// `docbm resolve --search filesystem --search-time none`), or ask the user to pick it
  /// again. Keep the bookmark meanwhile.
  case searchWider
  /// The document lost its key: restore it from the escrow (`docbm repair`), or ask the user
  /// to pick the targets again. (A document that carries another key cannot be repaired:
  /// that is `pickAgain`.)
  case repairKey
  /// The document's location cannot hold a key (no user extended attributes, read-only
  /// or immutable, too long a path): move or copy the document somewhere that can, or
  /// change its flags.
  case useAnotherLocation

  // What to do about a failed save. The document is unchanged in every case; keep the
  // user's work in memory.

  /// The save cannot happen at this path (its folder is gone or not writable, the
  /// filesystem is read-only, the path is too long, something that is not a document is
  /// there): ask the user where to save instead.
  case saveElsewhere
  /// The save would give something up that a save in place keeps: the document's other
  /// hard links (`hardLinked`), its owner or group (`ownerChanged`), extended attributes that
  /// cannot be copied (`attributeCopyFailed`); or it would overwrite a document its
  /// permissions mark read-only (`readOnlyDocument`). Ask the user, then save again allowing
  /// it (``ReplaceOptions/hardLinks``, ``ReplaceOptions/ownerChange``,
  /// ``ReplaceOptions/requireEveryAttribute``, ``ReplaceOptions/readOnlyDocument``), or save
  /// a copy elsewhere.
  case confirmSave
  /// The document or its folder is immutable or append-only (`chattr +i`, `+a`): whoever
  /// set the flag (root) clears it with `chattr -i` (or `-a`) before the save is tried
  /// again; or save elsewhere.
  case clearFlags
  /// The filesystem or the user's quota is full: free space, then save again.
  case freeSpace
}
