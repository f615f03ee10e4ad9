import DocbmSystem
import Synchronization

/// The walks of whole filesystems that the bookmarks of one call share (``SearchBudget``'s
/// second stage): one ``FilesystemWalk`` per mount, started by the first target not found
/// nearby, and a time limit for all of them together, counted from that first walk.
///
/// Like ``SearchArea``, a snapshot of the call's time, dropped with it.
final class FilesystemSearch: Sendable {
  let timeLimit: Duration?
  let cancellation: SearchCancellation?
  private let walks = ConditionLock<[FilePath: FilesystemWalk]>([:])
  /// When the walking must stop (coarse monotonic nanoseconds); 0 until the first walk.
  private let deadline = Atomic<UInt64>(0)

  init(timeLimit: Duration?, cancellation: SearchCancellation?) {
    self.timeLimit = timeLimit
    self.cancellation = cancellation
  }

  /// Looks for the object `matcher` recorded on the mount whose root is `mountRoot`, from
  /// `home` first when given (the target was in it), then from `mountRoot`.
  ///
  /// - Returns: `nil` when the mount's root cannot be looked at (then nothing was walked).
  func find(_ matcher: IdentityMatcher, mountRoot: FilePath, home: FilePath?) -> FilesystemWalk.Outcome? {
    let walk: FilesystemWalk? = walks.withLock { walks in
      if let walk = walks[mountRoot] { return walk }
      // `nil`, as documented: the caller then reports the target not found by a walk.
      guard let status = try? FileStatus.of(mountRoot, followSymlinks: false), status.kind == .directory
      else {
        return nil
      }
      let made = FilesystemWalk(
        mountRoot: mountRoot, rootStatus: status, roots: (home.map { [$0] } ?? []) + [mountRoot])
      walks[mountRoot] = made
      return made
    }
    guard let walk else { return nil }
    return walk.find(matcher, deadline: startDeadline(), cancellation: cancellation)
  }

  /// The deadline, set when first asked for; `nil` without a time limit.
  private func startDeadline() -> UInt64? {
    guard let timeLimit else { return nil }
    let (seconds, attoseconds) = timeLimit.components
    let span = UInt64(max(0, seconds)) &* 1_000_000_000 &+ UInt64(max(0, attoseconds) / 1_000_000_000)
    let proposed = max(1, CoarseClock.nanoseconds &+ span)
    let (exchanged, original) = deadline.compareExchange(
      expected: 0, desired: proposed, ordering: .relaxed)
    return exchanged ? proposed : original
  }
}
