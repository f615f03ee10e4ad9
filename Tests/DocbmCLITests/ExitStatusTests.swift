import DocbmTestSupport
import DocumentBookmarks
import Foundation
import Testing

@testable import DocbmCLI

/// The exit statuses: one table in docs/cli.md and one list in the man page, both what the
/// code returns; and `check` and `repair` take up the paths named by one rule.
@Suite("Exit statuses")
struct ExitStatusTests {
  let docbm = Capabilities.docbmExecutable
  private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  /// The lines of `file` from the line `start` up to the next line that `isEnd` says ends it.
  private static func section(_ file: String, from start: String, to isEnd: (String) -> Bool) throws
    -> [String]
  {
    let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    guard let first = lines.firstIndex(of: start) else { return [] }
    let rest = lines[(first + 1)...]
    return Array(rest.prefix { !isEnd($0) })
  }

  @Test("docs/cli.md's table and the man page list exactly the statuses the code returns")
  func documented() throws {
    let expected = Set(DocbmCommandLine.ExitStatus.all.map(String.init)).union(["128 + N"])
    // The section's first table: its rows after the header and the rule.
    let table = try Self.section("docs/cli.md", from: "## Exit statuses") { $0.hasPrefix("## ") }
      .drop { !$0.hasPrefix("| status") }.dropFirst(2).prefix { $0.hasPrefix("| ") }
      .compactMap { $0.split(separator: "|").first?.trimmingCharacters(in: .whitespaces) }
    #expect(Set(table) == expected)
    #expect(table.count == expected.count, "a status is listed twice: \(table)")
    let manual = try Self.section("docs/docbm.1", from: ".SH EXIT STATUS") { $0.hasPrefix(".SH ") }
    var listed: [String] = []
    for (line, next) in zip(manual, manual.dropFirst()) where line == ".TP" && next.hasPrefix(".B ") {
      listed.append(String(next.dropFirst(3)).replacingOccurrences(of: "+", with: " + "))
    }
    #expect(Set(listed) == expected)
    #expect(listed.count == expected.count, "a status is listed twice: \(listed)")
  }

  @Test("a path that is not there fails check and repair alike (1), said on standard error as a result line")
  func missingOperand() throws {
    let scratch = try Scratch()
    let missing = scratch.path("nosuch.json").description
    for command in ["check", "repair"] {
      let result = run(docbm, [command, missing])
      #expect(result.status == DocbmCommandLine.ExitStatus.failure, "\(command): \(result)")
      #expect(!result.output.contains("nosuch.json"), "\(command) listed it as a result: \(result.output)")
      let line =
        result.error.split(separator: "\n").first { $0.contains("nosuch.json") }.map(String.init) ?? ""
      #expect(line.hasPrefix("unreadable "), "\(command): \(result.error)")
      #expect(line.hasSuffix("nosuch.json does not exist"), "\(command): \(result.error)")
      let json = run(docbm, [command, "--json", missing])
      #expect(json.status == DocbmCommandLine.ExitStatus.failure)
      let report = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any]
      let unreadable = report?["unreadable"] as? [[String: Any]]
      #expect(unreadable?.first?["path"] as? String == missing, "\(command): \(json.output)")
    }
  }

  @Test("a FIFO named is a document that cannot be read: a result (2) for check and repair alike")
  func fifoOperand() throws {
    let scratch = try Scratch()
    let fifo = scratch.path("pipe")
    try #require(mkfifo(fifo.description, 0o600) == 0)
    let check = run(docbm, ["check", fifo.description])
    #expect(check.status == DocbmCommandLine.ExitStatus.problem)
    #expect(check.output.hasPrefix("unreadable "), "\(check.output)")
    let repair = run(docbm, ["repair", fifo.description])
    #expect(repair.status == DocbmCommandLine.ExitStatus.problem)
    #expect(repair.output.hasPrefix("refused "), "\(repair.output)")
  }
}

/// What `check` says it can answer is what it can answer.
@Suite("check's verdicts in its help and the man page")
struct CheckVerdictDocumentationTests {
  @Test("every verdict is named in check --help and in the man page's check entry")
  func everyVerdictNamed() throws {
    let help = run(Capabilities.docbmExecutable, ["check", "--help"]).output
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let manual = try String(contentsOf: root.appendingPathComponent("docs/docbm.1"), encoding: .utf8)
    let lines = manual.split(separator: "\n").map(String.init)
    let start = try #require(lines.firstIndex { $0.hasPrefix(".BI \"check \" ") })
    let entry = lines[(start + 1)...].prefix { !$0.hasPrefix(".BI ") }
    let named = Set(
      entry.filter { $0.hasPrefix(".B ") || $0.hasPrefix(".BR ") }.compactMap {
        $0.split(separator: " ").dropFirst().first.map(String.init)
      })
    for verdict in CheckVerdict.allCases {
      #expect(help.contains(verdict.rawValue), "check --help does not name \(verdict.rawValue)")
      #expect(
        named.contains(verdict.rawValue), "the man page's check entry does not name \(verdict.rawValue)")
    }
  }
}
