/// One option of a subcommand, declared once (``CommandName/options``): the parser accepts
/// what is declared and nothing else, and the usage line, the help page's OPTIONS, both
/// completion scripts and the manual page (checked by a test) are made from or against
/// the declarations.
struct CommandOption: Hashable, Sendable {
  /// What an option's value is, for completion.
  enum ValueKind: Hashable, Sendable {
    /// A file (or `-`): completed with file names.
    case file
    /// A folder: completed with folder names.
    case folder
    /// Anything else: not completed.
    case text
  }

  /// Its names: the long one first (what the parser reports), then any short ones.
  let names: [String]
  /// The value it takes, as usage and help show it (`FILE`); `nil` for a flag.
  let value: String?
  let valueKind: ValueKind
  /// What it does, for the help page and the zsh completion's description.
  let help: String

  init(_ names: String..., value: String? = nil, valueKind: ValueKind = .text, help: String) {
    self.names = names
    self.value = value
    self.valueKind = valueKind
    self.help = help
  }

  /// The long name, which the parser reports the option by.
  var name: String { names[0] }

  /// The one-letter names (`-r`).
  var shortNames: [String] { names.filter { !$0.hasPrefix("--") } }

  /// As the help page's first column shows it: short names first, then the long one and
  /// its value (`-r, -R, --recursive`, `--from FILE|-`).
  var label: String {
    (shortNames + [name]).joined(separator: ", ") + (value.map { " \($0)" } ?? "")
  }

  /// As the usage line shows it: the shortest name and the value (`[-r]`, `[--in DIR]`).
  var usage: String {
    "[" + (shortNames.first ?? name) + (value.map { " \($0)" } ?? "") + "]"
  }

  /// `-h`, `--help`: every subcommand takes it.
  static let help = CommandOption("--help", "-h", help: "Show help information.")
}

/// The words of a command line after the subcommand, read by the subcommand's declared
/// options: the options given (by long name, with their values, in order) and the
/// operands.
struct OptionScan {
  /// The options given, in order, by long name, with their values (`nil` for a flag).
  private(set) var given: [(name: String, value: [UInt8]?)] = []
  /// The operands, in order: every word that is not an option, and every word after `--`.
  private(set) var operands: [[UInt8]] = []
  /// Whether `-h` or `--help` came before anything wrong.
  private(set) var asksForHelp = false

  /// Reads `arguments` as `command` declares its options. Options may stand anywhere
  /// before `--` (or, with `stopsAtFirstOperand`, before the first operand: the rest are
  /// operands, as `probe`'s command line is); a value follows its option as the next word
  /// or after `=`; one-letter flags may be given together (`-ra`).
  ///
  /// - Throws: ``UsageError`` for an option `command` does not declare, or one whose value
  ///   is missing.
  init(_ arguments: ArraySlice<[UInt8]>, for command: CommandName, stopsAtFirstOperand: Bool = false)
    throws(UsageError)
  {
    let options = command.options + [CommandOption.help]
    func declared(_ name: String) -> CommandOption? { options.first { $0.names.contains(name) } }
    var rest = arguments
    while let argument = rest.popFirst() {
      let text = String(decoding: argument, as: UTF8.self)
      guard text.hasPrefix("-"), text != "-" else {
        operands.append(argument)
        if stopsAtFirstOperand {
          operands += rest
          return
        }
        continue
      }
      if text == "--" {
        operands += rest
        return
      }
      let (name, attached) = Self.split(argument)
      if let option = declared(name) {
        if option == .help {
          asksForHelp = true
          return
        }
        guard let valueName = option.value else {
          if attached != nil { throw UsageError(message: "Unknown option '\(text)'", command: command) }
          given.append((option.name, nil))
          continue
        }
        guard let value = attached ?? rest.popFirst(), !value.isEmpty else {
          throw UsageError(message: "Missing value for '\(option.name) \(valueName)'", command: command)
        }
        given.append((option.name, value))
        continue
      }
      // One-letter flags given together, as in `-rR` or `-ra`.
      let flags = text.hasPrefix("--") ? [] : text.dropFirst().compactMap { declared("-\($0)") }
      if flags.count > 1, flags.count == text.count - 1, flags.allSatisfy({ $0.value == nil && $0 != .help })
      {
        given += flags.map { ($0.name, nil) }
        continue
      }
      // Flags together of which some are known: the letter that is not is the mistake.
      if !text.hasPrefix("--"), text.count > 2, !flags.isEmpty,
        let unknown = text.dropFirst().first(where: { declared("-\($0)") == nil })
      {
        throw UsageError(message: "Unknown option '-\(unknown)' (in '\(text)')", command: command)
      }
      let longNames = options.flatMap(\.names).filter { $0.hasPrefix("--") && $0 != "--help" }
      let suggestion =
        name.hasPrefix("--")
        ? MistypedName.closest(to: name, among: longNames).map { ". Did you mean '\($0)'?" } ?? "" : ""
      throw UsageError(message: "Unknown option '\(text)'\(suggestion)", command: command)
    }
  }

  /// `--name=value` split at its first `=`; other words whole, with no value.
  private static func split(_ argument: [UInt8]) -> (name: String, value: [UInt8]?) {
    guard argument.starts(with: Array("--".utf8)), let equals = argument.firstIndex(of: UInt8(ascii: "="))
    else {
      return (String(decoding: argument, as: UTF8.self), nil)
    }
    return (String(decoding: argument[..<equals], as: UTF8.self), Array(argument[(equals + 1)...]))
  }

  /// Whether the option named `name` (its long name) was given.
  func has(_ name: String) -> Bool { given.contains { $0.name == name } }

  /// The value of the last `name` given.
  func value(of name: String) -> [UInt8]? { given.last { $0.name == name }?.value ?? nil }

  /// Which of `names` was given last, if any: for options that undo each other
  /// (`--progress`, `--no-progress`).
  func last(of names: String...) -> String? { given.last { names.contains($0.name) }?.name }
}
