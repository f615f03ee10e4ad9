import DocumentBookmarks

/// `check --json`, written as the checks arrive rather than kept until the end, so that
/// memory stays flat however large the tree: the report's keys are sorted, and `documents`
/// comes first, so each document can be printed as soon as it is checked; the counts and
/// the unreadable paths, which need the whole walk, follow.
///
/// The text is what ``JSONReport/render(_:)`` would print for the whole report.
struct CheckJSONStream {
  private let console: Console
  private var documents = 0

  init(console: Console) {
    self.console = console
  }

  /// The report's fields that follow `documents`.
  private struct Tail: Encodable {
    let problems: Int
    let schemaVersion = JSONReport.schemaVersion
    let unreadable: [TreeChecker.Unreadable]
  }

  /// A document's check with, when its key was lost, what repair would do (`repair`).
  private struct CheckedDocument: Encodable {
    let check: DocumentCheck
    let repair: RepairSummary?

    enum CodingKeys: String, CodingKey { case repair }

    func encode(to encoder: any Encoder) throws {
      try check.encode(to: encoder)
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encodeIfPresent(repair, forKey: .repair)
    }
  }

  /// Prints one checked document, with `prospect`, what repair would do for it.
  mutating func add(_ check: DocumentCheck, prospect: DocumentRepairer.Report? = nil) {
    let repair = prospect.flatMap { $0.action == .nothingToDo ? nil : RepairSummary($0) }
    let report = JSONReport.renderBytes(CheckedDocument(check: check, repair: repair))
    var text = Array((documents == 0 ? "{\n  \"documents\" : [\n" : ",\n").utf8)
    text.reserveCapacity(text.count + report.count + report.count / 8)
    // Each of the report's lines indented by four spaces, as an element of the array.
    let indent = Array("    ".utf8)
    text += indent
    for byte in report {
      text.append(byte)
      if byte == UInt8(ascii: "\n") { text += indent }
    }
    console.write(String(decoding: text, as: UTF8.self))
    documents += 1
  }

  /// Prints the rest of the report and closes it.
  func finish(problems: Int, unreadable: [TreeChecker.Unreadable]) {
    let tail = JSONReport.render(Tail(problems: problems, unreadable: unreadable))
    // The tail's own object, opened by "{\n": its fields go after the documents.
    let fields = tail.dropFirst(2)
    console.print((documents == 0 ? "{\n  \"documents\" : [],\n" : "\n  ],\n") + fields)
  }
}
