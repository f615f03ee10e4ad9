import Glibc

/// Waits for several descriptors at once (poll(2)): what lets a thread sleep until one of
/// its sources has something, or it is told to stop, with no wake-ups meanwhile.
package enum Poller {
  /// What to wait for on one descriptor.
  package struct Interest: Sendable {
    package let descriptor: Int32
    package let events: Int16

    /// Readable data (POLLIN).
    package static func readable(_ descriptor: Int32) -> Interest {
      Interest(descriptor: descriptor, events: Int16(POLLIN))
    }

    /// An exceptional condition (POLLPRI): how `/proc/self/mountinfo` says the mount
    /// table changed.
    package static func priority(_ descriptor: Int32) -> Interest {
      Interest(descriptor: descriptor, events: Int16(POLLPRI))
    }
  }

  /// Waits until one of `interests` is ready, or `timeout` milliseconds pass (-1: no limit).
  /// Returns, per interest in order, whether it is ready (any returned event, errors and
  /// hang-ups included); all false after a timeout or an interrupted wait.
  ///
  /// - Throws: ``SystemCallError`` from `poll` (other than EINTR).
  package static func wait(_ interests: [Interest], timeout: Int32) throws(SystemCallError) -> [Bool] {
    var entries = interests.map { pollfd(fd: $0.descriptor, events: $0.events, revents: 0) }
    let ready = entries.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), timeout) }
    if ready < 0 {
      if errno == EINTR { return Array(repeating: false, count: interests.count) }
      throw SystemCallError("poll", .current)
    }
    return entries.map { $0.revents != 0 }
  }
}
