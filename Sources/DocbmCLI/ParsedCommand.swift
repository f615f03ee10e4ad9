import DocumentBookmarks

/// A command line, parsed: which command to run with which operands and flags.
enum ParsedCommand: Equatable {
  case bookmark(document: [UInt8], targets: [[UInt8]], json: Bool)
  case resolve(
    document: [UInt8], bookmark: [UInt8], search: SearchBudget = .standard, choose: [UInt8]? = nil, json: Bool
  )
  case decode(bookmark: [UInt8], json: Bool)
  case inspect(document: [UInt8], json: Bool)
  case check(CheckSettings)
  case repair(RepairSettings)
  case adopt(document: [UInt8], yes: Bool, json: Bool)
  case relink(document: [UInt8], from: [UInt8], to: [UInt8], json: Bool)
  case save(SaveSettings)
  case probe(ProbeSettings)
  case store(StoreSettings)
  case escrow(EscrowSettings)
  case watch(WatchSettings)
  case demo
  case completions(shell: String)
  case help(CommandName?)
  case version

  /// Whether the command was asked for JSON (`--json`), and so reports a failure in JSON too.
  var printsJSON: Bool {
    switch self {
    case .bookmark(_, _, let json), .resolve(_, _, _, _, let json), .decode(_, let json),
      .inspect(_, let json),
      .adopt(_, _, let json), .relink(_, _, _, let json):
      json
    case .check(let settings): settings.json
    case .repair(let settings): settings.json
    case .save(let settings): settings.json
    case .probe(let settings): settings.json
    case .store(let settings): settings.json
    case .escrow(let settings): settings.json
    case .watch(let settings): settings.json
    case .demo, .completions, .help, .version: false
    }
  }

  /// Whether its JSON is a stream of objects, one per line (`watch`, `store follow`,
  /// `resolve` of bookmarks read from standard input), so that a failure is one line too.
  var printsJSONLines: Bool {
    switch self {
    case .watch: true
    case .store(let settings): settings.action == .follow
    case .resolve(_, let bookmark, _, _, _): bookmark == [UInt8(ascii: "-")]
    default: false
    }
  }

  /// `probe`: its own options, then the command; nothing after the command's name is an
  /// option of docbm's.
  private static func parseProbe(_ arguments: ArraySlice<[UInt8]>, json: Bool) throws(UsageError)
    -> ParsedCommand
  {
    let scan = try OptionScan(arguments, for: .probe, stopsAtFirstOperand: true)
    if scan.asksForHelp { return .help(.probe) }
    guard !scan.operands.isEmpty else {
      throw UsageError(message: "Missing expected argument 'COMMAND'", command: .probe)
    }
    return .probe(
      ProbeSettings(
        command: scan.operands, throughLink: scan.has("--through-link"),
        hardLink: scan.last(of: "--with-hard-link", "--without-hard-link") == "--with-hard-link",
        location: scan.value(of: "--in"), strict: scan.has("--strict"), json: json || scan.has("--json")))
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
      // `docbm` alone is a usage error, as `git` alone is: the short usage on standard
      // error and status 64, not the whole help on standard output as if asked for.
      throw UsageError(message: "Missing expected argument 'SUBCOMMAND'", command: nil)
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
    if name == .probe { return try parseProbe(global.dropFirst(), json: globalJSON) }
    if name == .store { return try StoreSettings.parse(global.dropFirst(), json: globalJSON) }
    if name == .escrow { return try EscrowSettings.parse(global.dropFirst(), json: globalJSON) }
    let scan = try OptionScan(global.dropFirst(), for: name)
    if scan.asksForHelp { return .help(name) }
    let operands = scan.operands
    let json = globalJSON || scan.has("--json")
    let recursive = scan.has("--recursive")
    let listAll = scan.has("--all")
    let progress: ProgressMode =
      switch scan.last(of: "--progress", "--no-progress") {
      case "--progress": .always
      case "--no-progress": .never
      default: .automatic
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
      let choose = scan.value(of: "--choose")
      if choose != nil, operands[1] == [UInt8(ascii: "-")] {
        throw UsageError(message: "'--choose' settles one bookmark: give its text, not -", command: name)
      }
      return .resolve(
        document: operands[0], bookmark: operands[1], search: try SearchSettings.budget(scan, command: name),
        choose: choose, json: json)
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
        CheckSettings(
          paths: operands, recursive: recursive, json: json, listAll: listAll, progress: progress,
          search: try SearchSettings.budget(scan, command: name), explain: scan.has("--explain")))
    case .repair:
      guard !operands.isEmpty else {
        throw UsageError(message: "Missing expected argument 'DOCUMENT'", command: name)
      }
      return .repair(
        RepairSettings(
          documents: operands, allowUnrecorded: scan.has("--allow-unrecorded"), recursive: recursive,
          json: json,
          listAll: listAll, progress: progress))
    case .probe:
      throw UsageError(message: "Missing expected argument 'COMMAND'", command: .probe)
    case .store:
      throw UsageError(message: "Missing expected argument 'ACTION'", command: .store)
    case .escrow:
      throw UsageError(message: "Missing expected argument 'ACTION'", command: .escrow)
    case .watch:
      return try WatchSettings.parse(operands[...], json: json)
    case .relink:
      try expect("DOCUMENT", "FROM", "TO")
      return .relink(document: operands[0], from: operands[1], to: operands[2], json: json)
    case .adopt:
      try expect("DOCUMENT")
      return .adopt(document: operands[0], yes: scan.has("--yes"), json: json)
    case .save:
      try expect("DOCUMENT")
      return .save(
        SaveSettings(
          document: operands[0], from: scan.value(of: "--from"),
          splitHardLinks: scan.has("--split-hard-links"),
          allowOwnerChange: scan.has("--allow-owner-change"), allowReadOnly: scan.has("--allow-read-only"),
          inPlace: scan.has("--in-place"),
          allowEmpty: scan.has("--allow-empty"), json: json))
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
  /// `--search`, `--search-time`: how far the targets are looked for.
  var search = SearchBudget.standard
  /// `--explain`: say under each document whose key was lost why repair decides as the
  /// hint says.
  var explain = false
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
  /// `--allow-read-only`: a document whose permissions mark it read-only is saved anyway.
  var allowReadOnly = false
  /// `--in-place`: a single file exported through the Documents portal is saved in place.
  var inPlace = false
  /// `--allow-empty`: empty new contents are saved (otherwise refused).
  var allowEmpty = false
  var json = false
}
