import DocbmSystem

/// What the freedesktop.org Trash says of the files moved into it: each trashed item
/// `files/NAME` has an `info/NAME.trashinfo` naming where it was (`Path=`, percent-encoded;
/// absolute in the home trash, relative to the disk's top folder in a `$topdir/.Trash/$uid`
/// or `$topdir/.Trash-$uid`).
///
/// Resolution asks it last, for a target found nowhere else: a file in a folder that was
/// trashed is far from its old place, beyond the identity search's reach. A disk's top
/// folder may be writable by others (a tmpfs `/tmp`), so a Trash is read only by the
/// specification's rules, checked on descriptors opened without following links: the Trash
/// folder and its `info` folder belong to the user and are writable by no other user (nor
/// by a group other than the user's), and `$topdir/.Trash` is sticky. At most
/// ``maximumInfoFiles`` info files of a Trash are read, each a regular file of at most
/// ``maximumInfoSize`` bytes (never a link, never a FIFO), and what one names is taken only
/// by its real path, through no symbolic link below the Trash folder, and only when it is
/// the very object the bookmark recorded.
package enum TrashInfo {
  /// The most info files read in one Trash for one look-up.
  static let maximumInfoFiles = 10_000
  /// The largest info file read: a `Path=` of `PATH_MAX` bytes, each percent-encoded, fits.
  static let maximumInfoSize = 16 << 10

  /// A Trash folder (holding `files` and `info`), and the folder its relative `Path=`
  /// values start from (`nil` for the home trash, whose paths are absolute).
  struct Trash {
    let folder: FilePath
    let top: FilePath?
    /// Whether the folder is `$topdir/.Trash/$uid`, inside a folder all users share, which
    /// must be sticky.
    var inSharedFolder = false
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
      trashes.append(
        Trash(folder: mountPoint.appending(".Trash").appending(user), top: mountPoint, inSharedFolder: true))
      trashes.append(Trash(folder: mountPoint.appending(".Trash-\(user)"), top: mountPoint))
    }
    return trashes
  }

  /// The Trash folder of `trash`, opened, when the specification's rules let it be read:
  /// a folder, not a link, the user's and writable by no other user; for
  /// `$topdir/.Trash/$uid`, inside a sticky `$topdir/.Trash` that is not a link either.
  static func open(_ trash: Trash) -> FileDescriptor? {
    let options: FileDescriptor.Options = [.readOnly, .directory, .noFollow]
    // A Trash that cannot be opened or looked at is not shown to follow the rules: `nil`,
    // and it is passed over (``entries(in:)``).
    guard trash.inSharedFolder else {
      guard let folder = try? FileDescriptor.open(trash.folder, options) else { return nil }  // as above
      guard isUsersOwn(folder) else {
        folder.close()
        return nil
      }
      return folder
    }
    // As above.
    guard let shared = try? FileDescriptor.open(trash.folder.removingLastComponent, options) else {
      return nil
    }
    defer { shared.close() }
    // As above.
    guard let status = try? FileStatus.of(shared), status.permissions & 0o1000 != 0,
      let folder = try? FileDescriptor.open(
        FilePath(uncheckedBytes: trash.folder.lastComponent), options, relativeTo: shared)
    else { return nil }
    guard isUsersOwn(folder) else {
      folder.close()
      return nil
    }
    return folder
  }

  /// Whether the open folder belongs to the user and no other user may change its entries
  /// (not writable by others, nor by a group other than the user's).
  private static func isUsersOwn(_ folder: FileDescriptor) -> Bool {
    guard let status = try? FileStatus.of(folder) else { return false }  // not shown to be
    return status.owner == ProcessCredentials.effectiveUser && status.permissions & 0o002 == 0
      && (status.permissions & 0o020 == 0 || status.group == ProcessCredentials.effectiveGroup)
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

  /// One info file of a Trash: the path it says was trashed, and the entry of the Trash's
  /// `files` folder that holds it.
  struct Entry {
    let trash: Trash
    /// The recorded original path's components.
    let original: [[UInt8]]
    /// The name of the item in the Trash's `files` folder.
    let item: [UInt8]
  }

  /// The info files of `trashes`, read once: Trashes that fail the rules (``open(_:)``) or
  /// cannot be read, info files that are not regular files or are larger than
  /// ``maximumInfoSize``, and info files past the first ``maximumInfoFiles`` of a Trash are
  /// passed over.
  static func entries(in trashes: [Trash]) -> [Entry] {
    var entries: [Entry] = []
    let suffix = Array(".trashinfo".utf8)
    for trash in trashes {
      guard let folder = open(trash) else { continue }
      defer { folder.close() }
      // Passed over when it cannot be read, as documented.
      guard let stream = try? DirectoryStream(FilePath("info"), relativeTo: folder),
        isUsersOwn(stream.descriptor)
      else { continue }
      var read = 0
      while read < maximumInfoFiles, let entry = stream.next() {
        let name = entry.name
        guard name.count > suffix.count, name.suffix(suffix.count).elementsEqual(suffix) else { continue }
        read += 1
        guard let bytes = readInfo(FilePath(uncheckedBytes: name), in: stream.descriptor),
          let recorded = originalPath(in: bytes, top: trash.top)
        else { continue }
        let components = recorded.lexicallyNormalized.components
        guard !components.isEmpty else { continue }
        entries.append(Entry(trash: trash, original: components, item: Array(name.dropLast(suffix.count))))
      }
    }
    return entries
  }

  /// Where the item at `original` would be now if it, or a folder above it, was trashed:
  /// one path in a Trash's `files` folder per info file naming `original` or a folder above
  /// it (the same path may have been trashed more than once), reached through no symbolic
  /// link below the Trash folder, which is opened again by the rules of ``open(_:)``.
  static func candidates(for original: FilePath, in trashes: [Trash]) -> [FilePath] {
    candidates(for: original, among: entries(in: trashes))
  }

  /// ``candidates(for:in:)`` among info files read already (``entries(in:)``).
  static func candidates(for original: FilePath, among entries: [Entry]) -> [FilePath] {
    let wanted = original.lexicallyNormalized.components
    var found: [FilePath] = []
    for entry in entries where entry.original.count <= wanted.count && wanted.starts(with: entry.original) {
      guard let folder = open(entry.trash) else { continue }
      defer { folder.close() }
      let below = [Array("files".utf8), entry.item] + wanted.dropFirst(entry.original.count)
      guard reachesWithoutLinks(below, from: folder) else { continue }
      found.append(below.reduce(entry.trash.folder) { $0.appending($1) })
    }
    return found
  }

  /// The bytes of the info file `name` in the open `info` folder: a regular file of at
  /// most ``maximumInfoSize`` bytes, opened without following a link or blocking.
  private static func readInfo(_ name: FilePath, in info: FileDescriptor) -> [UInt8]? {
    // An info file that cannot be read is passed over, as ``entries(in:)`` documents.
    guard let fd = try? FileDescriptor.open(name, [.readOnly, .nonBlocking, .noFollow], relativeTo: info)
    else {
      return nil
    }
    defer { fd.close() }
    // As above.
    guard let status = try? FileStatus.of(fd), status.kind == .regular, status.size <= UInt64(maximumInfoSize)
    else { return nil }
    return try? fd.readWhole(limit: maximumInfoSize)  // as above
  }

  /// Whether every folder on the way from `folder` to the last of `components` (that one
  /// excluded) is a folder, not a symbolic link: the path names the object itself.
  private static func reachesWithoutLinks(_ components: [[UInt8]], from folder: FileDescriptor) -> Bool {
    var path = FilePath(uncheckedBytes: [])
    for component in components.dropLast() {
      path = path.bytes.isEmpty ? FilePath(uncheckedBytes: component) : path.appending(component)
      // A folder that cannot be looked at is not shown to be one: the path is not taken.
      guard (try? FileStatus.of(path, relativeTo: folder, followSymlinks: false))?.kind == .directory else {
        return false
      }
    }
    return true
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
