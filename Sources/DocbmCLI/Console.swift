import Glibc

/// Where a command writes: data to standard output, diagnostics to standard error.
public struct Console: Sendable {
  let writeOutput: @Sendable (String) -> Void
  let writeError: @Sendable (String) -> Void
  let readInput: @Sendable () -> [UInt8]

  /// A console over arbitrary sinks, for running commands in-process.
  public init(
    output: @escaping @Sendable (String) -> Void, error: @escaping @Sendable (String) -> Void,
    input: @escaping @Sendable () -> [UInt8] = { [] }
  ) {
    self.writeOutput = output
    self.writeError = error
    self.readInput = input
  }

  /// The process's standard output, error and input.
  public static let standard = Console(
    output: { text in writeAll(text, to: 1) },
    error: { text in writeAll(text, to: 2) },
    input: {
      var bytes: [UInt8] = []
      var buffer = [UInt8](repeating: 0, count: 4096)
      while true {
        let count = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
        if count <= 0 { break }
        bytes += buffer[..<count]
      }
      return bytes
    })

  func print(_ line: String = "") { writeOutput(line + "\n") }
  func printError(_ line: String) { writeError(line + "\n") }
}

/// Writes every byte of `text` to a descriptor, looping over short writes and EINTR.
private func writeAll(_ text: String, to descriptor: Int32) {
  var bytes = Array(text.utf8)[...]
  while !bytes.isEmpty {
    let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    if written < 0 {
      if errno == EINTR { continue }
      return
    }
    bytes = bytes.dropFirst(written)
  }
}
