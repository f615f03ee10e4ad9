import Glibc

/// Runs a program as a child process with the caller's environment and standard streams.
package enum ChildProcess {
  /// How a child ended.
  package struct Termination: Hashable, Sendable {
    /// Its exit status, or 128 + the signal that ended it (the shell's convention).
    package let status: Int32
    /// The signal that ended it, when one did.
    package let signal: Int32?
  }

  /// Runs `arguments` (the program, looked up in `PATH`, then its arguments) and waits for
  /// it. While it runs, the signals ``SignalForwarding`` catches are passed on to it.
  ///
  /// - Throws: ``SystemCallError`` (`posix_spawnp`) when the program cannot be started:
  ///   not found (ENOENT), not executable (EACCES).
  package static func run(_ arguments: [[UInt8]]) throws(SystemCallError) -> Termination {
    precondition(!arguments.isEmpty, "a command needs a program")
    var pointers: [UnsafeMutablePointer<CChar>?] = arguments.map { bytes in
      let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
      for (index, byte) in bytes.enumerated() { pointer[index] = CChar(bitPattern: byte) }
      pointer[bytes.count] = 0
      return pointer
    }
    pointers.append(nil)
    defer { pointers.forEach { $0?.deallocate() } }
    // The child starts with no signal blocked and the forwarded signals at their default
    // action, whatever this process had.
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var empty = sigset_t()
    sigemptyset(&empty)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for signal in SignalForwarding.signals { sigaddset(&defaults, signal) }
    posix_spawnattr_setsigmask(&attributes, &empty)
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    var pid: pid_t = 0
    let result = posix_spawnp(&pid, pointers[0]!, nil, &attributes, &pointers, environ)
    guard result == 0 else {
      throw SystemCallError(
        "posix_spawnp", Errno(rawValue: result), path: FilePath(uncheckedBytes: arguments[0]))
    }
    SignalForwarding.forward(to: pid)
    // A signal that came between the spawn and the line above is passed on too.
    if let signal = SignalForwarding.receivedSignal { _ = kill(pid, signal) }
    defer { SignalForwarding.forward(to: 0) }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let signal = status & 0x7F
    return signal == 0
      ? Termination(status: (status >> 8) & 0xFF, signal: nil)
      : Termination(status: 128 + signal, signal: signal)
  }
}
