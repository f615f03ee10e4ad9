import DocbmSystem

/// The walk of one mount, breadth-first from its roots (the user's home folder, then the
/// mount's root), for the targets of one call that the nearby search did not find.
///
/// The walk is resumable and shared: a look-up walks on only until the inode it wants
/// appears in a listing, and every inode number listed on the way is kept with the folder
/// it was in, so that a later look-up of the same call finds a target passed already with
/// one listing of that folder. Folders are listed on every usable core (the calling thread
/// and helpers of its own), each at most once; only `d_ino` is compared, so an entry costs
/// no system call. The walk never follows a symbolic link (folders are opened with
/// `O_NOFOLLOW`), never leaves its mount (a folder of another mount is passed over, not
/// listed), and passes over the folders the user cannot read, counting them.
final class FilesystemWalk: Sendable {
  /// Where the walk stopped for good.
  enum Ending: Sendable {
    /// Every folder of the mount that could be read was listed.
    case complete
    /// The call's time for walking ran out.
    case timeLimit
    /// The caller cancelled the call.
    case cancelled
  }

  /// How far the walk looked: for messages.
  struct Extent: Sendable {
    /// The folders the walk started from, in order.
    var roots: [FilePath] = []
    var foldersListed = 0
    var entriesRead = 0
    /// Folders passed over because they could not be opened (no permission).
    var foldersUnreadable = 0
    var ending: Ending?
  }

  /// What a look-up came to.
  struct Outcome: Sendable {
    var found: FilePath?
    var extent: Extent
    /// The first folder of the mount that could not be read because its storage failed
    /// (EIO, a FUSE server gone): then "not found" is no proof.
    var storageFailure: SystemCallError?
  }

  private struct Visit: Hashable {
    let device: FileStatus.Device
    let inode: UInt64
  }

  private struct State: @unchecked Sendable {
    var pendingRoots: [FilePath]
    var queue: [FilePath] = []
    var head = 0
    /// Folders being listed now, by any thread.
    var active = 0
    var visited: Set<Visit> = []
    /// The folders listed, in order; a folder's number is its place here.
    var folders: [FilePath] = []
    /// The first folder each inode number was listed in, and the others for numbers listed
    /// in more than one (hard links; Btrfs subvolumes reuse numbers).
    var firstFolder: [UInt64: UInt32] = [:]
    var otherFolders: [UInt64: [UInt32]] = [:]
    var extent = Extent()
    var storageFailure: SystemCallError?
    /// The inode number the look-up under way wants, and the paths listed with it.
    var wanted: UInt64 = 0
    var hits: [FilePath] = []
    /// Whether a look-up is under way, and how many helper threads it runs.
    var lookingUp = false
    var helpers = 0
    var mounts: MountTable??
  }

  /// The mount's root folder.
  let mountRoot: FilePath
  private let device: FileStatus.Device
  private let mountID: UInt64?
  private let state: ConditionLock<State>
  /// Signalled when folders are queued, a listing ends, or the walk stops.
  private let progress: ConditionLock<State>.Condition
  /// Signalled when a look-up ends or a helper thread leaves.
  private let idle: ConditionLock<State>.Condition

  /// A walk of the mount whose root is `mountRoot` (whose status is `rootStatus`), from
  /// `roots` in order (each on that mount; the last one is usually `mountRoot`).
  init(mountRoot: FilePath, rootStatus: FileStatus, roots: [FilePath]) {
    self.mountRoot = mountRoot
    device = rootStatus.device
    mountID = rootStatus.mountID
    state = ConditionLock(State(pendingRoots: roots))
    progress = state.makeCondition()
    idle = state.makeCondition()
  }

