import DocumentBookmarkStore
import DocumentBookmarks
import FoundationEssentials

/// JSON output shared by the commands: sorted keys, a schema version, no escaped slashes.
enum JSONReport {
  /// The version of every JSON shape `docbm` prints (docs/cli.md).
  static let schemaVersion = 1

  static func render(_ value: some Encodable) -> String {
    String(decoding: renderBytes(value), as: UTF8.self)
  }

  /// ``render(_:)`` as UTF-8 bytes, for output that is put together from several reports.
  static func renderBytes(_ value: some Encodable) -> [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
    // Reports hold text, integers, flags and JSON read from files (finite numbers only):
    // encoding them does not fail.
    guard let data = try? encoder.encode(value) else { return Array("{}".utf8) }
    return compactingEmptyContainers(Array(data))
  }

  /// `value` on one line, keys sorted, for commands that print one object per line.
  static func renderLine(_ value: some Encodable) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    guard let data = try? encoder.encode(value) else { return "{}" }  // cannot fail, as above
    return String(decoding: data, as: UTF8.self)
  }

  /// `[]` and `{}` for empty arrays and objects, which the pretty printer spreads over three
  /// lines. (JSON strings hold no raw line breaks, so only containers match.)
  static func compactingEmptyContainers(_ text: String) -> String {
    String(decoding: compactingEmptyContainers(Array(text.utf8)), as: UTF8.self)
  }

  /// ``compactingEmptyContainers(_:)-(String)`` on UTF-8 bytes, line by line (the lines
  /// are compared as bytes: the pretty printer indents with spaces).
  static func compactingEmptyContainers(_ text: [UInt8]) -> [UInt8] {
    let newline = UInt8(ascii: "\n")
    func isBlank(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
    var result: [UInt8] = []
    result.reserveCapacity(text.count)
    var lines = text.split(separator: newline, omittingEmptySubsequences: false)[...]
    while let line = lines.popFirst() {
      let closer: UInt8? =
        switch line.last {
        case UInt8(ascii: "["): UInt8(ascii: "]")
        case UInt8(ascii: "{"): UInt8(ascii: "}")
        default: nil
        }
      if let closer, lines.count >= 2, lines[lines.startIndex].allSatisfy(isBlank) {
        let closing = lines[lines.index(after: lines.startIndex)].drop(while: isBlank)
        if closing.first == closer {
          result += line
          result += closing
          lines = lines.dropFirst(2)
          if !lines.isEmpty { result.append(newline) }
          continue
        }
      }
      result += line
      if !lines.isEmpty { result.append(newline) }
    }
    return result
  }
}

/// What repair did, or would do, for a document, as `check --json` and `watch --json` give
/// it: the action, why it refused, and the one remedy that fits, with `repair --json`'s
/// names for them.
struct RepairSummary: Encodable {
  let action: DocumentRepairer.Report.Action
  let refusal: DocumentRepairer.Report.Refusal?
  let remedy: DocumentRepairer.Report.Remedy?
  let recordedDocument: FilePath?
  let advice: String?
  let message: String

  init(_ report: DocumentRepairer.Report) {
    action = report.action
    refusal = report.refusal
    remedy = report.remedy
    recordedDocument = report.recordedDocument
    advice = report.advice
    message = report.message
  }
}

/// What a command asked for JSON prints when it fails as a whole, before it has anything
/// else to report: `{"schemaVersion": 1, "error": {…}}`.
struct FailureReport: Encodable {
  let schemaVersion = JSONReport.schemaVersion
  let error: ErrorReport
}

/// An error as it appears in JSON output.
struct ErrorReport: Encodable {
  let code: String
  let message: String
  let recommendation: String?
  let path: FilePath?
  let lastKnownPath: FilePath?
  let systemCall: String?
  let errno: Int32?
  let step: String?

  /// The report of a docbm error or a store's own failure (which has no recommendation:
  /// its message says what is wrong with the store); `nil` for any other error.
  init?(_ error: any Error) {
    if let error = error as? DocbmError {
      self.init(error)
    } else if let failure = error as? StoreFailure {
      self.init(
        code: failure.code.rawValue, message: failure.message, recommendation: nil, path: failure.path,
        lastKnownPath: nil, systemCall: nil, errno: nil, step: nil)
    } else {
      return nil
    }
  }

  init(_ error: DocbmError) {
    self.init(
      code: error.code.rawValue, message: error.message, recommendation: error.recommendation.rawValue,
      path: error.path, lastKnownPath: error.lastKnownPath, systemCall: error.systemCall, errno: error.errno,
      step: error.step?.rawValue)
  }

  private init(
    code: String, message: String, recommendation: String?, path: FilePath?, lastKnownPath: FilePath?,
    systemCall: String?, errno: Int32?, step: String?
  ) {
    self.code = code
    self.message = message
    self.recommendation = recommendation
    self.path = path
    self.lastKnownPath = lastKnownPath
    self.systemCall = systemCall
    self.errno = errno
    self.step = step
  }
}

extension Bookmark {
  /// A bookmark from a command-line operand: its text form, or `-` for standard input.
  static func operand(_ bytes: [UInt8], console: Console) throws(DocbmError) -> Bookmark {
    let text = bytes == [UInt8(ascii: "-")] ? try console.readAllInput() : bytes
    return try Bookmark(text: String(decoding: text, as: UTF8.self))
  }
}
