/// The bounded breadth-first search for a target that left its recorded paths.
///
/// Only entries whose `d_ino` equals the recorded inode are examined further, so a search
/// costs about one `getdents` per folder. See ``SearchBudget`` for the order and limits.
struct IdentitySearch {
  let matcher: IdentityMatcher
  let budget: SearchBudget

  private struct Visit: Hashable {
    let device: FileStatus.Device
    let inode: UInt64
  }

  /// What a search came to: the first exact match, and the first folder that could not be
  /// read because the storage failed (EIO, or a FUSE server gone), which makes "not found"
  /// inconclusive. A folder of another mount that fails says nothing about the target (a
  /// renamed file stays on its filesystem), so it is passed over, not noted: a dead FUSE
  /// mount or a failing disk mounted beside the target's folder leaves "missing" true.
  struct Outcome {
    var found: FilePath?
    var storageFailure: SystemCallError?
  }

  /// Searches below each root in turn; returns the first exact match.
  func find(roots: [FilePath]) -> FilePath? {
    search(roots: roots).found
  }

  /// Searches below each root in turn, noting storage failures on the way.
  func search(roots: [FilePath]) -> Outcome {
    var outcome = Outcome()
    func note(_ error: SystemCallError) {
      if outcome.storageFailure == nil, error.errno.isStorageFailure { outcome.storageFailure = error }
    }
    var entriesLeft = budget.maximumEntries
    var visited = Set<Visit>()
    var mounts: MountTable??  // nil until a failure needs it; .some(nil) when unreadable
    for root in roots {
      guard entriesLeft > 0 else { return outcome }
      guard let rootStatus = try? FileStatus.of(root, followSymlinks: false),
        rootStatus.kind == .directory
      else { continue }
      var queue: [(path: FilePath, depth: Int)] = [(root, 0)]
      var head = 0
      while head < queue.count, entriesLeft > 0 {
        let (folder, depth) = queue[head]
        head += 1
        let stream: DirectoryStream
        let status: FileStatus
        do {
          stream = try DirectoryStream(folder)
          status = try FileStatus.of(stream.descriptor)
        } catch {
          if depth == 0 || !isOnAnotherMount(folder, than: root, rootStatus, mounts: &mounts) { note(error) }
          continue
        }
        defer { if let failure = stream.failure { note(SystemCallError("readdir", failure, path: folder)) } }
        // Never leave the root's filesystem (a Btrfs subvolume has its own device number
        // but is on the same mount), never list a folder twice.
        guard
          status.device == rootStatus.device
            || (status.mountID != nil && status.mountID == rootStatus.mountID),
          visited.insert(Visit(device: status.device, inode: status.inode)).inserted
        else { continue }
        while entriesLeft > 0, let entry = stream.next() {
          entriesLeft -= 1
          let child = folder.appending(entry.name)
          if entry.inode == matcher.identity.inode,
            let childStatus = try? FileStatus.of(
              FilePath(uncheckedBytes: entry.name), relativeTo: stream.descriptor, followSymlinks: false),
            matcher.isSameObject(
              childStatus, at: FilePath(uncheckedBytes: entry.name), relativeTo: stream.descriptor)
          {
            outcome.found = child
            return outcome
          }
          if depth < budget.maximumDepth, entry.type == .directory || entry.type == .unknown {
            queue.append((child, depth + 1))
          }
        }
      }
    }
    return outcome
  }

  /// Whether `folder`, which could not be opened, lies on another mount than `root`, by the
  /// mount table (read once per search, and only after a failure).
  private func isOnAnotherMount(
    _ folder: FilePath, than root: FilePath, _ rootStatus: FileStatus, mounts: inout MountTable??
  ) -> Bool {
    if mounts == nil { mounts = .some(try? MountTable.current()) }
    guard let table = mounts ?? nil, let mount = table.mount(containing: folder) else { return false }
    if let rootMount = rootStatus.mountID { return mount.mountID != rootMount }
    return mount.mountID != table.mount(containing: root)?.mountID
  }
}
