import Foundation

/// Waits for `condition` to hold, for what gives no event to wait on (a terminal's screen, a
/// file another process makes, a lock another process takes): looks at once, then again
/// after pauses that grow from 5 ms to 100 ms, for at most `seconds`, generous so that a
/// loaded machine passes. Returns whether it held; a test fails with a message when not.
public func waitUntil(within seconds: Double = 60, _ condition: () throws -> Bool) rethrows -> Bool {
  let end = Date().addingTimeInterval(seconds)
  var pause: UInt32 = 5_000
  while true {
    if try condition() { return true }
    guard Date() < end else { return try condition() }
    usleep(pause)
    pause = min(pause * 2, 100_000)
  }
}
