public import DocumentBookmarks

/// How a ``DocumentWatcher`` watches.
public struct WatchOptions: Sendable {
  /// The escrow that repair takes keys from and where documents seen at new paths are
  /// recorded (as `docbm check` records them), so that a later repair still knows them.
  /// Every rename the watcher sees under its folders (of any file or folder) is kept in its
  /// folder too, in the file `moves`, so that resolution finds a target moved there without
  /// a search, even after the watcher stopped (docs/design.md, "Search").
  /// By default the user's escrow (`KeyEscrow.default`), as for `BookmarkService`; `nil`:
  /// no escrow, no repair, nothing recorded.
  public var escrow: KeyEscrow?
  /// Put back a key that a save dropped, with `DocumentRepairer` and only under its rules:
  /// the document is the user's, the escrow recorded it for that key, and its own bookmarks
  /// name the key. Needs ``escrow``.
  public var repairs: Bool
  /// Record in ``escrow`` where a document the escrow records goes when the watcher sees it
  /// move or be renamed (the same file; a copy that carries the key is not recorded).
  public var recordsSightings: Bool
  /// Watch the folders under the folders given, and folders made in them later.
  public var recursive: Bool
  /// At most this many folders are watched (one inotify watch each); beyond, a
  /// ``DocumentEvent/Kind/notWatched`` notice names the folders left out. The kernel's own
  /// per-user limit is `fs.inotify.max_user_watches`.
  public var maximumFolders: Int
  /// How long a document that was deleted (or moved out) may be followed by a file at its
  /// path before it is reported deleted: a save that removes the document and writes a new
  /// one is a replacement, not a deletion. The default, one second, also covers an editor
  /// that is slow between renaming the document to its backup name and writing the new
  /// file (Emacs on a loaded machine).
  public var settleTime: Duration

  /// Options; by default the user's escrow, recursive, up to 65,536 folders, one second to
  /// settle.
  public init(
    escrow: KeyEscrow? = .default, repairs: Bool = false, recordsSightings: Bool = true,
    recursive: Bool = true,
    maximumFolders: Int = 65_536, settleTime: Duration = .seconds(1)
  ) {
    self.escrow = escrow
    self.repairs = repairs
    self.recordsSightings = recordsSightings
    self.recursive = recursive
    self.maximumFolders = maximumFolders
    self.settleTime = settleTime
  }
}
