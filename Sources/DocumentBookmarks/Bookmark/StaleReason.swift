/// Why a resolved bookmark is stale: it found its target, but not the way it recorded it.
/// New reasons may be added in later versions: a `switch` over them needs a `default`.
public enum StaleReason: String, Hashable, Sendable, Codable, CaseIterable {
  /// The target was renamed or moved; found by its identity at a new path.
  case targetMoved
  /// The document moved or was copied together with the target (a project folder, a
  /// restored backup); the target was found through the path relative to the document.
  case documentMoved
  /// The target is still at its absolute path, but the document moved away from it, so the
  /// recorded relative path no longer leads there.
  case relativePathChanged
  /// Another file now stands at the target's path (another program's atomic save made a
  /// new inode), and the recorded file was not found anywhere within the search budget;
  /// resolved by path.
  case identityChanged
  /// The evidence cannot tell which of two files is the target: the recorded file is still
  /// at its absolute path, and another file stands at the path relative to the moved or
  /// copied document. ``Resolution/path`` is the recorded file, ``Resolution/candidates``
  /// lists both with why, and no refreshed bookmark is made: the app (or its user) decides.
  case ambiguous
  /// The target is in a Trash (freedesktop.org's: the home trash, or a disk's
  /// `.Trash-$UID`), moved there itself or inside a trashed folder; found by its identity
  /// through the Trash's info files, always with ``targetMoved``. The user threw it away:
  /// an app shows it as such and does not open it as if nothing happened.
  case inTrash
  /// The target was found by ``AnchoredDocument/relink(_:from:to:)`` at its recorded path's
  /// place under the folder its tree moved to (on its own filesystem the very file; on
  /// another, a file of its kind, size and modification time).
  case relinked
}
