import Synchronization

/// The files this process's saves put at documents' paths lately (`replaceDocument`,
/// `saveCopy`, `createDocument`), so that its watchers can tell the app's own save from
/// another program's: a new version is noted just before it is renamed into place, so a
/// watcher that reads the rename finds it here.
///
/// Only the last ``limit`` files are kept: enough for the saves a watcher has not yet read.
package enum OwnSaves {
  /// A file, by device and inode number.
  package struct File: Hashable, Sendable {
    let major: UInt32
    let minor: UInt32
    let inode: UInt64
  }

  /// The most files remembered; the oldest go first.
  static let limit = 4096

  private struct Memory {
    var order: [File] = []
    var files: Set<File> = []
  }

  private static let memory = Mutex(Memory())

  /// Notes the file with `status` as a save of this process.
  static func note(_ status: FileStatus) {
    let file = File(major: status.device.major, minor: status.device.minor, inode: status.inode)
    memory.withLock { memory in
      guard memory.files.insert(file).inserted else { return }
      memory.order.append(file)
      if memory.order.count > limit {
        memory.files.remove(memory.order.removeFirst())
      }
    }
  }

  /// Whether the file on device `major:minor` with inode `inode` is one this process saved.
  package static func contains(major: UInt32, minor: UInt32, inode: UInt64) -> Bool {
    memory.withLock { $0.files.contains(File(major: major, minor: minor, inode: inode)) }
  }
}
