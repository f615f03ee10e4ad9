import DocbmTestSupport
import DocumentBookmarks
import Synchronization
import Testing

@testable import DocbmCLI

/// Help pages fitted to a terminal: paragraphs wrapped whole at any width.
@Suite("Text fitted to the terminal's width")
struct TextWrappingTests {
  /// The lines of `text` wider than `width` though they hold more than one word, and the
  /// lines after which the next line of the same paragraph starts with a word that would
  /// have fitted (a word or two left on a line of their own, or a line broken early).
  private func faults(in text: String, width: Int) -> [String] {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    var faults: [String] = []
    for (index, line) in lines.enumerated() {
      if line.count > width, line.split(separator: " ").count > 1 { faults.append("too wide: \(line)") }
      guard index + 1 < lines.count, !line.isEmpty else { continue }
      let next = lines[index + 1]
      let indent = next.prefix { $0 == " " }.count
      // The next line continues a paragraph when it is indented as continuations are
      // (under this line's second column, or as this line) and has no columns of its own.
      let body = next.dropFirst(indent)
      // A command to type and a list's item stay lines of their own.
      guard !body.isEmpty, body.firstRange(of: "  ") == nil, !body.hasPrefix("docbm "),
        body.firstRange(of: #/^(-|[0-9]+\.) /#) == nil,
        indent == continuation(of: line)
      else {
        continue
      }
      if indent == line.prefix(while: { $0 == " " }).count,
        body.firstRange(of: #/^[A-Za-z][A-Za-z ]{0,14}: /#) != nil
      {
        continue
      }
      let firstWord = body.prefix { $0 != " " }
      if line.count + 1 + firstWord.count <= width {
        faults.append("broken early: '\(line)' before '\(firstWord)'")
      }
    }
    return faults
  }

  /// Where a continuation of `line` is indented: under its second column (after two or
  /// more spaces, or after `label: `), else as the line.
  private func continuation(of line: Substring) -> Int {
    let indent = line.prefix { $0 == " " }.count
    let text = line.dropFirst(indent)
    if let gap = text.firstRange(of: #/  +/#) {
      return line.distance(from: line.startIndex, to: gap.upperBound)
    }
    if let label = text.firstRange(of: #/^[A-Za-z][A-Za-z ]{0,14}: /#) {
      return line.distance(from: line.startIndex, to: label.upperBound)
    }
    if let mark = text.firstRange(of: #/^(-|[0-9]+\.) /#) {
      return line.distance(from: line.startIndex, to: mark.upperBound)
    }
    return indent
  }

  @Test("every help page, at 60, 80 and 120 columns, has no stray short line and nothing too wide")
  func helpPages() {
    for width in [60, 80, 120] {
      for topic in [nil] + CommandName.allCases.map(Optional.some) {
        let page = TextWrapping.fit(HelpText.render(topic), width: width)
        let found = faults(in: page, width: width)
        #expect(found.isEmpty, "\(topic?.rawValue ?? "docbm") at \(width) columns: \(found)\n\(page)")
      }
    }
  }

  @Test("at 80 columns and wider, each command completions --help says to type is one line")
  func installCommandsWhole() {
    for width in [80, 120] {
      let page = TextWrapping.fit(HelpText.render(.completions), width: width)
      for command in [
        "docbm completions bash > /usr/share/bash-completion/completions/docbm",
        "docbm completions zsh > /usr/share/zsh/site-functions/_docbm",
      ] {
        #expect(page.split(separator: "\n").contains { $0.drop(while: { $0 == " " }) == command }, "\(page)")
      }
    }
  }

  @Test("check's results: wrapped between words under the path at a terminal, one line each when piped")
  func results() throws {
    let scratch = try Scratch()
    let folder = try scratch.folder("a folder with a rather long name/and another one inside it")
    let board = try scratch.file(
      "a folder with a rather long name/and another one inside it/board.json", "{}")
    let made = run(
      Capabilities.docbmExecutable, ["bookmark", board.description, try scratch.file("cat.png").description])
    try #require(made.status == 0, "\(made.error)")
    // A plain atomic save drops the key: a problem, with a sentence that explains it.
    let saved = run(
      "/bin/sh",
      ["-c", "printf '%s' \"$1\" > \"$2.new\" && mv \"$2.new\" \"$2\"", "sh", made.output, board.description])
    try #require(saved.status == 0, "\(saved.error)")
    func check(resultWidth: Int?) -> [Substring] {
      let output = Mutex("")
      let status = DocbmCommandLine.run(
        arguments: ["check", "-r", "--no-progress", folder.description].map { Array($0.utf8) },
        console: Console(
          output: { text in output.withLock { $0 += text } }, error: { _ in }, resultWidth: resultWidth))
      #expect(status == 2)
      return output.withLock { $0 }.split(separator: "\n")
    }
    let piped = check(resultWidth: nil)
    let result = try #require(piped.first, "\(piped)")
    #expect(result.count > 120 && result.contains("board.json: "), "\(result)")
    for width in [60, 80, 120] {
      let lines = check(resultWidth: width)
      let wrapped = lines.prefix { !$0.contains("documents checked") && !$0.contains("document checked") }
      #expect(wrapped.count > 1, "\(width): \(lines)")
      #expect(wrapped.first?.hasPrefix(result.prefix(22)) == true)
      for line in wrapped.dropFirst() {
        #expect(line.hasPrefix(String(repeating: " ", count: 22)), "under the path, at \(width): \(line)")
      }
      for line in wrapped where line.count > width {
        #expect(!line.trimmingPrefix(" ").contains(" "), "too wide at \(width): \(line)")
      }
      // Joined again, the words are the piped line's.
      #expect(wrapped.map { $0.split(separator: " ") }.joined().elementsEqual(result.split(separator: " ")))
    }
  }

  @Test("the demo, at 60, 80 and 120 columns, has no stray short line and nothing too wide")
  func demo() {
    for width in [60, 80, 120] {
      let output = Mutex("")
      let status = DocbmCommandLine.run(
        arguments: [Array("demo".utf8)],
        console: Console(output: { text in output.withLock { $0 += text } }, error: { _ in }, width: width))
      let page = output.withLock { $0 }
      #expect(status == 0)
      #expect(page.contains("9. Repair"))
      let found = faults(in: page, width: width)
      #expect(found.isEmpty, "demo at \(width) columns: \(found)\n\(page)")
    }
  }

  @Test("a paragraph wrapped by hand is joined and wrapped whole; lists, headings and blank lines stay")
  func paragraphs() {
    let text = """
      OVERVIEW: one two three four five six seven eight nine ten eleven twelve thirteen
      fourteen.

      ITEMS:
        short     What it does, at some length, so that this line is long enough to go on
                  and on.
        next      Another.
      Exit status: 0.
      """
    #expect(
      TextWrapping.fit(text, width: 40) == """
        OVERVIEW: one two three four five six
                  seven eight nine ten eleven
                  twelve thirteen fourteen.

        ITEMS:
          short     What it does, at some
                    length, so that this line is
                    long enough to go on and on.
          next      Another.
        Exit status: 0.
        """)
    // Wide enough, each paragraph is one line.
    let wide = TextWrapping.fit(text, width: 200).split(separator: "\n", omittingEmptySubsequences: false)
    #expect(wide.count == 6)
    #expect(wide[0].hasSuffix("thirteen fourteen."))
    #expect(wide[3].hasSuffix("go on and on."))
    // A line too short to have been wrapped by hand is not joined to the next.
    #expect(TextWrapping.fit("a list:\nfirst\nsecond", width: 80) == "a list:\nfirst\nsecond")
  }
}
