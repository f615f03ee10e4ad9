import DocbmSystem
import Synchronization

/// The version of the escrow's database file (``FileStatus/Version``: its identity, size
/// and times) that a repairer last left: SQLite's `quick_check` found the file intact,
/// then the repairer wrote to it.
///
/// A repair writes nothing into a database SQLite's check finds damaged. The check reads
/// the whole file, so a repairer runs it before its first write and again only when the
/// file is a different one, or someone else wrote to it since (its version is not the one
/// the repairer's last write left): a tree of keyless documents repaired in one run costs
/// one check, not one per document.
final class CheckedEscrowVersion: Sendable {
  private let version = Mutex<FileStatus.Version?>(nil)

  init() {}

  /// Whether the database at `path` is the version this repairer last left after a check
  /// that found it intact. A file that cannot be looked at is not.
  func isChecked(_ path: FilePath) -> Bool {
    // A file that cannot be looked at is checked again, which then reports why.
    guard let now = try? FileStatus.of(path, followSymlinks: false).version else { return false }
    return version.withLock { $0 == now }
  }

  /// Records the version of the database at `path` after this repairer found it intact and
  /// wrote to it; `nil` (it cannot be looked at) leaves the next write to check again.
  func recordChecked(_ path: FilePath) {
    // Not recorded: the next write checks the file again.
    let now = try? FileStatus.of(path, followSymlinks: false).version
    version.withLock { $0 = now }
  }
}