  /// Finds the object `matcher` recorded: in a folder listed already, else by walking on
  /// until its inode number is listed and the entry is the very object, or the walk ends.
  /// Look-ups on one walk take turns.
  func find(_ matcher: IdentityMatcher, deadline: UInt64?, cancellation: SearchCancellation?) -> Outcome {
    let inode = matcher.identity.inode
    let listed = state.withLock(waitingOn: idle, until: { !$0.lookingUp }) { state -> [FilePath] in
      state.lookingUp = true
      var numbers = state.firstFolder[inode].map { [$0] } ?? []
      numbers += state.otherFolders[inode] ?? []
      return numbers.map { state.folders[Int($0)] }
    }
    defer {
      state.withLock { state in
        state.lookingUp = false
        idle.broadcast()
      }
    }
    for folder in listed {
      if let found = Self.entry(of: folder, withInode: inode, matching: matcher) { return outcome(found) }
    }
    while true {
      let ended = state.withLock { state -> Bool in
        state.wanted = inode
        state.hits = []
        return state.extent.ending != nil
      }
      if ended { return outcome(nil) }
      walkUntilListed(deadline: deadline, cancellation: cancellation)
      let hits = state.withLock { state -> [FilePath] in
        defer { state.hits = [] }
        return state.hits
      }
      for hit in hits {
        // A hit gone since it was listed is not the object; the walk goes on.
        if let status = try? FileStatus.of(hit, followSymlinks: false), matcher.isSameObject(status, at: hit)
        {
          return outcome(hit)
        }
      }
    }
  }

  private func outcome(_ found: FilePath?) -> Outcome {
    state.withLock { state in
      Outcome(found: found, extent: state.extent, storageFailure: state.storageFailure)
    }
  }

  /// The entry of `folder` whose inode number is `inode` and that is the recorded object,
  /// listed again (its name was not kept).
  private static func entry(of folder: FilePath, withInode inode: UInt64, matching matcher: IdentityMatcher)
    -> FilePath?
  {
    // Listed before: one that cannot be listed again leaves the walk to go on.
    guard let stream = try? DirectoryStream(folder) else { return nil }
    var names: [[UInt8]] = []
    while let name = stream.nextRecord({ name, number, _ in number == inode ? Array(name) : [] }) {
      if !name.isEmpty { names.append(name) }
    }
    for name in names {
      let path = folder.appending(name)
      // An entry gone since it was listed is not the object.
      if let status = try? FileStatus.of(path, followSymlinks: false), matcher.isSameObject(status, at: path)
      {
        return path
      }
    }
    return nil
  }

  /// Lists folders on this thread and on helper threads until the wanted inode number is
  /// listed or the walk ends; returns once every helper has left.
  private func walkUntilListed(deadline: UInt64?, cancellation: SearchCancellation?) {
    let helpers = min(Processors.usable, Self.maximumThreads) - 1
    for _ in 0..<max(0, helpers) {
      state.withLock { $0.helpers += 1 }
      let started = DetachedThread.start(named: "docbm-search") { [self] in
        work(deadline: deadline, cancellation: cancellation)
        state.withLock { state in
          state.helpers -= 1
          idle.broadcast()
        }
      }
      if !started { state.withLock { $0.helpers -= 1 } }
    }
    work(deadline: deadline, cancellation: cancellation)
    state.withLock(waitingOn: idle, until: { $0.helpers == 0 }) { _ in }
  }

  /// The most threads one look-up lists folders on: listing is bound by the kernel's
  /// directory locks and caches, which more than a few threads only contend for.
  static let maximumThreads = 4

  /// One thread's share: the next folder, until there is none or the look-up is answered.
  private func work(deadline: UInt64?, cancellation: SearchCancellation?) {
    while let (folder, wanted) = nextFolder(deadline: deadline, cancellation: cancellation) {
      list(folder, wanting: wanted)
    }
  }

