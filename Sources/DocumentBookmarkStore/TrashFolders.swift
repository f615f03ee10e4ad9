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
    let components = path.lexicallyNormalized.components
    if let home = homeTrashFiles?.lexicallyNormalized.components, components.count > home.count,
      Array(components.prefix(home.count)) == home
    {
      return true
    }
    let trash = Array(".Trash".utf8)
    let files = Array("files".utf8)
    for (index, component) in components.enumerated() {
      // $topdir/.Trash/$uid/files/<entry>
      if component == trash, index + 3 < components.count, Self.isNumber(components[index + 1]),
        components[index + 2] == files
      {
        return true
      }
      // $topdir/.Trash-$uid/files/<entry>
      if component.count > trash.count + 1, component.starts(with: trash + [UInt8(ascii: "-")]),
        Self.isNumber(Array(component.dropFirst(trash.count + 1))), index + 2 < components.count,
        components[index + 1] == files
      {
        return true
      }
    }
    return false
  }

  private static func isNumber(_ bytes: [UInt8]) -> Bool {
    !bytes.isEmpty && bytes.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
  }
}
