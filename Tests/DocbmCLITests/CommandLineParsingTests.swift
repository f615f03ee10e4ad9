import Foundation
import Testing

@testable import DocbmCLI

@Suite("Command-line parsing")
struct CommandLineParsingTests {
  private func parse(_ arguments: String...) throws(UsageError) -> ParsedCommand {
    try ParsedCommand.parse(arguments.map { Array($0.utf8) })
  }

  @Test("every command parses its operands and --json")
  func commands() throws {
    #expect(
      try parse("bookmark", "doc", "t")
        == .bookmark(document: Array("doc".utf8), targets: [Array("t".utf8)], json: false))
    #expect(
      try parse("bookmark", "--json", "doc", "t")
        == .bookmark(document: Array("doc".utf8), targets: [Array("t".utf8)], json: true))
    #expect(
      try parse("bookmark", "doc", "t", "u")
        == .bookmark(document: Array("doc".utf8), targets: [Array("t".utf8), Array("u".utf8)], json: false))
    #expect(
      try parse("resolve", "doc", "-")
        == .resolve(document: Array("doc".utf8), bookmark: [UInt8(ascii: "-")], json: false))
    #expect(try parse("decode", "x", "--json") == .decode(bookmark: Array("x".utf8), json: true))
    #expect(try parse("inspect", "d") == .inspect(document: Array("d".utf8), json: false))
    #expect(try parse("demo") == .demo)
    #expect(
      try parse("check", "-r", "a", "b")
        == .check(CheckSettings(paths: [Array("a".utf8), Array("b".utf8)], recursive: true)))
    #expect(try parse("check", "-R", "a") == .check(CheckSettings(paths: [Array("a".utf8)], recursive: true)))
    #expect(
      try parse("check", "-ra", "--no-progress", "a")
        == .check(CheckSettings(paths: [Array("a".utf8)], recursive: true, listAll: true, progress: .never)))
    #expect(try parse("check", "--json", "a") == .check(CheckSettings(paths: [Array("a".utf8)], json: true)))
    #expect(try parse("--json", "check", "a") == .check(CheckSettings(paths: [Array("a".utf8)], json: true)))
    #expect(try parse("repair", "a") == .repair(RepairSettings(documents: [Array("a".utf8)])))
    #expect(
      try parse("repair", "--allow-unrecorded", "-R", "a")
        == .repair(RepairSettings(documents: [Array("a".utf8)], allowUnrecorded: true, recursive: true)))
    #expect(
      try parse("save", "--allow-owner-change", "d")
        == .save(SaveSettings(document: Array("d".utf8), allowOwnerChange: true)))
    #expect(
      try parse("save", "--from=f", "--split-hard-links", "--allow-empty", "d")
        == .save(
          SaveSettings(
            document: Array("d".utf8), from: Array("f".utf8), splitHardLinks: true, allowEmpty: true)))
  }

  @Test(
    "each subcommand's synopsis, made from its declared options, reads the same in its help, the manual page and docs/cli.md"
  )
  func synopses() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let manual = try String(contentsOf: root.appendingPathComponent("docs/docbm.1"), encoding: .utf8)
    let guide = try String(contentsOf: root.appendingPathComponent("docs/cli.md"), encoding: .utf8)
    for command in CommandName.allCases where command != .help {
      let usage = command.usage
      let help = HelpText.render(command).split(whereSeparator: \.isWhitespace).joined(separator: " ")
      #expect(help.contains("USAGE: docbm \(usage) "), "\(command): help")
      #expect(guide.contains("\ndocbm \(usage)\n"), "docs/cli.md: \(usage)")
      guard command != .demo else { continue }
      let operands = usage.dropFirst(command.rawValue.count + 1).replacing("-", with: "\\-")
      #expect(manual.contains(".BI \"\(command.rawValue) \" \"\(operands)\"\n"), "docbm.1: \(usage)")
    }
  }

  @Test("help and version")
  func helpAndVersion() throws {
    #expect(try parse("--help") == .help(nil))
    #expect(try parse("-h") == .help(nil))
    #expect(try parse("help") == .help(nil))
    #expect(try parse("help", "resolve") == .help(.resolve))
    #expect(try parse("resolve", "--help") == .help(.resolve))
    #expect(try parse("--version") == .version)
  }

  @Test("-- ends options, so a path may start with a dash")
  func doubleDash() throws {
    #expect(try parse("inspect", "--", "--json") == .inspect(document: Array("--json".utf8), json: false))
    #expect(
      try parse("bookmark", "--json", "--", "-doc", "-t")
        == .bookmark(document: Array("-doc".utf8), targets: [Array("-t".utf8)], json: true))
  }

  @Test(
    "usage errors name the problem and the command",
    arguments: [
      (["frobnicate"], "Unknown subcommand 'frobnicate'", nil),
      (["chek"], "Unknown subcommand 'chek'. Did you mean 'check'?", nil),
      (["reslove"], "Unknown subcommand 'reslove'. Did you mean 'resolve'?", nil),
      (["help", "bokmark"], "Unknown subcommand 'bokmark'. Did you mean 'bookmark'?", CommandName.help),
      (["resolve", "doc"], "Missing expected argument 'BOOKMARK'", CommandName.resolve),
      (["--json", "demo"], "Unknown option '--json'", CommandName.demo),
      (["--frob"], "Unknown option '--frob'", nil),
      (["bookmark", "doc"], "Missing expected argument 'TARGET'", CommandName.bookmark),
      (["bookmark"], "Missing expected argument 'DOCUMENT'", CommandName.bookmark),
      (["decode", "a", "b"], "Unexpected argument 'b'", CommandName.decode),
      (["inspect", "--color", "d"], "Unknown option '--color'", CommandName.inspect),
      (["demo", "--json"], "Unknown option '--json'", CommandName.demo),
      (["help", "nope"], "Unknown subcommand 'nope'", CommandName.help),
      (["check"], "Missing expected argument 'PATH'", CommandName.check),
      (["completions", "fish"], "Unknown shell 'fish' (bash or zsh)", CommandName.completions),
      (["repair"], "Missing expected argument 'DOCUMENT'", CommandName.repair),
      (["inspect", "--recursive", "d"], "Unknown option '--recursive'", CommandName.inspect),
      ([], "Missing expected argument 'SUBCOMMAND'", nil),
      (
        ["check", "--recursiv", "d"], "Unknown option '--recursiv'. Did you mean '--recursive'?",
        CommandName.check
      ),
      (
        ["check", "--exlpain", "d"], "Unknown option '--exlpain'. Did you mean '--explain'?",
        CommandName.check
      ),
      (["check", "-rx", "d"], "Unknown option '-x' (in '-rx')", CommandName.check),
      (["check", "-xyz", "d"], "Unknown option '-xyz'", CommandName.check),
    ] as [([String], String, CommandName?)])
  func usageErrors(arguments: [String], message: String, command: CommandName?) {
    #expect(throws: UsageError(message: message, command: command)) {
      try ParsedCommand.parse(arguments.map { Array($0.utf8) })
    }
  }

  @Test("probe keeps everything after its own options as the command, options included")
  func probe() throws {
    #expect(
      try parse("probe", "--", "sed", "-i", "s/a/b/", "{}")
        == .probe(ProbeSettings(command: ["sed", "-i", "s/a/b/", "{}"].map { Array($0.utf8) })))
    #expect(
      try parse("probe", "--json", "--through-link", "--with-hard-link", "cp", "--preserve=all", "a", "{}")
        == .probe(
          ProbeSettings(
            command: ["cp", "--preserve=all", "a", "{}"].map { Array($0.utf8) }, throughLink: true,
            hardLink: true, json: true)))
    // The old spelling of the default is still accepted.
    #expect(
      try parse("probe", "--without-hard-link", "vim", "{}")
        == .probe(ProbeSettings(command: ["vim", "{}"].map { Array($0.utf8) })))
    #expect(
      try parse("probe", "--in", "docs", "--strict", "--in=work", "vim", "--in", "{}")
        == .probe(
          ProbeSettings(
            command: ["vim", "--in", "{}"].map { Array($0.utf8) }, location: Array("work".utf8), strict: true)
        ))
    #expect(throws: UsageError(message: "Missing value for '--in DIR'", command: .probe)) {
      try ParsedCommand.parse([Array("probe".utf8), Array("--in".utf8)])
    }
    #expect(throws: UsageError(message: "Missing expected argument 'COMMAND'", command: .probe)) {
      try ParsedCommand.parse([Array("probe".utf8), Array("--json".utf8)])
    }
    #expect(throws: UsageError(message: "Unknown option '--frob'", command: .probe)) {
      try ParsedCommand.parse([Array("probe".utf8), Array("--frob".utf8), Array("sed".utf8)])
    }
  }

  @Test("operands that are not UTF-8 are kept byte for byte")
  func rawBytes() throws {
    let raw: [UInt8] = [0x66, 0xFF, 0x6F]
    let parsed = try ParsedCommand.parse([Array("inspect".utf8), raw])
    #expect(parsed == .inspect(document: raw, json: false))
  }
}
