import DocbmSystem
import Synchronization

/// Whether a Documents portal is mounted anywhere this process looks. Where none is, no
/// path can be reached through one, and ``PortalDocument/of(_:)`` answers without a
/// `statfs` of the path: the kernel's walk of the path again, after the one that read the
/// key.
///
/// The answer comes from the process's mount table (`/proc/self/mountinfo`, a mount of
/// type `fuse.portal`), read again whenever the kernel says that table changed: `poll` on
/// it returns `POLLPRI` after any mount or unmount, a system call that walks no path. A
/// thread that entered a mount namespace of its own (``PrivateMountNamespace``) sees other
/// mounts than the process's table lists: it gets no answer, and asks the path.
enum PortalMounts {
  private struct State {
    /// An open `/proc/self/mountinfo`, for `poll`; `nil` before the table is first read.
    var descriptor: FileDescriptor?
    /// Whether the table read last listed a portal; `nil` when it could not be read whole.
    var portalMounted: Bool? = nil
    /// When the table was last asked whether it changed (``CoarseClock``).
    var checkedAt: UInt64 = 0
    /// The questions answered "not known" before the table was first read.
    var unread = 0
  }

  /// How many questions are answered "not known" (the caller asks the path) before the
  /// table is read: a command that asks a few times pays a `statfs` each time, cheaper than
  /// opening and parsing the mount table; a loop reads it once and then saves the `statfs`.
  static let questionsBeforeReading = 8

  /// How long an answer stands on the hot paths (the unmoved resolve, a batch of
  /// resolutions, the checker's question for every document) without asking the kernel again: 1 ms by the coarse
  /// clock (``CoarseClock``), so in all up to one kernel tick more (10 ms at most). A
  /// portal mounted within it may go unseen there; everywhere else each question asks.
  static let hotPathAnswerAge: UInt64 = 1_000_000

  private static let state = Mutex(State())
  /// When the table last said that no portal is mounted (``CoarseClock``); 0 when
  /// it did not.
  private static let noneSeenAt = Atomic<UInt64>(0)

  /// Whether no Documents portal is mounted: `true` only when the mount table says so;
  /// `false` when one is, when the table cannot be read, for the first
  /// ``questionsBeforeReading`` questions of the process, or on a thread with a mount
  /// namespace of its own.
  ///
  /// `maximumAge` (nanoseconds, by the coarse clock) lets an answer stand without asking
  /// the kernel again when it was checked that recently; 0 (the default) asks every time,
  /// which costs one `poll`. A portal mounted within `maximumAge` (and the clock's tick)
  /// may then go unseen.
  static func noneMounted(maximumAge: UInt64 = 0) -> Bool {
    guard !PrivateMountNamespace.isEnteredOnThisThread else { return false }
    let now = CoarseClock.nanoseconds
    // A recent "none" stands without the lock.
    if maximumAge > 0, now &- noneSeenAt.load(ordering: .acquiring) <= maximumAge { return true }
    return state.withLock { state in
      if maximumAge > 0, state.descriptor != nil, state.portalMounted != nil,
        now &- state.checkedAt <= maximumAge
      {
        return state.portalMounted == false
      }
      if state.descriptor == nil {
        guard state.unread >= questionsBeforeReading else {
          state.unread += 1
          return false
        }
        // No table to poll: the answer stays "may be mounted" (below), never "none".
        state.descriptor = try? FileDescriptor.open("/proc/self/mountinfo", .readOnly)
        state.portalMounted = nil
      }
      guard let descriptor = state.descriptor else { return false }
      if state.portalMounted == nil || tableChanged(descriptor) {
        // A table cut short, or with lines not understood, may hide a portal.
        state.portalMounted = (try? MountTable.current()).flatMap { table in
          table.isTruncated || table.skippedLineCount > 0
            ? nil : table.mounts.contains { $0.isDocumentPortal }
        }
      }
      state.checkedAt = now
      noneSeenAt.store(state.portalMounted == false ? now : 0, ordering: .releasing)
      return state.portalMounted == false
    }
  }

  /// Whether the mount table changed since `descriptor` was last polled (`poll` clears
  /// the report); `true` when it cannot tell.
  private static func tableChanged(_ descriptor: FileDescriptor) -> Bool {
    (try? Poller.wait([.priority(descriptor.rawValue)], timeout: 0))?.first ?? true  // as documented
  }
}
