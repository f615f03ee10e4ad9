/// What the freedesktop.org Trash says of the files moved into it: each trashed item
/// `files/NAME` has an `info/NAME.trashinfo` naming where it was (`Path=`, percent-encoded;
/// absolute in the home trash, relative to the disk's top folder in a `$topdir/.Trash/$uid`
/// or `$topdir/.Trash-$uid`).
///
/// Resolution asks it last, for a target found nowhere else: a file in a folder that was
/// trashed is far from its old place, beyond the identity search's reach. An info file is
/// read only when it is a regular file (never a link, never a FIFO), and what it names is
/// taken only when it is the very object the bookmark recorded.
package enum TrashInfo {
  /// A Trash folder (holding `files` and `info`), and the folder its relative `Path=`
  /// values start from (`nil` for the home trash, whose paths are absolute).
  struct Trash {
    let folder: FilePath
    let top: FilePath?
  }

  /// The Trash folders a file at `path` may have gone to: the home trash, and the trash
  /// folders at the top of `mountPoint` (the disk the file was on), for this user.
  static func trashes(mountPoint: FilePath?) -> [Trash] {
    var trashes: [Trash] = []
    if let data = ProcessEnvironment.value("XDG_DATA_HOME"), data.hasPrefix("/") {
      trashes.append(Trash(folder: FilePath(data).appending("Trash"), top: nil))
    } else if let home = ProcessEnvironment.value("HOME"), home.hasPrefix("/") {
      trashes.append(Trash(folder: FilePath(home).appending(".local/share/Trash"), top: nil))
    }
    if let mountPoint {
      let user = String(ProcessCredentials.effectiveUser)
      trashes.append(Trash(folder: mountPoint.appending(".Trash").appending(user), top: mountPoint))
      trashes.append(Trash(folder: mountPoint.appending(".Trash-\(user)"), top: mountPoint))
    }
    return trashes
  }

  /// Whether `path` is inside a Trash's `files` folder (not the folder itself): the home
  /// trash's `homeTrashFiles`, or a disk's `$topdir/.Trash/$uid/files` or
  /// `$topdir/.Trash-$uid/files`. The test is on the path's components alone: it does no
  /// I/O, so it is safe for a path on a disk that is not mounted.
  package static func contains(_ path: FilePath, homeTrashFiles: FilePath?) -> Bool {
    let components = path.lexicallyNormalized.components
    if let home = homeTrashFiles?.lexicallyNormalized.components, components.count > home.count,
      components.starts(with: home)
    {
      return true
    }
    let trash = Array(".Trash".utf8)
    let files = Array("files".utf8)
    for (index, component) in components.enumerated() {
      // $topdir/.Trash/$uid/files/<entry>
      if component == trash, index + 3 < components.count, isNumber(components[index + 1]),
        components[index + 2] == files
      {
        return true
      }
      // $topdir/.Trash-$uid/files/<entry>
      if component.count > trash.count + 1, component.starts(with: trash + [UInt8(ascii: "-")]),
        isNumber(Array(component.dropFirst(trash.count + 1))), index + 2 < components.count,
        components[index + 1] == files
      {
        return true
      }
    }
    return false
  }

  /// Whether `path` is inside a Trash of this process's environment (``contains(_:homeTrashFiles:)``).
  ///
  /// Every Trash's path has a component that holds `Trash` (`$XDG_DATA_HOME/Trash`,
  /// `~/.local/share/Trash`, `.Trash/$uid`, `.Trash-$uid`): a path without those bytes is
  /// in none, and is answered from its bytes alone; only a path that holds them is split
  /// and compared with the Trash folders the environment names.
  static func contains(_ path: FilePath) -> Bool {
    let found = path.bytes.withUnsafeBytes { path in
      trashBytes.withUnsafeBytes { trash in
        ByteSearch.firstIndex(of: trash, keyIndex: 0, in: path, from: 0) != nil
      }
    }
    guard found else { return false }
    return contains(path, homeTrashFiles: trashes(mountPoint: nil).first.map { $0.folder.appending("files") })
  }

  /// The bytes every Trash's path holds.
  private static let trashBytes = Array("Trash".utf8)

  private static func isNumber(_ bytes: [UInt8]) -> Bool {
    !bytes.isEmpty && bytes.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
  }

  /// Where the item at `original` would be now if it, or a folder above it, was trashed:
  /// one path in a Trash's `files` folder per info file naming `original` or a folder above
  /// it (the same path may have been trashed more than once). Unreadable trashes and info
  /// files, and info files that are not regular files, are passed over.
  static func candidates(for original: FilePath, in trashes: [Trash]) -> [FilePath] {
    let wanted = original.lexicallyNormalized.components
    var found: [FilePath] = []
    for trash in trashes {
      let info = trash.folder.appending("info")
      guard let stream = try? DirectoryStream(info) else { continue }
      let listing = DirectoryListing(stream)
      let suffix = Array(".trashinfo".utf8)
      for entry in listing.entries {
        let name = listing.name(of: entry)
        guard name.count > suffix.count, name.suffix(suffix.count).elementsEqual(suffix),
          let read = try? readRegularFile(
            listing.path(of: entry, in: info), limit: 64 << 10, followSymlinks: false),
          let recorded = originalPath(in: read.bytes, top: trash.top)
        else { continue }
        let components = recorded.lexicallyNormalized.components
        guard !components.isEmpty, components.count <= wanted.count, wanted.starts(with: components) else {
          continue
        }
        var candidate = trash.folder.appending("files").appending(Array(name.dropLast(suffix.count)))
        for component in wanted.dropFirst(components.count) { candidate = candidate.appending(component) }
        found.append(candidate)
      }
    }
    return found
  }

  /// The `Path=` of an info file's `[Trash Info]` group, percent-decoded, made absolute
  /// against `top` when relative; `nil` when there is none or it cannot be decoded.
  static func originalPath(in bytes: [UInt8], top: FilePath?) -> FilePath? {
    var inGroup = false
    for line in bytes.split(separator: UInt8(ascii: "\n")) {
      let line = line.last == UInt8(ascii: "\r") ? line.dropLast() : line
      if line.first == UInt8(ascii: "[") {
        inGroup = line.elementsEqual("[Trash Info]".utf8)
        continue
      }
      let key = Array("Path=".utf8)
      guard inGroup, line.starts(with: key), let path = PercentEncoding.decode(line.dropFirst(key.count)),
        !path.isEmpty
      else { continue }
      if path.first == UInt8(ascii: "/") { return FilePath(uncheckedBytes: path) }
      return top?.appending(path)
    }
    return nil
  }
}
