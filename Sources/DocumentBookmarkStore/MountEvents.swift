import DocbmSystem
public import DocumentBookmarks
import FoundationEssentials

/// A filesystem mounted or unmounted in this process's mount namespace.
public enum MountEvent: Hashable, Sendable {
  case mounted(MountInfo)
  case unmounted(MountInfo)

  /// The mount the event is about.
  public var mount: MountInfo {
    switch self {
    case .mounted(let info), .unmounted(let info): info
    }
  }
}

/// One mount, as the mount table lists it.
public struct MountInfo: Hashable, Sendable {
  /// The mount's ID (unique while it is mounted; the kernel may reuse it later).
  public let mountID: UInt64
  /// Where it is mounted.
  public let mountPoint: FilePath
  /// The filesystem type (`ext4`, `vfat`, `fuse.sshfs`, …).
  public let fileSystemType: String
  /// The filesystem's source (`/dev/sdb1`, a server path, …).
  public let source: String
  /// The filesystem's id (`statfs`'s `f_fsid`), read when it was mounted; `nil` after an
  /// unmount or when it could not be read.
  public let filesystemID: UInt64?

  /// A mount as given: for an app's tests, which feed made-up events to
  /// ``BookmarkStore/refreshStatuses(on:)`` to test what their UI does when a disk goes
  /// away and comes back (a store judges a mount by its ``mountPoint``), and for other
  /// sources of mount events (UDisks, GIO's volume monitor).
  public init(
    mountID: UInt64 = 0, mountPoint: FilePath, fileSystemType: String = "", source: String = "",
    filesystemID: UInt64? = nil
  ) {
    self.mountID = mountID
    self.mountPoint = mountPoint
    self.fileSystemType = fileSystemType
    self.source = source
    self.filesystemID = filesystemID
  }

  /// The mount that holds `path` now, from the mount table: for a test that makes up the
  /// unmount of the disk a target is on (`.unmounted(.holding(target)!)`) and its return.
  /// `nil` when the path or the mount table cannot be read.
  public static func holding(_ path: FilePath) -> MountInfo? {
    // `nil` when either cannot be read, as documented.
    guard let real = try? SymbolicLink.canonicalPath(path), let table = try? MountTable.current(),
      let mount = table.mount(containing: real)
    else { return nil }
    return MountWatcher.info(mount, readingFilesystemID: true)
  }
}

/// Mount and unmount events, from the mount table (`/proc/self/mountinfo`), which the
/// kernel marks when it changes: a thread sleeps in `poll` until then, so no mount change
/// costs nothing, and each change is reported within moments. A remount (new options, same
/// mount) is not an event.
public enum MountEvents {
  /// A stream of the mounts that come and go from now on. Ending the iteration (or
  /// cancelling its task) stops the thread and closes the table.
  public static func stream() -> AsyncStream<MountEvent> {
    let (stream, continuation) = AsyncStream<MountEvent>.makeStream(bufferingPolicy: .unbounded)
    guard let watcher = MountWatcher(report: { events in events.forEach { continuation.yield($0) } }) else {
      continuation.finish()
      return stream
    }
    continuation.onTermination = { _ in watcher.cancel() }
    return stream
  }
}

/// The thread behind ``MountEvents``: waits on the mount table, diffs it by mount ID.
final class MountWatcher: @unchecked Sendable {
  private let stop: EventNotifier

  /// Starts watching; `nil` when the mount table cannot be read (no `/proc`).
  init?(report: @escaping @Sendable ([MountEvent]) -> Void) {
    // No table, no watch: `nil`, as documented (the stream then ends at once).
    guard let table = try? FileDescriptor.open(FilePath("/proc/self/mountinfo"), [.readOnly]),
      let stop = try? EventNotifier(), let initial = try? MountWatcher.mounts()
    else { return nil }
    self.stop = stop
    let started = DetachedThread.start(named: "docbm-mounts") {
      defer { table.close() }
      var known = initial
      while true {
        // `poll` fails only without memory (EINTR is retried): the watch then ends, as if stopped.
        guard let ready = try? Poller.wait([.priority(table.rawValue), stop.interest], timeout: -1) else {
          return
        }
        if ready[1] { return }
        // A table that cannot be read now is read at the next change, diffed against the
        // last one read: no event is lost.
        guard ready[0], let now = try? MountWatcher.mounts() else { continue }
        let events = MountWatcher.changes(from: known, to: now)
        known = now
        if !events.isEmpty { report(events) }
      }
    }
    guard started else {
      table.close()
      return nil
    }
  }

  func cancel() { stop.signal() }

  deinit { stop.signal() }

  /// The current table, by mount ID.
  static func mounts() throws -> [UInt64: MountTable.Mount] {
    Dictionary(
      try MountTable.current().mounts.map { ($0.mountID, $0) }, uniquingKeysWith: { first, _ in first })
  }

  /// Mounts gone, then mounts new (by mount ID: a remount keeps its ID and is no event).
  static func changes(from old: [UInt64: MountTable.Mount], to new: [UInt64: MountTable.Mount])
    -> [MountEvent]
  {
    var events: [MountEvent] = []
    for (id, mount) in old.sorted(by: { $0.key < $1.key }) where new[id] == nil {
      events.append(.unmounted(info(mount, readingFilesystemID: false)))
    }
    for (id, mount) in new.sorted(by: { $0.key < $1.key }) where old[id] == nil {
      events.append(.mounted(info(mount, readingFilesystemID: true)))
    }
    return events
  }

  static func info(_ mount: MountTable.Mount, readingFilesystemID: Bool) -> MountInfo {
    MountInfo(
      mountID: mount.mountID, mountPoint: mount.mountPoint, fileSystemType: mount.fileSystemType,
      source: mount.source,
      // A hint: a mount point that cannot be asked has no filesystem ID.
      filesystemID: readingFilesystemID ? (try? FileSystemIdentity.of(path: mount.mountPoint))?.fsid : nil)
  }
}
