/// Fits text to a terminal's width, breaking lines between words only.
enum TextWrapping {
  /// `text` with its paragraphs fitted to `width` columns, broken between words.
  ///
  /// The texts are written wrapped by hand; a line that continues the one before it (the
  /// one before is long, and this one starts where that one's continuation would: under
  /// its second column, or at its indent) is joined to it first, so that each paragraph is
  /// wrapped whole and no line of a word or two is left between two full ones. A blank
  /// line, a shorter line before, another indent, a line with columns of its own
  /// (`  --option    what it does`, `Label: text`), a list's item (`- item`, `1. step`) or a
  /// command to type (`docbm …`) starts a new paragraph. A continuation is indented like
  /// the line it continues; for a line of two columns, under the second column, and for a
  /// list's item, under the item's text. A single word longer than the width stays whole
  /// on its own line (a path, a bookmark).
  static func fit(_ text: String, width: Int) -> String {
    var fitted: [String] = []
    // The paragraph being gathered, and where its continuation lines start in the text.
    var paragraph: (text: String, indent: Int, continuation: Int)?
    var previousLength = 0
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      let indent = line.prefix { $0 == " " }.count
      let body = line.dropFirst(indent)
      // A line of columns (`  --option    what it does`) starts a paragraph of its own, and
      // so does a `Label: text` line level with the paragraph's first line (a sentence may
      // go on with `word: ` at the start of a line), and a command to type (`docbm …`),
      // which stays a line of its own.
      let ownColumns =
        columnGap(in: line) != nil || body.starts(with: "docbm ") || itemTextStart(in: line) != nil
        || (indent == paragraph?.indent && body.first?.isUppercase == true && labelEnd(in: line) != nil)
      if var current = paragraph, !body.isEmpty, previousLength >= joiningLength, !ownColumns,
        indent == current.continuation || indent == current.indent
      {
        current.text += " " + body
        paragraph = current
      } else {
        if let current = paragraph { fitted.append(fitLine(Substring(current.text), width: width)) }
        paragraph = body.isEmpty ? nil : (String(line), indent, continuationIndent(of: line))
        if body.isEmpty { fitted.append("") }
      }
      previousLength = line.count
    }
    if let current = paragraph { fitted.append(fitLine(Substring(current.text), width: width)) }
    return fitted.joined(separator: "\n")
  }

  /// A line at least this long is taken to be wrapped by hand, so that the next may
  /// continue it; shorter lines end where they were meant to (a heading, a list's item).
  private static let joiningLength = 64

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
  /// (two or more spaces after its first words, or `label: ` at its start), under an
  /// item's text when the line is a list's item, else under the line's own text.
  private static func continuationIndent(of line: Substring) -> Int {
    columnGap(in: line) ?? labelEnd(in: line) ?? itemTextStart(in: line) ?? line.prefix { $0 == " " }.count
  }

  /// Where the text of a list's item starts, when `line` (after its indent) starts with an
  /// item's mark: `- `, or a number and `. ` (`1. `).
  private static func itemTextStart(in line: Substring) -> Int? {
    let indent = line.prefix { $0 == " " }.count
    return line.dropFirst(indent).firstRange(of: #/^(-|[0-9]{1,2}\.) /#).map {
      line.distance(from: line.startIndex, to: $0.upperBound)
    }
  }

  /// Where the text after the first gap of two or more spaces in `line` (after its
  /// indent) starts, if there is one.
  private static func columnGap(in line: Substring) -> Int? {
    let indent = line.prefix { $0 == " " }.count
    return line.dropFirst(indent).firstRange(of: #/  +/#).map {
      line.distance(from: line.startIndex, to: $0.upperBound)
    }
  }

  /// Where the text after a `label: ` at the start of `line` (after its indent) starts.
  private static func labelEnd(in line: Substring) -> Int? {
    let indent = line.prefix { $0 == " " }.count
    return line.dropFirst(indent).firstRange(of: #/^[A-Za-z][A-Za-z ]{0,14}: /#).map {
      line.distance(from: line.startIndex, to: $0.upperBound)
    }
  }
}

extension String {
  /// The text followed by spaces up to `width` characters (unchanged when it is as long or
  /// longer): a column of a table.
  func padded(to width: Int) -> String {
    count >= width ? self : self + String(repeating: " ", count: width - count)
  }
}
