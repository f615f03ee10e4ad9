import DocbmSystem
import DocumentBookmarks
import Synchronization

/// Where a command writes: data to standard output, diagnostics to standard error.
public struct Console: Sendable {
  let writeOutput: @Sendable (String) -> Void
  let writeError: @Sendable (String) -> Void
  /// All of standard input, or `nil` when reading it failed.
  let readInput: @Sendable () -> [UInt8]?
  /// One line of standard input, without its line break (an answer to a question); `nil`
  /// at its end or when reading failed.
  let readLine: @Sendable () -> [UInt8]?
  let flushOutput: @Sendable () -> Void
  /// Whether standard input is a terminal (a person typing), not a pipe or a file.
  let inputIsTerminal: Bool
  /// Whether standard error is a terminal (where a progress line may be redrawn).
  let errorIsTerminal: Bool
  /// Whether a line on standard error can be redrawn in place: a terminal, and not one
  /// that says it cannot move the cursor (`TERM=dumb`, as Emacs's shell buffers set).
  let errorRedraws: Bool
  /// The width to fit text to: the terminal's columns when standard output is one, else 80.
  let width: Int
  /// The width diagnostics are fitted to when standard error is a terminal; `nil` when it
  /// is not, so that each diagnostic stays one line for logs and `grep`.
  let errorWidth: Int?
  /// The width results (`check`'s and `repair`'s lines) are fitted to when standard output
  /// is a terminal; `nil` when it is not, so that each result stays one line of data.
  let resultWidth: Int?
  /// How paths in messages are shown (``printFitted(_:)``, ``printError(_:)``, ``message(_:)``).
  var paths = DisplayPaths.asGiven

  /// A console over arbitrary sinks, for running commands in-process.
  ///
  /// - Parameters:
  ///   - width: the columns text is fitted to (help, `demo`, `probe`).
  ///   - errorWidth: the columns diagnostics are fitted to, as for a terminal on standard
  ///     error; `nil` keeps each diagnostic one line.
  ///   - resultWidth: the columns results are fitted to, as for a terminal on standard
  ///     output; `nil` keeps each result one line.
  ///   - inputIsTerminal: whether `input` stands for a person at a terminal (`save` then
  ///     refuses to read it unless asked with `--from -`).
  public init(
    output: @escaping @Sendable (String) -> Void, error: @escaping @Sendable (String) -> Void,
    input: @escaping @Sendable () -> [UInt8]? = { [] }, width: Int = 80, errorWidth: Int? = nil,
    resultWidth: Int? = nil, inputIsTerminal: Bool = false
  ) {
    self.writeOutput = output
    self.writeError = error
    self.readInput = input
    self.readLine = { input().map { Array($0.prefix { $0 != UInt8(ascii: "\n") }) } }
    self.flushOutput = {}
    self.inputIsTerminal = inputIsTerminal
    self.errorIsTerminal = false
    self.errorRedraws = false
    self.width = max(width, 20)
    self.errorWidth = errorWidth.map { max($0, 20) }
    self.resultWidth = resultWidth.map { max($0, 20) }
  }

  private init(
    output: @escaping @Sendable (String) -> Void, error: @escaping @Sendable (String) -> Void,
    input: @escaping @Sendable () -> [UInt8]?, flush: @escaping @Sendable () -> Void
  ) {
    self.writeOutput = output
    self.writeError = error
    self.readInput = input
    self.readLine = Console.readStandardInputLine
    self.flushOutput = flush
    self.inputIsTerminal = Terminal.isTerminal(.standardInput)
    self.errorIsTerminal = Terminal.isTerminal(.standardError)
    self.errorRedraws = errorIsTerminal && ProcessEnvironment.value("TERM") != "dumb"
    self.width = Console.terminalWidth(of: .standardOutput) ?? 80
    self.errorWidth = Console.terminalWidth(of: .standardError)
    self.resultWidth = Console.terminalWidth(of: .standardOutput)
  }

