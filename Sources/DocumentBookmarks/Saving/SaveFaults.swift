import Synchronization

/// Faults injected into the save sequence, for testing error handling: the next save in the
/// current task fails at `step` as if its system call had returned `errno`.
///
/// The public face of this is `withSaveFault(_:_:)` in DocumentBookmarksTesting.
package enum SaveFaults {
  /// One fault, used by the first save that reaches its step.
  package final class Fault: Sendable {
    package let step: SaveStep
    package let errno: Int32
    /// Whether the failed save leaves its temporary file behind, as a crash would.
    package let leavesTemporary: Bool
    private let used = Atomic<Bool>(false)

    package init(step: SaveStep, errno: Int32, leavesTemporary: Bool = false) {
      self.step = step
      self.errno = errno
      self.leavesTemporary = leavesTemporary
    }

    /// Claims the fault; `true` only the first time.
    func claim() -> Bool {
      !used.exchange(true, ordering: .acquiringAndReleasing)
    }

    /// Whether a save has used the fault.
    package var wasUsed: Bool { used.load(ordering: .acquiring) }
  }

  @TaskLocal package static var injected: Fault?

  /// Throws the injected fault when `step` is the one to fail and it was not used yet.
  static func check(_ step: SaveStep, call: String) throws(SystemCallError) {
    if let fault = injected, fault.step == step, fault.claim() {
      throw SystemCallError(call, Errno(rawValue: fault.errno))
    }
  }

  /// Whether the fault that made this save fail asks to leave the temporary file behind.
  static var leavesTemporary: Bool {
    injected.map { $0.wasUsed && $0.leavesTemporary } ?? false
  }
}
