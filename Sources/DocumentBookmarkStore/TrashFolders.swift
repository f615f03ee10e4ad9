public import DocumentBookmarks
public import FoundationEssentials

/// The freedesktop.org Trash folders, and whether a path lies in one.
///
/// A trashed file sits in `$XDG_DATA_HOME/Trash/files/` (the home trash; `XDG_DATA_HOME`
/// defaults to `~/.local/share`) or, on another filesystem, in `$topdir/.Trash/$uid/files/`
/// or `$topdir/.Trash-$uid/files/`. The test is on the path's components alone: it does no
/// I/O, so it is safe for a path on a disk that is not mounted.
public struct TrashFolders: Sendable {
  /// The home trash's `files` folder.
  public let homeTrashFiles: FilePath?

  /// The Trash folders of this process's environment.
  public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
    if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
      homeTrashFiles = FilePath(data).appending("Trash").appending("files")
    } else if let home = environment["HOME"], home.hasPrefix("/") {
      homeTrashFiles = FilePath(home).appending(".local/share/Trash/files")
    } else {
      homeTrashFiles = nil
    }
  }

  /// Whether `path` is inside a Trash's `files` folder (not the folder itself).
  public func contains(_ path: FilePath) -> Bool {
    TrashInfo.contains(path, homeTrashFiles: homeTrashFiles)
  }
}
