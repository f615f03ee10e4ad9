import Glibc

/// The process's environment variables, read one at a time, and its arguments.
///
/// `ProcessInfo.processInfo.environment` builds a dictionary of every variable at each
/// call; a lookup by name needs none of that.
package enum ProcessEnvironment {
  /// The process's arguments, without the program's name, as the bytes the kernel passed
  /// (a file name need not be UTF-8).
  package static var arguments: [[UInt8]] {
    (1..<Int(CommandLine.argc)).map { index in
      guard let pointer = CommandLine.unsafeArgv[index] else { return [] }
      return Array(UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)))
    }
  }

  /// The value of the variable `name`, or `nil` when it is not set.
  /// The corresponding C function is `getenv`.
  package static func value(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }
  }

  /// Ends the process with `status`, after the C library's exit handlers (standard I/O is
  /// flushed). The corresponding C function is `exit`.
  package static func exit(_ status: Int32) -> Never { Glibc.exit(status) }
}
