import DocumentBookmarks
import Foundation
import Testing

@testable import DocbmCLI

/// Each subcommand's options are declared once (`CommandName.options`); these tests hold
/// the parser, the help pages, both completion scripts and the manual page to them.
@Suite("Options declared once")
struct CommandOptionTests {
  /// The operands each subcommand needs to parse, for an option given alone.
  private func operands(of command: CommandName, for option: CommandOption) -> [String] {
    switch command {
    case .bookmark: ["doc", "target"]
    case .resolve: ["doc", "bookmark"]
    case .decode: ["bookmark"]
    case .inspect, .save, .adopt: ["doc"]
    case .relink: ["doc", "from", "to"]
    case .check, .repair: ["path"]
    case .probe: ["true"]
    case .store:
      ["--key", "--path-only", "--pin", "--create"].contains(option.name)
        ? ["add", "store", "path"] : ["list", "store"]
    case .watch: ["folder"]
    case .escrow: option.name == "--force" ? ["export", "file"] : ["list"]
    case .demo, .completions, .help: []
    }
  }

  /// A value the option takes.
  private func sampleValue(of option: CommandOption) -> String {
    switch option.name {
    case "--search": "filesystem"
    case "--search-time": "2.5"
    default: "value"
    }
  }

  @Test("the parser takes every declared option, by each of its names", arguments: CommandName.allCases)
  func parserTakesDeclared(command: CommandName) throws {
    for option in command.options {
      for name in option.names {
        let words =
          [command.rawValue, name] + (option.value.map { _ in [sampleValue(of: option)] } ?? [])
          + operands(of: command, for: option)
        let parsed = try ParsedCommand.parse(words.map { Array($0.utf8) })
        #expect(parsed != .help(command), "\(words)")
      }
    }
  }

  @Test("--search and --search-time set the search budget; other values are refused by name")
  func searchValues() throws {
    var budget = SearchBudget.standard
    budget.reach = .nearby
    budget.filesystemTimeLimit = nil
    #expect(
      try ParsedCommand.parse(
        ["resolve", "--search=nearby", "--search-time", "none", "d", "b"].map { Array($0.utf8) })
        == .resolve(document: Array("d".utf8), bookmark: Array("b".utf8), search: budget, json: false))
    budget = .standard
    budget.filesystemTimeLimit = .milliseconds(2500)
    #expect(
      try ParsedCommand.parse(["resolve", "--search-time", "2.5", "d", "b"].map { Array($0.utf8) })
        == .resolve(document: Array("d".utf8), bookmark: Array("b".utf8), search: budget, json: false))
    for (option, value) in [("--search", "everywhere"), ("--search-time", "-1"), ("--search-time", "soon")] {
      #expect(throws: UsageError.self) {
        try ParsedCommand.parse(["check", option, value, "d"].map { Array($0.utf8) })
      }
    }
  }

  @Test("an option's value may follow '=', and a missing value is named")
  func values() throws {
    #expect(
      try ParsedCommand.parse(["save", "--from=new.txt", "doc"].map { Array($0.utf8) })
        == .save(SaveSettings(document: Array("doc".utf8), from: Array("new.txt".utf8))))
    #expect(throws: UsageError(message: "Missing value for '--from FILE|-'", command: .save)) {
      try ParsedCommand.parse(["save", "doc", "--from"].map { Array($0.utf8) })
    }
    #expect(throws: UsageError(message: "Unknown option '--strict=yes'", command: .probe)) {
      try ParsedCommand.parse(["probe", "--strict=yes", "true"].map { Array($0.utf8) })
    }
  }

  @Test("the help page lists every option, and the usage line shows it", arguments: CommandName.allCases)
  func helpShowsDeclared(command: CommandName) {
    let help = HelpText.render(command)
    for option in command.options + [CommandOption.help] {
      #expect(help.contains("\n  \(option.label)"), "\(command): \(option.label)")
    }
    for option in command.options {
      #expect(command.usage.contains(option.usage), "\(command): \(option.usage)")
    }
  }

  @Test("both completion scripts offer every name of every option", arguments: CommandName.allCases)
  func completionsOfferDeclared(command: CommandName) throws {
    let bash = CompletionScript.bash
    // A subcommand's case runs to its `;;`.
    func caseText(_ script: String, _ label: String) -> Substring? {
      guard let start = script.range(of: label) else { return nil }
      let rest = script[start.lowerBound...]
      return rest[..<(rest.range(of: ";;")?.lowerBound ?? rest.endIndex)]
    }
    let bashCase = try #require(caseText(bash, "\n    \(command.rawValue))"), "no bash case for \(command)")
    let zsh = CompletionScript.zsh
    let zshCase = try #require(caseText(zsh, "\n        \(command.rawValue))"), "no zsh case for \(command)")
    for option in command.options {
      for name in option.names {
        let bashWords = bashCase.split(whereSeparator: { $0 == " " || $0 == "\"" || $0 == "\n" })
        #expect(bashWords.contains(Substring(name)), "bash, \(command): \(name)")
        #expect(zshCase.contains("'\(name)"), "zsh, \(command): \(name)")
      }
    }
  }

  @Test("the manual page describes every option under its subcommand", arguments: CommandName.allCases)
  func manualPageDescribesDeclared(command: CommandName) throws {
    guard !command.options.isEmpty else { return }
    let page = try String(
      contentsOfFile: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/docbm.1").path, encoding: .utf8)
    let start = try #require(page.range(of: ".BI \"\(command.rawValue) \""), "no section for \(command)")
    // The section runs to the next subcommand's (or the next heading).
    let rest = page[start.upperBound...]
    let end =
      [rest.range(of: "\n.TP\n.BI \"")?.lowerBound, rest.range(of: "\n.SH ")?.lowerBound]
      .compactMap { $0 }.min() ?? rest.endIndex
    let section = rest[..<end]
    for option in command.options where option.name != "--json" {
      let escaped = option.name.replacing("-", with: "\\-")
      #expect(section.contains(escaped), "docbm.1, \(command): \(option.name)")
    }
    if command.takesJSON { #expect(page.contains(".B \\-\\-json")) }
  }
}
