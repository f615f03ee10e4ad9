/// `docbm store ACTION …`: the action, the store file, its operands and options.
struct StoreSettings: Equatable, Sendable {
  /// What `docbm store` does.
  enum Action: String, CaseIterable, Sendable {
    case list, add, forget, pin, unpin, refresh, follow, compact
  }

  var action: Action
  var store: [UInt8]
  /// Paths for `add`; keys for `forget`, `pin`, `unpin` and `refresh`.
  var operands: [[UInt8]]
  var json = false
  /// `add --key KEY`: the record's key (a string); by default the path as given.
  var key: String?
  /// `add --path-only`: add without bookmarking yet.
  var pathOnly = false
  /// `add --pin`.
  var pin = false

  /// Parses what follows `store`: `docbm store --help` (anywhere) asks for help.
  static func parse(_ arguments: ArraySlice<[UInt8]>, json: Bool) throws(UsageError) -> ParsedCommand {
    var rest = arguments
    var positional: [[UInt8]] = []
    var settings = StoreSettings(action: .list, store: [], operands: [], json: json)
    var optionsEnded = false
    while let argument = rest.popFirst() {
      let text = String(decoding: argument, as: UTF8.self)
      if optionsEnded || !text.hasPrefix("-") || text == "-" {
        positional.append(argument)
        continue
      }
      switch text {
      case "--": optionsEnded = true
      case "-h", "--help": return .help(.store)
      case "--json": settings.json = true
      case "--path-only": settings.pathOnly = true
      case "--pin": settings.pin = true
      case "--key":
        guard let value = rest.popFirst() else {
          throw UsageError(message: "Missing value for '--key <key>'", command: .store)
        }
        settings.key = String(decoding: value, as: UTF8.self)
      default:
        if text.hasPrefix("--key=") {
          settings.key = String(text.dropFirst("--key=".count))
          continue
        }
        throw UsageError(message: "Unknown option '\(text)'", command: .store)
      }
    }
    guard let actionBytes = positional.first else {
      throw UsageError(message: "Missing expected argument 'ACTION'", command: .store)
    }
    let actionText = String(decoding: actionBytes, as: UTF8.self)
    guard let action = Action(rawValue: actionText) else {
      let actions = Action.allCases.map(\.rawValue).joined(separator: ", ")
      throw UsageError(message: "Unknown action '\(actionText)' (\(actions))", command: .store)
    }
    settings.action = action
    guard positional.count >= 2 else {
      throw UsageError(message: "Missing expected argument 'STORE'", command: .store)
    }
    settings.store = positional[1]
    settings.operands = Array(positional.dropFirst(2))
    if action != .add && (settings.key != nil || settings.pathOnly || settings.pin) {
      throw UsageError(message: "'--key', '--path-only' and '--pin' go with 'store add'", command: .store)
    }
    switch action {
    case .list, .follow, .compact:
      if let extra = settings.operands.first {
        throw UsageError(
          message: "Unexpected argument '\(String(decoding: extra, as: UTF8.self))'", command: .store)
      }
    case .add:
      guard !settings.operands.isEmpty else {
        throw UsageError(message: "Missing expected argument 'PATH'", command: .store)
      }
      if settings.key != nil, settings.operands.count > 1 {
        throw UsageError(message: "'--key' names one record: give one PATH", command: .store)
      }
    case .forget, .pin, .unpin:
      guard !settings.operands.isEmpty else {
        throw UsageError(message: "Missing expected argument 'KEY'", command: .store)
      }
    case .refresh:
      break
    }
    return .store(settings)
  }
}
