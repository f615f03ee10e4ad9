/// `docbm store ACTION …`: the action, the store file, its operands and options.
struct StoreSettings: Equatable, Sendable {
  /// What `docbm store` does.
  enum Action: String, CaseIterable, Sendable {
    case list, add, forget, pin, unpin, refresh, follow, export, compact, reanchor
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
  /// `add --create`: make the store when there is none (a mistyped STORE is otherwise
  /// refused rather than quietly becoming a second store).
  var create = false

  /// Parses what follows `store`: `docbm store --help` (anywhere) asks for help.
  static func parse(_ arguments: ArraySlice<[UInt8]>, json: Bool) throws(UsageError) -> ParsedCommand {
    let scan = try OptionScan(arguments, for: .store)
    if scan.asksForHelp { return .help(.store) }
    let positional = scan.operands
    var settings = StoreSettings(
      action: .list, store: [], operands: [], json: json || scan.has("--json"),
      key: scan.value(of: "--key").map { String(decoding: $0, as: UTF8.self) },
      pathOnly: scan.has("--path-only"),
      pin: scan.has("--pin"), create: scan.has("--create"))
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
    if action != .add && (settings.key != nil || settings.pathOnly || settings.pin || settings.create) {
      throw UsageError(
        message: "'--key', '--path-only', '--pin' and '--create' go with 'store add'", command: .store)
    }
    switch action {
    case .list, .follow, .export, .compact, .reanchor:
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
