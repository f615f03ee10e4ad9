/// `docbm escrow ACTION …`: the action, its file and its options.
struct EscrowSettings: Equatable, Sendable {
  /// What `docbm escrow` does.
  enum Action: String, CaseIterable, Sendable {
    case list, export, `import`, forget
  }

  var action: Action
  /// The export file (`export`, `import`), or the document's path (`forget`).
  var file: [UInt8]?
  var json = false
  /// `export --force`: replace an existing file.
  var force = false

  /// Parses what follows `escrow`: `docbm escrow --help` (anywhere) asks for help.
  static func parse(_ arguments: ArraySlice<[UInt8]>, json: Bool) throws(UsageError) -> ParsedCommand {
    let scan = try OptionScan(arguments, for: .escrow)
    if scan.asksForHelp { return .help(.escrow) }
    let positional = scan.operands
    guard let actionBytes = positional.first else {
      throw UsageError(message: "Missing expected argument 'ACTION'", command: .escrow)
    }
    let actionText = String(decoding: actionBytes, as: UTF8.self)
    guard let action = Action(rawValue: actionText) else {
      let actions = Action.allCases.map(\.rawValue).joined(separator: ", ")
      throw UsageError(message: "Unknown action '\(actionText)' (\(actions))", command: .escrow)
    }
    let force = scan.has("--force")
    if force && action != .export {
      throw UsageError(message: "'--force' goes with 'escrow export'", command: .escrow)
    }
    let rest = positional.dropFirst()
    switch action {
    case .list:
      if let extra = rest.first {
        throw UsageError(
          message: "Unexpected argument '\(String(decoding: extra, as: UTF8.self))'", command: .escrow)
      }
    case .export, .import, .forget:
      guard rest.count == 1 else {
        let operand = action == .forget ? "PATH" : "FILE"
        if rest.isEmpty {
          throw UsageError(message: "Missing expected argument '\(operand)'", command: .escrow)
        }
        throw UsageError(
          message: "Unexpected argument '\(String(decoding: rest[rest.startIndex + 1], as: UTF8.self))'",
          command: .escrow)
      }
    }
    return .escrow(
      EscrowSettings(action: action, file: rest.first, json: json || scan.has("--json"), force: force))
  }
}
