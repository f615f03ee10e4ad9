import DocbmSystem

/// The folders that the identity searches of one resolution call read, each listed at most
/// once: a batch resolve (``AnchoredDocument/resolve(_:)-([Bookmark])``) shares one area
/// between all its bookmarks, a single resolve uses an area of its own. What a search
/// finds in a shared area is what it finds alone, on the same files.
///
/// A folder's listing holds its first ``SearchBudget/maximumEntries`` entries (no search
/// reads more of one folder), in the order the folder lists them; its entries' inode numbers are indexed
/// when a second search looks into it, so that a search costs a lookup per folder rather
/// than a pass over its entries. The area is a snapshot: a file moved while the call runs
/// is found where the listing saw it, or not at all.
///
/// The walks of whole filesystems (``SearchBudget/Reach/filesystem``) are the area's
/// ``filesystem``, which several areas may share (a check's documents).
final class SearchArea {
  /// How many entries of one folder are listed.
  let entryLimit: Int
  /// The walks of whole filesystems of this call.
  let filesystem: FilesystemSearch
  /// Where watchers recorded the renames they saw, if anywhere.
  let journal: MoveJournal?

  private var folders: [FilePath: Folder] = [:]
  private var statuses: [FilePath: FileStatus?] = [:]
  private var folderMounts: [FilePath: MountTable.Mount?] = [:]
  private var filesystemIDs: [FilePath: UInt64?] = [:]
  private var trashEntries: [FilePath?: [TrashInfo.Entry]] = [:]
  /// The mount table, read once, after the first failure that needs it; `.some(nil)` when
  /// it cannot be read.
  private var mounts: MountTable??

  /// What opening a folder came to: its listing, or why it could not be opened.
  enum Folder {
    case listed(FolderListing)
    case failed(SystemCallError)
  }

  /// An area for searches within `budget`; `filesystem`, when given, holds the walks of
  /// whole filesystems shared with other areas of the same call.
  init(
    budget: SearchBudget, filesystem: FilesystemSearch? = nil, cancellation: SearchCancellation? = nil,
    journal: MoveJournal? = nil
  ) {
    entryLimit = budget.maximumEntries
    self.journal = journal
    self.filesystem =
      filesystem ?? FilesystemSearch(timeLimit: budget.filesystemTimeLimit, cancellation: cancellation)
  }

  /// The folder at `path`, listed when first asked for (`openat`, `fstat`, `getdents64`).
  func folder(at path: FilePath) -> Folder {
    if let known = folders[path] { return known }
    let folder: Folder
    do {
      folder = .listed(try FolderListing(path, limit: entryLimit))
    } catch {
      folder = .failed(error)
    }
    folders[path] = folder
    return folder
  }

  /// What `lstat` said of `path` when first asked; `nil` when it failed.
  func status(of path: FilePath) -> FileStatus? {
    if let known = statuses[path] { return known }
    // `nil` when it failed, as documented: the search passes over that path.
    let status = try? FileStatus.of(path, followSymlinks: false)
    statuses[path] = status
    return status
  }

  /// The mount that holds `folder` (its canonical path, ``TargetSnapshot/canonicalPath(_:)``,
  /// looked up in ``mountTable``) when first asked; `nil` when it cannot be told.
  func mount(holding folder: FilePath) -> MountTable.Mount? {
    if let known = folderMounts[folder] { return known }
    // A folder that cannot be resolved has no mount to walk: the caller then walks none.
    let mount = (try? TargetSnapshot.canonicalPath(folder)).flatMap { mountTable?.mount(containing: $0) }
    folderMounts[folder] = mount
    return mount
  }

  /// The `f_fsid` of the filesystem holding `folder` when first asked; `nil` when `statfs`
  /// failed.
  func filesystemID(of folder: FilePath) -> UInt64? {
    if let known = filesystemIDs[folder] { return known }
    // Unknown counts as another filesystem: the folder is then not searched.
    let fsid = (try? FileSystemIdentity.of(path: folder))?.fsid
    filesystemIDs[folder] = fsid
    return fsid
  }

