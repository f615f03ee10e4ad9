/// A command line, parsed: which command to run with which operands and flags.
enum ParsedCommand: Equatable {
  case bookmark(document: [UInt8], targets: [[UInt8]], json: Bool)
  case resolve(document: [UInt8], bookmark: [UInt8], json: Bool)
  case decode(bookmark: [UInt8], json: Bool)
  case inspect(document: [UInt8], json: Bool)
  case check(CheckSettings)
  case repair(RepairSettings)
  case save(SaveSettings)
  case probe(ProbeSettings)
  case store(StoreSettings)
  case watch(WatchSettings)
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
      case "--with-hard-link": settings.hardLink = true
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
    // Options that every reporting command takes may also come before the subcommand
    // (`docbm --json check …`), as the manual page shows.
    var globalJSON = false
    var global = arguments[...]
    while let first = global.first, first == Array("--json".utf8) {
      globalJSON = true
      global = global.dropFirst()
    }
    guard let first = global.first else {
      if globalJSON { throw UsageError(message: "Missing expected argument 'SUBCOMMAND'", command: nil) }
      return .help(nil)
    }
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
      let suggestion = CommandName.closest(to: firstText).map { ". Did you mean '\($0.rawValue)'?" } ?? ""
      throw UsageError(message: "Unknown subcommand '\(firstText)'\(suggestion)", command: nil)
    }
    if globalJSON && !name.takesJSON {
      throw UsageError(message: "Unknown option '--json'", command: name)
    }

    if name == .watch { return try WatchSettings.parse(global.dropFirst(), json: globalJSON) }
    if name == .probe {
      var parsed = try parseProbe(global.dropFirst())
      if globalJSON, case .probe(var settings) = parsed {
        settings.json = true
        parsed = .probe(settings)
      }
      return parsed
    }
    if name == .store { return try StoreSettings.parse(global.dropFirst(), json: globalJSON) }
    var operands: [[UInt8]] = []
    var json = globalJSON
    var from: [UInt8]?
    var splitHardLinks = false
    var allowOwnerChange = false
    var inPlace = false
    var allowEmpty = false
    var recursive = false
    var listAll = false
    var progress = ProgressMode.automatic
    var allowUnrecorded = false
    var optionsEnded = false
    var rest = global.dropFirst()[...]
    while let argument = rest.popFirst() {
      let text = String(decoding: argument, as: UTF8.self)
      if optionsEnded || !text.hasPrefix("-") || text == "-" {
        operands.append(argument)
        continue
      }
      switch text {
      case "--": optionsEnded = true
      case "-h", "--help": return .help(name)
      case "--json" where name.takesJSON: json = true
      case "--split-hard-links" where name == .save: splitHardLinks = true
      case "--allow-owner-change" where name == .save: allowOwnerChange = true
      case "--in-place" where name == .save: inPlace = true
      case "--allow-empty" where name == .save: allowEmpty = true
      case "--recursive" where name.walksTrees, "-r" where name.walksTrees, "-R" where name.walksTrees:
        recursive = true
      case "--all" where name.walksTrees, "-a" where name.walksTrees: listAll = true
      case "--progress" where name.walksTrees: progress = .always
      case "--no-progress" where name.walksTrees: progress = .never
      case "--allow-unrecorded" where name == .repair: allowUnrecorded = true
      case "--from" where name == .save:
        guard let value = rest.popFirst() else {
          throw UsageError(message: "Missing value for '--from <file>'", command: name)
        }
        from = value
      case _ where name == .save && text.hasPrefix("--from="):
        from = Array(argument.dropFirst("--from=".utf8.count))
      default:
        if text.hasPrefix("-"), !text.hasPrefix("--"), text.count > 2 {
          // Short options given together, as in `-rR` or `-ra`.
          let letters = text.dropFirst().map { "-\($0)" }
          if letters.allSatisfy({ name.options.contains($0) }) {
            rest = (letters.map { Array($0.utf8) } + rest)[...]
            continue
          }
        }
        throw UsageError(message: "Unknown option '\(text)'", command: name)
      }
    }

    /// Exactly the operands `names` (the first missing one is named).
    func expect(_ names: String...) throws(UsageError) {
      if operands.count < names.count {
        throw UsageError(message: "Missing expected argument '\(names[operands.count])'", command: name)
      }
      let count = names.count
      if operands.count > count {
        let extra = String(decoding: operands[count], as: UTF8.self)
        throw UsageError(message: "Unexpected argument '\(extra)'", command: name)
      }
    }

    switch name {
    case .bookmark:
      // One bookmark per target: TARGET may be given more than once.
      if operands.count < 2 { try expect("DOCUMENT", "TARGET") }
      return .bookmark(document: operands[0], targets: Array(operands[1...]), json: json)
    case .resolve:
      try expect("DOCUMENT", "BOOKMARK")
      return .resolve(document: operands[0], bookmark: operands[1], json: json)
    case .decode:
      try expect("BOOKMARK")
      return .decode(bookmark: operands[0], json: json)
    case .inspect:
      try expect("DOCUMENT")
      return .inspect(document: operands[0], json: json)
    case .check:
      guard !operands.isEmpty else {
        throw UsageError(message: "Missing expected argument 'PATH'", command: name)
      }
      return .check(
        CheckSettings(paths: operands, recursive: recursive, json: json, listAll: listAll, progress: progress)
      )
    case .repair:
      guard !operands.isEmpty else {
        throw UsageError(message: "Missing expected argument 'DOCUMENT'", command: name)
      }
      return .repair(
        RepairSettings(
          documents: operands, allowUnrecorded: allowUnrecorded, recursive: recursive, json: json,
          listAll: listAll, progress: progress))
    case .probe:
      throw UsageError(message: "Missing expected argument 'COMMAND'", command: .probe)
    case .store:
      throw UsageError(message: "Missing expected argument 'ACTION'", command: .store)
    case .watch:
      return try WatchSettings.parse(operands[...], json: json)
    case .save:
      try expect("DOCUMENT")
      return .save(
        SaveSettings(
          document: operands[0], from: from, splitHardLinks: splitHardLinks,
          allowOwnerChange: allowOwnerChange, inPlace: inPlace,
          allowEmpty: allowEmpty, json: json))
    case .demo:
      try expect()
      return .demo
    case .completions:
      try expect("SHELL")
      let shell = String(decoding: operands[0], as: UTF8.self)
      guard shell == "bash" || shell == "zsh" else {
        throw UsageError(message: "Unknown shell '\(shell)' (bash or zsh)", command: name)
      }
      return .completions(shell: shell)
    case .help:
      guard let topic = operands.first else { return .help(nil) }
      try expect("SUBCOMMAND")
      let topicText = String(decoding: topic, as: UTF8.self)
      guard let command = CommandName(rawValue: topicText) else {
        let suggestion = CommandName.closest(to: topicText).map { ". Did you mean '\($0.rawValue)'?" } ?? ""
        throw UsageError(message: "Unknown subcommand '\(topicText)'\(suggestion)", command: .help)
      }
      return .help(command)
    }
  }
}

