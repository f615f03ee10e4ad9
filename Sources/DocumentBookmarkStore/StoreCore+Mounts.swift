package import DocumentBookmarks

extension StoreCore {
  /// Whether `record`'s target is on the filesystem mounted at `mountPoint`: its recorded
  /// mount point is that one, or (none recorded) its path lies under it.
  static func isOn(_ mountPoint: FilePath, _ record: Record) -> Bool {
    if let recorded = record.volume?.mountPoint { return recorded == mountPoint }
    let mount = mountPoint.components
    let path = record.lastKnownPath.components
    return !mount.isEmpty && path.count > mount.count && Array(path.prefix(mount.count)) == mount
  }

  /// Marks the records on the filesystem unmounted from `mountPoint` unavailable
  /// (`volumeUnavailable`), without touching it, in one save. Records already so marked
  /// are left as they are. Returns the keys marked.
  @discardableResult
  package func markUnavailable(onUnmountOf mountPoint: FilePath) throws(Failure) -> [Key] {
    var marked: [Key] = []
    let now = clock()
    try change { (contents: inout Contents, _: inout [Eviction]) throws(Failure) in
      marked = []
      for index in contents.records.indices where Self.isOn(mountPoint, contents.records[index]) {
        guard contents.records[index].status.failure != .volumeUnavailable else { continue }
        contents.records[index].status = .unavailable(.volumeUnavailable, since: now)
        marked.append(contents.records[index].key)
      }
    }
    return marked
  }

  /// A filesystem was mounted at `mountPoint`: resolves the records waiting for it (those
  /// unavailable with `volumeUnavailable` on it, or on none known, and path-only records
  /// under it) and commits what was found in one save.
  @discardableResult
  package func refreshStatuses(onMountOf mountPoint: FilePath) throws(Failure) -> [Key: DocbmError] {
    try loadIfNeeded()
    let waiting = snapshot.records.filter { record in
      record.status.failure == .volumeUnavailable || (!record.hasBookmark && record.status.failure != nil)
    }
    let onIt = waiting.filter { Self.isOn(mountPoint, $0) }
    return try refresh(onIt.isEmpty ? waiting : onIt)
  }

  /// Applies one mount event.
  package func handle(_ event: MountEvent) {
    // Best effort: statuses a failed save leaves as they were are told again by the next
    // resolve, and the failure by the next call that changes the store.
    switch event {
    case .unmounted(let mount): _ = try? markUnavailable(onUnmountOf: mount.mountPoint)  // best effort
    case .mounted(let mount): _ = try? refreshStatuses(onMountOf: mount.mountPoint)  // best effort
    }
  }
}
