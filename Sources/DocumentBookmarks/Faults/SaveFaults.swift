import DocbmSystem
import Synchronization

/// Faults injected into the save sequence, for testing error handling: the next save in the
/// current task (or, with a process-wide fault, anywhere in the process) fails at `step` as
/// if its system call had returned `errno`.
///
/// The public face of this is `withSaveFault(_:_:)` and `withProcessWideSaveFault(_:_:)` in
/// DocumentBookmarksTesting.
package enum SaveFaults {
  /// One fault, used by the first save that reaches its step.
  package final class Fault: Sendable {
    package let step: SaveStep
    package let errno: Int32
    /// Whether the failed save leaves its temporary file behind, as a crash would.
    package let leavesTemporary: Bool
    private let used = Atomic<Bool>(false)
    private let left = Mutex<[FilePath]>([])

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

    /// The temporaries that saves failed by this fault left behind.
    package var leftTemporaries: [FilePath] { left.withLock { $0 } }

    func noteLeft(_ path: FilePath) {
      left.withLock { $0.append(path) }
    }

    /// Removes the temporaries this fault left (those still there); returns the ones that
    /// could not be removed.
    @discardableResult
    package func removeLeftTemporaries() -> [FilePath] {
      let paths = left.withLock { paths in
        defer { paths.removeAll() }
        return paths
      }
      return paths.flatMap { FileDescriptor.currentWorkingDirectory.removeTreeForcibly($0) }
    }
  }

  @TaskLocal package static var injected: Fault?

  /// The process-wide faults, each for the saves of documents inside its folder.
  private static let processWide = ProcessWideFaults<Fault>()

  /// Installs `fault` for every save in the process of a document inside `folder` (`nil`:
  /// every save), whatever its task or thread, until ``endProcessWide(_:)``. Returns
  /// `false` when a process-wide fault for an overlapping folder is installed.
  package static func beginProcessWide(_ fault: Fault, in folder: FilePath?) -> Bool {
    processWide.begin(fault, in: folder)
  }

  /// Removes the process-wide `fault`.
  package static func endProcessWide(_ fault: Fault) {
    processWide.end(fault)
  }

  /// The fault that applies to a save of `destination` here: the task's own, else the
  /// process-wide one when its folder holds the destination.
  static func active(for destination: FilePath) -> Fault? {
    injected ?? processWide.fault(for: destination)
  }

  /// Throws the injected fault when `step` is the one to fail and it was not used yet.
  /// Saves that are not `replaceDocument` (the store's journal appends) call it too, naming
  /// the document they change, so that the same faults reach them.
  package static func check(_ step: SaveStep, call: String, destination: FilePath) throws(SystemCallError) {
    if let fault = active(for: destination), fault.step == step, fault.claim() {
      throw SystemCallError(call, Errno(rawValue: fault.errno))
    }
  }

  /// Whether the fault that made this save fail asks to leave the temporary file behind.
  static func leavesTemporary(_ destination: FilePath) -> Bool {
    active(for: destination).map { $0.wasUsed && $0.leavesTemporary } ?? false
  }

  /// Records a temporary that a fault left behind, so the testing product can remove it.
  static func noteLeftTemporary(_ path: FilePath, _ destination: FilePath) {
    active(for: destination)?.noteLeft(path)
  }
}
