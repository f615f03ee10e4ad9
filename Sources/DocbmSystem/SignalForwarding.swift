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

  /// SIGINT, the terminal's interrupt (Ctrl-C).
  package static let interrupt = SIGINT
  /// SIGTERM, a supervisor's request to end.
  package static let terminate = SIGTERM

  /// The signal's name as `kill -l` spells it with its prefix (`SIGINT`), or its number.
  package static func name(of signal: Int32) -> String {
    switch signal {
    case SIGINT: "SIGINT"
    case SIGTERM: "SIGTERM"
    case SIGHUP: "SIGHUP"
    default: "signal \(signal)"
    }
  }

  /// Makes the process ignore `signals` (their default action would end it), for a
  /// command that is told of them another way (a Dispatch signal source).
  /// The corresponding C function is `signal` with `SIG_IGN`.
  package static func ignore(_ signals: [Int32]) {
    for signal in signals { _ = Glibc.signal(signal, SIG_IGN) }
  }

  /// The signal ``endWait()`` sends the waiting thread: caught (and otherwise ignored)
  /// from ``install()`` on, so that it only ends the wait.
  static let wakeSignal = SIGUSR1

  private static let received = Atomic<Int32>(0)
  private static let child = Atomic<Int32>(0)
  private static let waitEnded = Atomic<Bool>(false)
  private static let waiter = Mutex<pthread_t?>(nil)

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
    var wake = sigaction()
    wake.__sigaction_handler.sa_handler = { _ in }
    sigemptyset(&wake.sa_mask)
    wake.sa_flags = 0
    _ = sigaction(wakeSignal, &wake, nil)
  }

  /// Ends the process as `signal` ends it by default (a shell then reports status 128 plus
  /// its number: 130 for SIGINT), for a command that caught it to tidy the terminal first.
  /// The corresponding C functions are `signal` with `SIG_DFL`, then `raise`.
  package static func endAsIf(by signal: Int32) -> Never {
    _ = Glibc.signal(signal, SIG_DFL)
    var set = sigset_t()
    sigemptyset(&set)
    sigaddset(&set, signal)
    _ = pthread_sigmask(SIG_UNBLOCK, &set, nil)
    _ = raise(signal)
    // A signal whose default is to end the process returns only if another thread blocks it.
    exit(128 + signal)
  }

  /// Restores the default action of the signals.
  package static func uninstall() {
    for signal in signals + [wakeSignal] { _ = Glibc.signal(signal, SIG_DFL) }
  }

  /// The last signal received since the handlers were installed, if any.
  package static var receivedSignal: Int32? {
    let value = received.load(ordering: .sequentiallyConsistent)
    return value == 0 ? nil : value
  }

  /// Runs `start` with ``signals`` blocked (so the threads it starts inherit them blocked,
  /// and a signal reaches this thread), then sleeps until one of them arrives (after
  /// ``install()``) and returns it, or until another thread calls ``endWait()``, and
  /// returns `nil`. The signals are unblocked only inside `sigsuspend(2)`, so one that
  /// arrives before the wait is not missed. No timer, no wake-up meanwhile. When `start`
  /// throws, nothing is waited for: the mask is put back and the error thrown.
  package static func waitForSignal<Failure: Error>(
    startingBlocked start: () throws(Failure) -> Void
  ) throws(Failure) -> Int32? {
    var blocked = sigset_t()
    var previous = sigset_t()
    sigemptyset(&blocked)
    for signal in signals + [wakeSignal] { sigaddset(&blocked, signal) }
    _ = pthread_sigmask(SIG_BLOCK, &blocked, &previous)
    defer { _ = pthread_sigmask(SIG_SETMASK, &previous, nil) }
    waiter.withLock { $0 = pthread_self() }
    defer { waiter.withLock { $0 = nil } }
    try start()
    var waiting = previous
    for signal in signals + [wakeSignal] { sigdelset(&waiting, signal) }
    while true {
      if let signal = receivedSignal { return signal }
      if waitEnded.load(ordering: .sequentiallyConsistent) { return nil }
      _ = sigsuspend(&waiting)
    }
  }

  /// Ends the wait of ``waitForSignal(startingBlocked:)``, from any thread (a watcher left
  /// with nothing to watch): it returns `nil`.
  package static func endWait() {
    waitEnded.store(true, ordering: .sequentiallyConsistent)
    if let thread = waiter.withLock({ $0 }) { _ = pthread_kill(thread, wakeSignal) }
  }

  /// The child that received signals are passed on to (0: none).
  static func forward(to pid: pid_t) {
    child.store(pid, ordering: .sequentiallyConsistent)
  }
}
