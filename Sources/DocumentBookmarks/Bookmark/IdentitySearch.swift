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

  /// Searches below each root in turn; returns the first exact match.
  func find(roots: [FilePath]) -> FilePath? {
    var entriesLeft = budget.maximumEntries
    var visited = Set<Visit>()
    for root in roots {
      guard entriesLeft > 0 else { return nil }
      guard let rootStatus = try? FileStatus.of(root, followSymlinks: false),
        rootStatus.kind == .directory
      else { continue }
      var queue: [(path: FilePath, depth: Int)] = [(root, 0)]
      var head = 0
      while head < queue.count, entriesLeft > 0 {
        let (folder, depth) = queue[head]
        head += 1
        guard let stream = try? DirectoryStream(folder),
          let status = try? FileStatus.of(stream.descriptor)
        else { continue }
        // Never leave the root's filesystem (a Btrfs subvolume has its own device number
        // but is on the same mount), never list a folder twice.
        guard status.device == rootStatus.device || (status.mountID != nil && status.mountID == rootStatus.mountID),
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
            return child
          }
          if depth < budget.maximumDepth, entry.type == .directory || entry.type == .unknown {
            queue.append((child, depth + 1))
          }
        }
      }
    }
    return nil
  }
}
