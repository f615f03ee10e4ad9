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

  /// What `repair` would do for a document whose key was lost (its check's hint): the
  /// action, why it would refuse, and the one remedy that fits, as `repair --json` says them.
  struct RepairProspect: Encodable {
    let action: DocumentRepairer.Report.Action
    let refusal: DocumentRepairer.Report.Refusal?
    let remedy: DocumentRepairer.Report.Remedy?
    let recordedDocument: FilePath?
    let advice: String?
    let message: String

    init?(_ prospect: DocumentRepairer.Report?) {
      guard let prospect, prospect.action != .nothingToDo else { return nil }
      action = prospect.action
      refusal = prospect.refusal
      remedy = prospect.remedy
      recordedDocument = prospect.recordedDocument
      advice = prospect.advice
      message = prospect.message
    }
  }

  /// A document's check with, when its key was lost, what repair would do (`repair`).
  private struct CheckedDocument: Encodable {
    let check: DocumentCheck
    let repair: RepairProspect?

    enum CodingKeys: String, CodingKey { case repair }

    func encode(to encoder: any Encoder) throws {
      try check.encode(to: encoder)
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encodeIfPresent(repair, forKey: .repair)
    }
  }

  /// Prints one checked document, with `prospect`, what repair would do for it.
  mutating func add(_ check: DocumentCheck, prospect: DocumentRepairer.Report? = nil) {
    let report = JSONReport.renderBytes(CheckedDocument(check: check, repair: RepairProspect(prospect)))
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
