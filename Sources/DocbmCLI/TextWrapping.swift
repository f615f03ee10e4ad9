/// Fits text to a terminal's width, breaking lines between words only.
enum TextWrapping {
  /// `text` with every line longer than `width` columns broken between words. A
  /// continuation is indented like the line it continues, or, for a line of two columns
  /// (`  --option    what it does`, `label: text`), under the second column. A single word
  /// longer than the width stays whole on its own line (a path, a bookmark).
  static func fit(_ text: String, width: Int) -> String {
    text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
      fitLine(Substring(line), width: width)
    }.joined(separator: "\n")
  }

  private static func fitLine(_ line: Substring, width: Int) -> String {
    guard line.count > width else { return String(line) }
    let indent = line.prefix { $0 == " " }
    let hanging = String(repeating: " ", count: min(continuationIndent(of: line), width / 2))
    var lines: [String] = []
    var current = String(indent)
    var currentHasWord = false
    for word in line.dropFirst(indent.count).split(separator: " ", omittingEmptySubsequences: false) {
      // Runs of spaces inside the line (column gaps) are kept as they are.
      let piece = currentHasWord ? " " + word : String(word)
      if currentHasWord, current.count + piece.count > width, !word.isEmpty {
        lines.append(current)
        current = hanging + word
      } else {
        current += piece
      }
      currentHasWord = true
    }
    lines.append(current)
    return lines.map { $0.replacing(#/ +$/#, with: "") }.joined(separator: "\n")
  }

  /// Where a continuation of `line` starts: under the second column when the line has one
  /// (two or more spaces after its first words, or `label: ` at its start), else under
  /// the line's own text.
  private static func continuationIndent(of line: Substring) -> Int {
    let indent = line.prefix { $0 == " " }.count
    if let gap = line.dropFirst(indent).firstRange(of: #/  +/#) {
      return line.distance(from: line.startIndex, to: gap.upperBound)
    }
    if let colon = line.dropFirst(indent).firstRange(of: #/^[A-Za-z][A-Za-z ]{0,14}: /#) {
      return line.distance(from: line.startIndex, to: colon.upperBound)
    }
    return indent
  }
}

extension String {
  /// The text followed by spaces up to `width` characters (unchanged when it is as long or
  /// longer): a column of a table.
  func padded(to width: Int) -> String {
    count >= width ? self : self + String(repeating: " ", count: width - count)
  }
}
