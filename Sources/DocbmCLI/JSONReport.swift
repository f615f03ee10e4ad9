import DocumentBookmarks
import FoundationEssentials

/// JSON output shared by the commands: sorted keys, a schema version, no escaped slashes.
enum JSONReport {
  /// The version of every JSON shape `docbm` prints (docs/cli.md).
  static let schemaVersion = 1

  static func render(_ value: some Encodable) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
    guard let data = try? encoder.encode(value) else { return "{}" }
    return compactingEmptyContainers(String(decoding: data, as: UTF8.self))
  }

  /// `value` on one line, keys sorted, for commands that print one object per line.
  static func renderLine(_ value: some Encodable) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    guard let data = try? encoder.encode(value) else { return "{}" }
    return String(decoding: data, as: UTF8.self)
  }

  /// `[]` and `{}` for empty arrays and objects, which the pretty printer spreads over three
  /// lines. (JSON strings hold no raw line breaks, so only containers match.)
  static func compactingEmptyContainers(_ text: String) -> String {
    var result = ""
    result.reserveCapacity(text.utf8.count)
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false)[...]
    while let line = lines.popFirst() {
      let opened = line.last
      if opened == "[" || opened == "{", lines.count >= 2, lines[lines.startIndex].allSatisfy(\.isWhitespace)
      {
        let closing = lines[lines.index(after: lines.startIndex)].drop(while: \.isWhitespace)
        if closing.first == (opened == "[" ? "]" : "}") {
          result += line + (opened == "[" ? "]" : "}") + closing.dropFirst()
          lines = lines.dropFirst(2)
          if !lines.isEmpty { result += "\n" }
          continue
        }
      }
      result += line
      if !lines.isEmpty { result += "\n" }
    }
    return result
  }
}

/// An error as it appears in JSON output.
struct ErrorReport: Encodable {
  let code: String
  let message: String
  let recommendation: String
  let path: FilePath?
  let lastKnownPath: FilePath?

  init(_ error: DocbmError) {
    code = error.code.rawValue
    message = error.message
    recommendation = error.recommendation.rawValue
    path = error.path
    lastKnownPath = error.lastKnownPath
  }
}

extension Bookmark {
  /// A bookmark from a command-line operand: its text form, or `-` for standard input.
  static func operand(_ bytes: [UInt8], console: Console) throws(DocbmError) -> Bookmark {
    let text = bytes == [UInt8(ascii: "-")] ? try console.readAllInput() : bytes
    return try Bookmark(text: String(decoding: text, as: UTF8.self))
  }
}
