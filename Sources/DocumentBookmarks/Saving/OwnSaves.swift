import DocbmSystem
import Synchronization

/// The files this process's saves put at documents' paths lately (`replaceDocument`,
/// `saveCopy`, `createDocument`), so that its watchers can tell the app's own save from
/// another program's: a new version is noted just before it is renamed into place, so a
/// watcher that reads the rename finds it here.
///
/// Only the last ``limit`` files are kept: enough for the saves a watcher has not yet read.
package enum OwnSaves {
  /// A file, by device, inode number and birth time (`nil` where the filesystem keeps
  /// none): the birth time tells this process's file from another program's that got its
  /// inode number after it was deleted.
  package struct File: Hashable, Sendable {
    let major: UInt32
    let minor: UInt32
    let inode: UInt64
    let birthTime: Timestamp?
  }

  /// The most files remembered; the oldest go first.
  static let limit = 4096

  private struct Memory {
    var order: [File] = []
    /// Each file, and whether the save's descriptor that wrote it is closed after the
    /// rename.
    var files: [File: Bool] = [:]
  }

  private static let memory = Mutex(Memory())

  /// Notes the file with `status` as a save of this process; `closesAfterRename` when the
  /// descriptor that wrote it is closed only after it is renamed into place (docbm wrote
  /// the bytes itself), so that a watcher reads one close after writing at the document's
  /// path that is the save's own, not a write in place.
  static func note(_ status: FileStatus, closesAfterRename: Bool) {
    let file = File(
      major: status.device.major, minor: status.device.minor, inode: status.inode,
      birthTime: status.birthTime)
    memory.withLock { memory in
      guard memory.files.updateValue(closesAfterRename, forKey: file) == nil else { return }
      memory.order.append(file)
      if memory.order.count > limit {
        memory.files[memory.order.removeFirst()] = nil
      }
    }
  }

  /// Whether the file on device `major:minor` with inode `inode`, made at `birthTime`, is
  /// one this process saved.
  package static func contains(major: UInt32, minor: UInt32, inode: UInt64, birthTime: Timestamp?) -> Bool {
    memory.withLock {
      $0.files[File(major: major, minor: minor, inode: inode, birthTime: birthTime)] != nil
    }
  }

  /// Whether that file is one this process saved whose writing descriptor was closed after
  /// its rename.
  package static func closesAfterRename(major: UInt32, minor: UInt32, inode: UInt64, birthTime: Timestamp?)
    -> Bool
  {
    memory.withLock {
      $0.files[File(major: major, minor: minor, inode: inode, birthTime: birthTime)] == true
    }
  }
}
