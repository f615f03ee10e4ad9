/// What ``AnchoredDocument/relink(_:from:to:)`` did with one bookmark: whether its target
/// was found at the same relative path under the new folder, and if not, why not.
public struct Relink: Sendable, Hashable {
  /// What became of the bookmark.
  /// New outcomes may be added in later versions: a `switch` over them needs a `default`.
  public enum Outcome: Sendable, Hashable {
    /// The target is at ``Relink/candidate``: the resolution there, stale with
    /// ``StaleReason/relinked``, carries the refreshed bookmark to store in its place.
    case relinked(Resolution)
    /// The bookmark's recorded path is not under the old folder: nothing was looked for.
    case notUnderSource
    /// Nothing of the target's kind is at ``Relink/candidate``.
    case nothingThere
    /// A file stands at ``Relink/candidate``, but the evidence says it is not the target
    /// (the sentence says which: another identity on the target's own filesystem, another
    /// size or modification time on another one, a symbolic link); it is not taken.
    case notTheTarget(String)
    /// The bookmark could not be verified or read (`tampered`, `keyMismatch`, …), or its
    /// candidate could not be looked at (`ioError`, `permissionDenied`, …).
    case failed(DocbmError)
  }

  /// The bookmark as given.
  public let recorded: Bookmark
  /// Where its target was looked for: the new folder with the recorded path's rest below
  /// the old one; `nil` when the recorded path is not under the old folder (or the bookmark
  /// could not be read).
  public let candidate: FilePath?
  public let outcome: Outcome

  /// The refreshed bookmark, when the target was relinked.
  public var refreshed: Bookmark? {
    if case .relinked(let resolution) = outcome { return resolution.refreshed }
    return nil
  }
}