/// Whether `check` and `repair --recursive` show a progress line on standard error.
enum ProgressMode: Equatable, Sendable {
  /// When standard error is a terminal.
  case automatic
  /// `--progress`: always (also when standard error is not a terminal).
  case always
  /// `--no-progress`: never.
  case never
}

/// `check`'s operands and options.
struct CheckSettings: Equatable, Sendable {
  var paths: [[UInt8]]
  var recursive = false
  var json = false
  /// `--all`: one line per document, problems or not (the default for documents named
  /// one by one; folders walked with `--recursive` list only problems unless given).
  var listAll = false
  var progress = ProgressMode.automatic
}

/// `repair`'s operands and options.
struct RepairSettings: Equatable, Sendable {
  var documents: [[UInt8]]
  var allowUnrecorded = false
  /// `--recursive`: repair every document under the folders given that lost its key.
  var recursive = false
  var json = false
  var listAll = false
  var progress = ProgressMode.automatic
}

/// `save`'s operand and options.
struct SaveSettings: Equatable, Sendable {
  var document: [UInt8]
  /// `--from FILE`; `-` is standard input, named explicitly (then it may be a terminal).
  var from: [UInt8]?
  var splitHardLinks = false
  var allowOwnerChange = false
  /// `--in-place`: a single file exported through the Documents portal is saved in place.
  var inPlace = false
  /// `--allow-empty`: empty new contents are saved (otherwise refused).
  var allowEmpty = false
  var json = false
}
