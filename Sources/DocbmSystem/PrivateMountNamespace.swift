import CDocbmShims
import Glibc

/// A mount namespace of the calling thread's own, for making real filesystems (loop
/// images, tmpfs, overlayfs, FUSE) without touching the machine's mounts: the test suite's
/// filesystem matrix mounts them from a dedicated thread that has entered one.
///
/// Mount namespaces belong to threads on Linux: after ``enterOnThisThread()`` only this
/// thread, and the processes it starts afterwards, see the mounts made there; other
/// threads of the process keep the machine's view. Every mount is private, so nothing
/// propagates out, and the namespace (with its mounts) goes away when the thread and the
/// processes it started have ended.
package enum PrivateMountNamespace {
  /// Moves the calling thread into a new mount namespace whose mounts are all private.
  /// Needs CAP_SYS_ADMIN (root).
  ///
  /// The corresponding C functions are `unshare` (with `CLONE_NEWNS`) and `mount` (with
  /// `MS_REC | MS_PRIVATE`).
  package static func enterOnThisThread() throws(SystemCallError) {
    let result = cdocbm_unshare_mount_namespace()
    let error = Errno.current
    // Once unshare succeeded, the thread's mounts are not the process's, whatever follows.
    if result != -1 { CurrentThread.hasOwnMountNamespace = true }
    if result != 0 { throw SystemCallError(result == -1 ? "unshare" : "mount", error) }
  }

  /// Whether the calling thread has entered a namespace of its own
  /// (``enterOnThisThread()``): it then sees other mounts than the process's mount table
  /// lists.
  package static var isEnteredOnThisThread: Bool { CurrentThread.hasOwnMountNamespace }

  /// The identity of the mount namespace that `path` (such as `/proc/thread-self/ns/mnt`)
  /// names, as its link text (`mnt:[4026531841]`); `nil` when it cannot be read.
  package static func identity(_ path: String = "/proc/thread-self/ns/mnt") -> String? {
    var buffer = [CChar](repeating: 0, count: 64)
    let count = readlink(path, &buffer, buffer.count - 1)
    guard count > 0 else { return nil }
    return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}