  /// The next folder to list, counted as active, with the inode number wanted; `nil` when
  /// the look-up is answered or the walk has ended (then it notes why).
  private func nextFolder(deadline: UInt64?, cancellation: SearchCancellation?) -> (FilePath, UInt64)? {
    state.withLock(
      waitingOn: progress,
      until: { state in
        state.head < state.queue.count || state.active == 0 || !state.hits.isEmpty
          || state.extent.ending != nil
      }
    ) { state -> (FilePath, UInt64)? in
      guard state.hits.isEmpty, state.extent.ending == nil else { return nil }
      if cancellation?.isCancelled == true {
        state.extent.ending = .cancelled
      } else if let deadline, CoarseClock.nanoseconds >= deadline {
        state.extent.ending = .timeLimit
      } else if state.head == state.queue.count {
        // Nothing queued and nothing being listed: the next root, or the end.
        if state.pendingRoots.isEmpty {
          state.extent.ending = .complete
        } else {
          let root = state.pendingRoots.removeFirst()
          state.extent.roots.append(root)
          state.queue.append(root)
        }
      }
      guard state.extent.ending == nil else {
        progress.broadcast()
        return nil
      }
      let folder = state.queue[state.head]
      state.head += 1
      if state.head > 4096 && state.head * 2 > state.queue.count {
        state.queue.removeFirst(state.head)
        state.head = 0
      }
      state.active += 1
      return (folder, state.wanted)
    }
  }

  /// Lists `folder` (unless it is on another mount or was listed already) and adds what it
  /// holds to the walk: its inode numbers, its subfolders to the queue, and the entries
  /// with the `wanted` inode number to the hits.
  private func list(_ folder: FilePath, wanting wanted: UInt64) {
    var inodes: [UInt64] = []
    var subfolders: [FilePath] = []
    var hits: [FilePath] = []
    var failure: SystemCallError?
    var listed = false
    defer {
      state.withLock { state in
        state.active -= 1
        if listed {
          let number = UInt32(state.folders.count)
          state.folders.append(folder)
          for inode in inodes where inode != 0 {
            if let first = state.firstFolder.updateValue(number, forKey: inode) {
              state.firstFolder[inode] = first
              state.otherFolders[inode, default: []].append(number)
            }
          }
          state.queue.append(contentsOf: subfolders)
          state.hits.append(contentsOf: hits)
          state.extent.foldersListed += 1
          state.extent.entriesRead += inodes.count
        }
        if let failure { note(failure, at: folder, in: &state) }
        progress.broadcast()
      }
    }
    let stream: DirectoryStream
    do {
      stream = try DirectoryStream(folder)
    } catch {
      failure = error
      return
    }
    let status: FileStatus
    do {
      status = try FileStatus.of(stream.descriptor)
    } catch {
      failure = error
      return
    }
    let sameMount = mountID.map { status.mountID == $0 } ?? (status.device == device)
    guard sameMount,
      state.withLock({ $0.visited.insert(Visit(device: status.device, inode: status.inode)).inserted })
    else { return }
    listed = true
    while let type = stream.nextRecord({ name, inode, type -> DirectoryStream.EntryType in
      inodes.append(inode)
      if inode == wanted { hits.append(folder.appending(name)) }
      if type == .directory || type == .unknown { subfolders.append(folder.appending(name)) }
      return type
    }) {
      _ = type
    }
    if let error = stream.failure { failure = error }
  }

  /// Notes a folder that could not be opened or read: a permission refused counts as
  /// unreadable; a storage failure on this mount makes "not found" inconclusive; anything
  /// else (the folder went away, or is not a folder) says nothing about the target.
  private func note(_ error: SystemCallError, at folder: FilePath, in state: inout State) {
    if error.errno == .permissionDenied {
      state.extent.foldersUnreadable += 1
    } else if error.errno.isStorageFailure, state.storageFailure == nil {
      // A dead mount below this one (a FUSE server gone) fails alike: it says nothing
      // about this mount's files. The mount table is read once, on the first such failure;
      // without it, the failure counts against this mount.
      if state.mounts == nil { state.mounts = .some(try? MountTable.current()) }
      let mount = (state.mounts ?? nil)?.mount(containing: folder)
      if mount == nil || mountID == nil || mount?.mountID == mountID { state.storageFailure = error }
    }
  }
}
