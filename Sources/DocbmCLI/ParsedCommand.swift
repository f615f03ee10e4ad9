/// A command line, parsed: which command to run with which operands and flags.
enum ParsedCommand: Equatable {
  case bookmark(document: [UInt8], target: [UInt8], json: Bool)
  case resolve(document: [UInt8], bookmark: [UInt8], json: Bool)
  case decode(bookmark: [UInt8], json: Bool)
  case inspect(document: [UInt8], json: Bool)
  case check(paths: [[UInt8]], recursive: Bool, json: Bool)
  case repair(documents: [[UInt8]], allowUnrecorded: Bool, json: Bool)
  case save(document: [UInt8], from: [UInt8]?, splitHardLinks: Bool, allowOwnerChange: Bool, json: Bool)
  case probe(ProbeSettings)
  case demo
  case completions(shell: String)
  case help(CommandName?)
  case version

  /// `probe`: its own options, then the command; nothing after the command's name is an
  /// option of docbm's.
  private static func parseProbe(_ arguments: ArraySlice<[UInt8]>) throws(UsageError) -> ParsedCommand {
    var settings = ProbeSettings(command: [])
    var rest = arguments
    while let first = rest.first {
      let text = String(decoding: first, as: UTF8.self)
      guard text.hasPrefix("-") else { break }
      rest = rest.dropFirst()
      switch text {
      case "--": return try probe(rest, settings)
      case "-h", "--help": return .help(.probe)
      case "--json": settings.json = true
      case "--through-link": settings.throughLink = true
      case "--without-hard-link": settings.hardLink = false
      case "--strict": settings.strict = true
      case "--in":
        guard let folder = rest.first, !folder.isEmpty else {
          throw UsageError(message: "Missing value for '--in <folder>'", command: .probe)
        }
        settings.location = folder
        rest = rest.dropFirst()
      default:
        if text.hasPrefix("--in=") {
          settings.location = Array(first.dropFirst(5))
          guard settings.location?.isEmpty == false else {
            throw UsageError(message: "Missing value for '--in <folder>'", command: .probe)
          }
          continue
        }
        throw UsageError(message: "Unknown option '\(text)'", command: .probe)
      }
    }
    return try probe(rest, settings)
  }

  private static func probe(
    _ command: ArraySlice<[UInt8]>, _ settings: ProbeSettings
  ) throws(UsageError) -> ParsedCommand {
    guard !command.isEmpty else {
      throw UsageError(message: "Missing expected argument 'COMMAND'", command: .probe)
    }
    var settings = settings
    settings.command = Array(command)
    return .probe(settings)
  }

  /// Parses the arguments after the program name.
  ///
  /// Options may stand anywhere before `--`; everything after `--` is an operand. Operands
  /// are kept as bytes, so paths that are not UTF-8 arrive as given.
  static func parse(_ arguments: [[UInt8]]) throws(UsageError) -> ParsedCommand {
    guard let first = arguments.first else { return .help(nil) }
    let firstText = String(decoding: first, as: UTF8.self)
    switch firstText {
    case "-h", "--help": return .help(nil)
    case "--version": return .version
    default: break
    }
    guard let name = CommandName(rawValue: firstText) else {
      if firstText.hasPrefix("-") {
        throw UsageError(message: "Unknown option '\(firstText)'", command: nil)
      }
      throw UsageError(message: "Unknown subcommand '\(firstText)'", command: nil)
    }

    if name == .probe { return try parseProbe(arguments.dropFirst()) }
    var operands: [[UInt8]] = []
    var json = false
    var from: [UInt8]?
    var splitHardLinks = false
    var allowOwnerChange = false
    var recursive = false
    var allowUnrecorded = false
    var optionsEnded = false
    var rest = arguments.dropFirst()[...]
    while let argument = rest.popFirst() {
      let text = String(decoding: argument, as: UTF8.self)
      if optionsEnded || !text.hasPrefix("-") || text == "-" {
        operands.append(argument)
        continue
      }
      switch text {
      case "--": optionsEnded = true
      case "-h", "--help": return .help(name)
      case "--json" where name != .demo && name != .help && name != .completions: json = true
      case "--split-hard-links" where name == .save: splitHardLinks = true
      case "--allow-owner-change" where name == .save: allowOwnerChange = true
      case "--recursive" where name == .check, "-r" where name == .check: recursive = true
      case "--allow-unrecorded" where name == .repair: allowUnrecorded = true
      case "--from" where name == .save:
        guard let value = rest.popFirst() else {
          throw UsageError(message: "Missing value for '--from <file>'", command: name)
        }
        from = value
      case _ where name == .save && text.hasPrefix("--from="):
        from = Array(argument.dropFirst("--from=".utf8.count))
      default: throw UsageError(message: "Unknown option '\(text)'", command: name)
      }
    }

    func expect(_ count: Int, _ names: String) throws(UsageError) {
      if operands.count < count {
        throw UsageError(message: "Missing expected argument '\(names)'", command: name)
      }
      if operands.count > count {
        let extra = String(decoding: operands[count], as: UTF8.self)
        throw UsageError(message: "Unexpected argument '\(extra)'", command: name)
      }
    }

    switch name {
    case .bookmark:
      try expect(2, "DOCUMENT TARGET")
      return .bookmark(document: operands[0], target: operands[1], json: json)
    case .resolve:
      try expect(2, "DOCUMENT BOOKMARK")
      return .resolve(document: operands[0], bookmark: operands[1], json: json)
    case .decode:
      try expect(1, "BOOKMARK")
      return .decode(bookmark: operands[0], json: json)
    case .inspect:
      try expect(1, "DOCUMENT")
      return .inspect(document: operands[0], json: json)
    case .check:
      guard !operands.isEmpty else {
        throw UsageError(message: "Missing expected argument 'PATH'", command: name)
      }
      return .check(paths: operands, recursive: recursive, json: json)
    case .repair:
      guard !operands.isEmpty else {
        throw UsageError(message: "Missing expected argument 'DOCUMENT'", command: name)
      }
      return .repair(documents: operands, allowUnrecorded: allowUnrecorded, json: json)
    case .probe:
      throw UsageError(message: "Missing expected argument 'COMMAND'", command: .probe)
    case .save:
      try expect(1, "DOCUMENT")
      return .save(
        document: operands[0], from: from, splitHardLinks: splitHardLinks, allowOwnerChange: allowOwnerChange,
        json: json)
    case .demo:
      try expect(0, "")
      return .demo
    case .completions:
      try expect(1, "SHELL")
      let shell = String(decoding: operands[0], as: UTF8.self)
      guard shell == "bash" || shell == "zsh" else {
        throw UsageError(message: "Unknown shell '\(shell)' (bash or zsh)", command: name)
      }
      return .completions(shell: shell)
    case .help:
      guard let topic = operands.first else { return .help(nil) }
      try expect(1, "SUBCOMMAND")
      let topicText = String(decoding: topic, as: UTF8.self)
      guard let command = CommandName(rawValue: topicText) else {
        throw UsageError(message: "Unknown subcommand '\(topicText)'", command: .help)
      }
      return .help(command)
    }
  }
}
