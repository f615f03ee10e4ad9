import CDocbmShims
import Glibc

/// A kernel event counter (`eventfd(2)`) that one thread signals to wake another blocked
/// in `poll(2)` on it: how a reader sleeping without a timeout is told to stop.
///
/// Non-blocking and close-on-exec; closed when released.
package final class EventNotifier: Sendable {
  /// The descriptor to poll for `POLLIN`.
  package let descriptor: Int32

  /// Makes a counter at zero.
  ///
  /// - Throws: ``SystemCallError`` EMFILE or ENFILE when no descriptor is left.
  package init() throws(SystemCallError) {
    let fd = cdocbm_event_counter()
    guard fd >= 0 else { throw SystemCallError("eventfd", .current) }
    descriptor = fd
  }

  deinit { _ = Glibc.close(descriptor) }

  /// What a waiter passes to ``Poller/wait(_:timeout:)`` to wake when this is signalled.
  package var interest: Poller.Interest { .readable(descriptor) }

  /// Wakes the poller (adds one to the counter; safe from any thread).
  package func signal() {
    var one: UInt64 = 1
    _ = withUnsafeBytes(of: &one) { Glibc.write(descriptor, $0.baseAddress, 8) }
  }

  /// Sets the counter back to zero (reading it), so that the next poll sleeps again.
  package func reset() {
    var value: UInt64 = 0
    _ = withUnsafeMutableBytes(of: &value) { Glibc.read(descriptor, $0.baseAddress, 8) }
  }
}
