import Synchronization

/// Faults a test installs for the whole process, each for the paths inside one folder or
/// for every path: docbm's one registry of them, for save and resolution faults alike.
///
/// Two faults conflict when one's folder holds the other's, or either is for every path:
/// which operation should fail would then be unclear, so the second is refused. Faults for
/// folders apart from each other (tests that each work in a scratch folder of their own)
/// are installed side by side, so that such tests can run in parallel.
package final class ProcessWideFaults<Fault: AnyObject & Sendable>: Sendable {
  private struct Entry: Sendable {
    let fault: Fault
    /// Absolute and normalized; `nil`: every path.
    let folder: FilePath?
  }

  private let entries = Mutex<[Entry]>([])
  /// How many faults are installed: read without the lock by every operation.
  private let installed = Atomic<Int>(0)

  package init() {}

  /// Installs `fault` for operations on paths inside `folder` (`nil`: every path) until
  /// ``end(_:)``. Returns `false`, installing nothing, when it conflicts with one installed.
  package func begin(_ fault: Fault, in folder: FilePath?) -> Bool {
    let folder = folder.map { $0.absolute.lexicallyNormalized }
    return entries.withLock { entries in
      let conflicts = entries.contains { entry in
        guard let folder, let other = entry.folder else { return true }
        return folder == other || folder.isBelow(other) || other.isBelow(folder)
      }
      guard !conflicts else { return false }
      entries.append(Entry(fault: fault, folder: folder))
      installed.add(1, ordering: .releasing)
      return true
    }
  }

  /// Removes `fault`; nothing when it is not installed.
  package func end(_ fault: Fault) {
    entries.withLock { entries in
      guard let index = entries.firstIndex(where: { $0.fault === fault }) else { return }
      entries.remove(at: index)
      installed.subtract(1, ordering: .releasing)
    }
  }

  /// The installed fault for `path`, if one is (at most one can be, since they do not
  /// conflict).
  package func fault(for path: FilePath) -> Fault? {
    guard installed.load(ordering: .acquiring) > 0 else { return nil }
    let entries = entries.withLock { $0 }
    guard !entries.isEmpty else { return nil }
    let normalized = path.absolute.lexicallyNormalized
    return entries.first { entry in
      entry.folder.map { normalized == $0 || normalized.isBelow($0) } ?? true
    }?.fault
  }
}
