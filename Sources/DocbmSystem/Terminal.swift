import Glibc

/// What a descriptor says of the terminal it is, if it is one.
package enum Terminal {
  /// Whether `descriptor` is a terminal (a person typing or reading), not a pipe or a file.
  /// The corresponding C function is `isatty`.
  package static func isTerminal(_ descriptor: FileDescriptor) -> Bool { isatty(descriptor.rawValue) == 1 }

  /// The columns of the terminal `descriptor` is; `nil` when it is none or does not say.
  /// The corresponding C call is `ioctl(TIOCGWINSZ)`.
  package static func columns(of descriptor: FileDescriptor) -> Int? {
    guard isTerminal(descriptor) else { return nil }
    var size = winsize()
    guard ioctl(descriptor.rawValue, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
    return Int(size.ws_col)
  }
}
