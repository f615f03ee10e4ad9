import Glibc

/// The kernel's coarse monotonic clock: the time of the last kernel tick, read without the
/// precise clock's counter, for hot paths that only need to know whether an answer is a
/// millisecond old. An age measured by it is short by up to a tick (1 to 10 ms), never
/// long.
package enum CoarseClock {
  /// Nanoseconds since an arbitrary start (boot), as of the last tick.
  /// The corresponding C function is `clock_gettime` with `CLOCK_MONOTONIC_COARSE`.
  package static var nanoseconds: UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC_COARSE, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
  }
}