  /// The info files of the Trashes of the filesystem mounted at `mountPoint` (and of the
  /// user's home Trash), read when first asked (``TrashInfo/entries(in:)``).
  func trashEntries(mountPoint: FilePath?) -> [TrashInfo.Entry] {
    if let known = trashEntries[mountPoint] { return known }
    let entries = TrashInfo.entries(in: TrashInfo.trashes(mountPoint: mountPoint))
    trashEntries[mountPoint] = entries
    return entries
  }

  /// The user's home folder (`HOME`, its folders resolved), when it is an absolute path;
  /// read on first use.
  private(set) lazy var homeFolder: FilePath? = {
    guard let home = ProcessEnvironment.value("HOME").map({ FilePath($0) }), home.isAbsolute else {
      return nil
    }
    return (try? TargetSnapshot.canonicalPath(home)) ?? home.lexicallyNormalized  // as it reads
  }()

  /// The renames watchers recorded (``MoveJournal``), read on first use.
  private(set) lazy var recordedMoves: MoveJournal.Lines = journal?.lines() ?? MoveJournal.Lines(bytes: [])

  /// The mount table, read on first use; `nil` when it cannot be read.
  var mountTable: MountTable? {
    if mounts == nil { mounts = .some(try? MountTable.current()) }  // `nil` as documented
    return mounts ?? nil
  }
}

/// The first entries of one folder, as one search area lists them: names end to end,
/// inode numbers, and where the entries that may be folders are.
final class FolderListing {
  /// What `fstat` said of the open folder.
  let status: FileStatus
  /// The error that ended the listing before its end or its limit, if one did.
  let readFailure: SystemCallError?
  /// Whether the listing holds every entry (it stopped at the folder's end, not at its
  /// limit or an error).
  let isComplete: Bool
  /// The inode number of each entry, in the order the folder lists them.
  let inodes: [UInt64]
  /// The positions of the entries whose type is a folder, or unknown, in order.
  let folderPositions: [Int]
  /// The names, end to end: entry `i` ends at `nameEnds[i]`.
  private let names: [UInt8]
  private let nameEnds: [Int]
  /// The first position of each inode number, made on the second look-up; with the
  /// numbers held by more than one entry (hard links).
  private var firstPositions: [UInt64: Int]?
  private var sharedInodes: Set<UInt64> = []
  private var lookups = 0

  /// Lists the folder at `path` (never following a final symbolic link), up to `limit`
  /// entries.
  ///
  /// - Throws: ``SystemCallError`` from `openat`, `fdopendir` or `fstat`.
  init(_ path: FilePath, limit: Int) throws(SystemCallError) {
    let stream = try DirectoryStream(path)
    status = try FileStatus.of(stream.descriptor)
    var names: [UInt8] = []
    var nameEnds: [Int] = []
    var inodes: [UInt64] = []
    var folderPositions: [Int] = []
    while inodes.count < limit,
      let type = stream.nextRecord({ name, inode, type -> DirectoryStream.EntryType in
        names.append(contentsOf: name)
        nameEnds.append(names.count)
        inodes.append(inode)
        return type
      })
    {
      if type == .directory || type == .unknown { folderPositions.append(inodes.count - 1) }
    }
    self.names = names
    self.nameEnds = nameEnds
    self.inodes = inodes
    self.folderPositions = folderPositions
    readFailure = stream.failure
    isComplete = readFailure == nil && inodes.count < limit
  }

  var count: Int { inodes.count }

  /// The name of the entry at `position`.
  func name(at position: Int) -> [UInt8] {
    Array(names[(position == 0 ? 0 : nameEnds[position - 1])..<nameEnds[position]])
  }

  /// The positions below `limit` of the entries with inode number `inode`, in order.
  func positions(of inode: UInt64, below limit: Int) -> [Int] {
    lookups += 1
    guard lookups > 1 else {
      return inodes.indices.prefix(limit).filter { inodes[$0] == inode }
    }
    let first = firstPositions ?? makeIndex()
    guard let position = first[inode], position < limit else { return [] }
    guard sharedInodes.contains(inode) else { return [position] }
    return (position..<min(limit, inodes.count)).filter { inodes[$0] == inode }
  }

  private func makeIndex() -> [UInt64: Int] {
    var first: [UInt64: Int] = [:]
    first.reserveCapacity(inodes.count)
    for (position, inode) in inodes.enumerated() {
      if first[inode] == nil { first[inode] = position } else { sharedInodes.insert(inode) }
    }
    firstPositions = first
    return first
  }
}
