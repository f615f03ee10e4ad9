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

    /// For a process-wide fault: only saves of documents inside this folder (an absolute,
    /// normalized path); `nil`: every save.
    package let folder: FilePath?

    package init(step: SaveStep, errno: Int32, leavesTemporary: Bool = false, folder: FilePath? = nil) {
      self.step = step
      self.errno = errno
      self.leavesTemporary = leavesTemporary
      self.folder = folder.map { $0.absolute.lexicallyNormalized }
    }

    /// Whether a save of `destination` is one this fault may fail.
    func applies(to destination: FilePath) -> Bool {
      guard let folder else { return true }
      let path = destination.absolute.lexicallyNormalized.bytes
      let prefix = folder.bytes.last == UInt8(ascii: "/") ? folder.bytes : folder.bytes + [UInt8(ascii: "/")]
      return path.starts(with: prefix)
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

  private static let processWide = Mutex<Fault?>(nil)
  /// Whether a process-wide fault is installed: read without the lock by every save step.
  private static let anyProcessWide = Atomic<Bool>(false)

  /// Installs `fault` for every save in the process, whatever its task or thread, until
  /// ``endProcessWide(_:)``. Returns `false` when another process-wide fault is installed.
  package static func beginProcessWide(_ fault: Fault) -> Bool {
    processWide.withLock { current in
      guard current == nil else { return false }
      current = fault
      anyProcessWide.store(true, ordering: .releasing)
      return true
    }
  }

  /// Removes the process-wide `fault`.
  package static func endProcessWide(_ fault: Fault) {
    processWide.withLock { current in
      if current === fault {
        current = nil
        anyProcessWide.store(false, ordering: .releasing)
      }
    }
  }

  /// The fault that applies to a save of `destination` here: the task's own, else the
  /// process-wide one when its folder holds the destination.
  static func active(for destination: FilePath) -> Fault? {
    if let injected { return injected }
    guard anyProcessWide.load(ordering: .acquiring) else { return nil }
    guard let fault = processWide.withLock({ $0 }), fault.applies(to: destination) else { return nil }
    return fault
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
