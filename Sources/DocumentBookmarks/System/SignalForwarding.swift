import Glibc
import Synchronization

/// Catches the signals that stop a command from a terminal or a supervisor (SIGINT,
/// SIGTERM, SIGHUP) so that a command which made files can remove them before it exits,
/// and passes each signal on to the child it is waiting for.
///
/// The handler only stores the signal and calls `kill(2)`, both async-signal-safe. There
/// is one set of handlers per process: ``install()`` is meant for the command-line tool,
/// not for a library call.
package enum SignalForwarding {
  /// The signals caught.
  package static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

  private static let received = Atomic<Int32>(0)
  private static let child = Atomic<Int32>(0)

  /// Installs the handlers and unblocks the signals on the calling thread (a parent that
  /// started this process from a thread blocking them passed its mask on). Until then,
  /// the signals keep their default action.
  package static func install() {
    var set = sigset_t()
    sigemptyset(&set)
    for signal in signals { sigaddset(&set, signal) }
    _ = pthread_sigmask(SIG_UNBLOCK, &set, nil)
    for signal in signals {
      var action = sigaction()
      action.__sigaction_handler.sa_handler = { signal in
        SignalForwarding.received.store(signal, ordering: .sequentiallyConsistent)
        let pid = SignalForwarding.child.load(ordering: .sequentiallyConsistent)
        if pid > 0 { _ = kill(pid, signal) }
      }
      sigemptyset(&action.sa_mask)
      action.sa_flags = 0
      _ = sigaction(signal, &action, nil)
    }
  }

  /// Restores the default action of the signals.
  package static func uninstall() {
    for signal in signals { _ = Glibc.signal(signal, SIG_DFL) }
  }

  /// The last signal received since the handlers were installed, if any.
  package static var receivedSignal: Int32? {
    let value = received.load(ordering: .sequentiallyConsistent)
    return value == 0 ? nil : value
  }

  /// Runs `start` with ``signals`` blocked (so the threads it starts inherit them blocked,
  /// and a signal reaches this thread), then sleeps until one of them arrives (after
  /// ``install()``) and returns it. The signals are unblocked only inside `sigsuspend(2)`,
  /// so one that arrives before the wait is not missed. No timer, no wake-up meanwhile.
  /// When `start` throws, nothing is waited for: the mask is put back and the error thrown.
  package static func waitForSignal<Failure: Error>(
    startingBlocked start: () throws(Failure) -> Void
  ) throws(Failure) -> Int32 {
    var blocked = sigset_t()
    var previous = sigset_t()
    sigemptyset(&blocked)
    for signal in signals { sigaddset(&blocked, signal) }
    _ = pthread_sigmask(SIG_BLOCK, &blocked, &previous)
    defer { _ = pthread_sigmask(SIG_SETMASK, &previous, nil) }
    try start()
    var waiting = previous
    for signal in signals { sigdelset(&waiting, signal) }
    while true {
      if let signal = receivedSignal { return signal }
      _ = sigsuspend(&waiting)
    }
  }

  /// The child that received signals are passed on to (0: none).
  static func forward(to pid: pid_t) {
    child.store(pid, ordering: .sequentiallyConsistent)
  }
}
