import Glibc

/// A pipe one thread writes to so that another, waiting in ``Poller/wait(_:timeout:)``,
/// wakes up: how a watching thread is told to stop without polling on a timer.
package final class WakeSignal: @unchecked Sendable {
  private let reader: Int32
  private let writer: Int32

  /// Makes the pipe (close-on-exec, non-blocking).
  ///
  /// - Throws: ``SystemCallError`` EMFILE or ENFILE when no descriptor is left.
  package init() throws(SystemCallError) {
    var ends: [Int32] = [0, 0]
    guard pipe(&ends) == 0 else { throw SystemCallError("pipe", .current) }
    for end in ends {
      _ = fcntl(end, F_SETFD, FD_CLOEXEC)
      _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
    }
    reader = ends[0]
    writer = ends[1]
  }

  deinit {
    _ = Glibc.close(reader)
    _ = Glibc.close(writer)
  }

  /// What a waiter passes to ``Poller/wait(_:timeout:)``.
  package var interest: Poller.Interest { .readable(reader) }

  /// Wakes the waiter (and every later wait, until ``drain()``).
  package func signal() {
    var byte: UInt8 = 1
    _ = Glibc.write(writer, &byte, 1)
  }

  /// Empties the pipe, so that the next wait blocks again.
  package func drain() {
    var buffer = [UInt8](repeating: 0, count: 64)
    while buffer.withUnsafeMutableBytes({ Glibc.read(reader, $0.baseAddress, $0.count) }) > 0 {}
  }
}
