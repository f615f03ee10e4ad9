import Glibc

/// Process IDs: this process's, and whether another is still running.
package enum ProcessID {
  /// This process's ID. The corresponding C function is `getpid`.
  package static var current: Int32 { getpid() }

  /// Whether a process with ID `pid` exists (perhaps another user's). The corresponding C
  /// function is `kill` with signal 0.
  package static func isRunning(_ pid: Int32) -> Bool {
    pid > 0 && (kill(pid, 0) == 0 || errno == EPERM)
  }
}