  /// One line of standard input, read a byte at a time so that nothing after it is taken
  /// (at most 4096 bytes); `nil` at the end of input with nothing read, or on an error.
  private static func readStandardInputLine() -> [UInt8]? {
    var line: [UInt8] = []
    var byte: UInt8 = 0
    while line.count < 4096 {
      // A read error is the end of the answer, as documented: never half a line taken for it.
      let count = try? withUnsafeMutableBytes(of: &byte) {
        try FileDescriptor.standardInput.readWaiting(into: $0)
      }
      guard let count else { return nil }
      if count == 0 { return line.isEmpty ? nil : line }
      if byte == UInt8(ascii: "\n") { return line }
      line.append(byte)
    }
    return line
  }

  /// The columns of the terminal on `descriptor`, when it is one and says 20 or more.
  private static func terminalWidth(of descriptor: FileDescriptor) -> Int? {
    guard let columns = Terminal.columns(of: descriptor), columns >= 20 else { return nil }
    return columns
  }

  /// The process's standard output (buffered, flushed before diagnostics and at the end),
  /// standard error and standard input.
  public static let standard = Console(
    output: { text in standardOutput.append(text) },
    error: { text in
      standardOutput.flush()
      writeAll(text, to: .standardError)
    },
    // A read error gives nil: never part of the input taken for all of it.
    input: { try? FileDescriptor.standardInput.readWhole(limit: .max) },
    flush: { standardOutput.flush() })

  /// Writes out what is buffered for standard output.
  public func flush() { flushOutput() }

  func print(_ line: String = "") { writeOutput(line + "\n") }

  /// Writes `text` to standard output as it is, without a line break.
  func write(_ text: String) { writeOutput(text) }

  /// Prints `text` fitted to ``width``: longer lines are wrapped between words, their
  /// continuation indented under the text they continue.
  func printFitted(_ text: String = "") {
    writeOutput(TextWrapping.fit(paths.shown(text), width: width) + "\n")
  }

  /// Prints one result (a verdict or an outcome, a path, what was found). The rule: a result
  /// is data, one line whatever its length, unless standard output is a terminal; there a
  /// result wider than the terminal is wrapped between words, each continuation indented
  /// under the result's second column, so that a line that starts at the margin always
  /// starts a result.
  func printResult(_ line: String) {
    writeOutput((resultWidth.map { TextWrapping.fit(line, width: $0) } ?? line) + "\n")
  }

  /// A message's text with its paths shown as ``paths`` says: for lines printed as they
  /// are, whose other columns are data.
  func message(_ text: String) -> String { paths.shown(text) }

  /// Writes to standard error without a newline (a progress line).
  func writeProgress(_ text: String) { writeError(text) }

  /// All of standard input; a read error is an `ioError`, so that a partial input is never
  /// taken for the whole (a save would write it).
  func readAllInput() throws(DocbmError) -> [UInt8] {
    guard let bytes = readInput() else {
      throw DocbmError(.ioError, message: "standard input could not be read to its end; nothing was done")
    }
    return bytes
  }
  /// Writes a diagnostic line to standard error, its paths shown as ``paths`` says, fitted
  /// to ``errorWidth`` when standard error is a terminal.
  func printError(_ line: String) {
    let shown = paths.shown(line)
    writeError((errorWidth.map { TextWrapping.fit(shown, width: $0) } ?? shown) + "\n")
  }
}

/// Standard output's buffer: one write per 64 KiB instead of one per line.
private let standardOutput = OutputBuffer()

private final class OutputBuffer: Sendable {
  private let pending = Mutex<[UInt8]>([])

  func append(_ text: String) {
    let full = pending.withLock { bytes -> [UInt8]? in
      bytes.append(contentsOf: text.utf8)
      guard bytes.count >= 65536 else { return nil }
      defer { bytes.removeAll(keepingCapacity: true) }
      return bytes
    }
    if let full { writeAll(full, to: .standardOutput) }
  }

  func flush() {
    let bytes = pending.withLock { bytes -> [UInt8] in
      defer { bytes.removeAll(keepingCapacity: true) }
      return bytes
    }
    if !bytes.isEmpty { writeAll(bytes, to: .standardOutput) }
  }
}

/// Writes every byte of `text` to a descriptor; a failed write is dropped (there is no
/// one left to tell).
private func writeAll(_ text: String, to descriptor: FileDescriptor) {
  writeAll(Array(text.utf8), to: descriptor)
}

private func writeAll(_ text: [UInt8], to descriptor: FileDescriptor) {
  try? descriptor.writeAll(text)  // dropped, as documented above: no one is left to tell
}
