import DocbmSystem

/// The bounded breadth-first search for a target that left its recorded paths.
///
/// Only entries whose `d_ino` equals the recorded inode are examined further, so a search
/// costs about one `getdents` per folder, and in a ``SearchArea`` already listed a look-up
/// per folder. See ``SearchBudget`` for the order and limits.
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
    /// Whether entries were left unread because the budget's entries ran out.
    var budgetSpent = false
  }

  /// Searches below each root in turn, reading folders through `area` (whose entry limit
  /// is at least the budget's), noting storage failures on the way.
  func search(roots: [FilePath], in area: SearchArea) -> Outcome {
    precondition(
      area.entryLimit >= budget.maximumEntries, "the area lists fewer entries than the budget reads")
    var outcome = Outcome()
    func note(_ error: SystemCallError) {
      if outcome.storageFailure == nil, error.errno.isStorageFailure { outcome.storageFailure = error }
    }
    var entriesLeft = budget.maximumEntries
    var visited = Set<Visit>()
    for root in roots {
      guard entriesLeft > 0 else {
        outcome.budgetSpent = true
        return outcome
      }
      guard let rootStatus = area.status(of: root), rootStatus.kind == .directory else { continue }
      var queue: [(path: FilePath, depth: Int)] = [(root, 0)]
      var head = 0
      while head < queue.count, entriesLeft > 0 {
        let (folder, depth) = queue[head]
        head += 1
        let listing: FolderListing
        switch area.folder(at: folder) {
        case .listed(let listed): listing = listed
        case .failed(let error):
          if depth == 0 || !isOnAnotherMount(folder, than: root, rootStatus, area: area) { note(error) }
          continue
        }
        // Never leave the root's filesystem (a Btrfs subvolume has its own device number
        // but is on the same mount), never list a folder twice.
        let status = listing.status
        guard
          status.device == rootStatus.device
            || (status.mountID != nil && status.mountID == rootStatus.mountID),
          visited.insert(Visit(device: status.device, inode: status.inode)).inserted
        else { continue }
        let limit = min(listing.count, entriesLeft)
        for position in listing.positions(of: matcher.identity.inode, below: limit) {
          let child = folder.appending(listing.name(at: position))
          // An entry gone since it was listed is not the object.
          if let childStatus = try? FileStatus.of(child, followSymlinks: false),
            matcher.isSameObject(childStatus, at: child)
          {
            outcome.found = child
            return outcome
          }
        }
        if depth < budget.maximumDepth {
          for position in listing.folderPositions {
            guard position < limit else { break }
            queue.append((folder.appending(listing.name(at: position)), depth + 1))
          }
        }
        entriesLeft -= limit
        if entriesLeft == 0 && (limit < listing.count || !listing.isComplete) {
          outcome.budgetSpent = true
        }
        if entriesLeft > 0, let failure = listing.readFailure { note(failure) }
      }
      if head < queue.count { outcome.budgetSpent = true }
    }
    return outcome
  }

  /// Whether `folder`, which could not be opened, lies on another mount than `root`, by the
  /// mount table (read once per area, and only after a failure).
  private func isOnAnotherMount(
    _ folder: FilePath, than root: FilePath, _ rootStatus: FileStatus, area: SearchArea
  ) -> Bool {
    guard let table = area.mountTable, let mount = table.mount(containing: folder) else { return false }
    if let rootMount = rootStatus.mountID { return mount.mountID != rootMount }
    return mount.mountID != table.mount(containing: root)?.mountID
  }
}
