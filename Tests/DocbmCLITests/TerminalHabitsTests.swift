import DocbmTestSupport
import DocumentBookmarks
import Foundation
import Testing

@testable import DocbmCLI

/// The command as people at a terminal use it, with habits from git, cp, grep and
/// getfattr: real files, the built binary, real shells.
@Suite("docbm at a terminal")
struct TerminalHabitsTests {
  let docbm = Capabilities.docbmExecutable

  /// A tree of `count` documents with bookmarks, `lost` of which lost their key to an
  /// atomic save.
  private func tree(_ scratch: Scratch, count: Int, lost: Int) throws -> [FilePath] {
    let target = try scratch.file("target.txt")
    var lostDocuments: [FilePath] = []
    for index in 0..<count {
      let document = try scratch.file("tree/d\(index / 100)/doc\(index).json", "{}")
      if index < lost {
        let made = run(docbm, ["bookmark", document.description, target.description])
        try scratch.replaceAtomically(document, with: made.output)
        lostDocuments.append(document)
      }
    }
    return lostDocuments
  }

  @Test(
    "check -r lists only the problems, says how to list everything, and progress never mixes into results")
  func problemsOnlyAndProgress() throws {
    let scratch = try Scratch()
    let lost = try tree(scratch, count: 1200, lost: 2)
    // Progress forced on, standard output and standard error into one pipe, as a terminal shows them.
    let result = run("/bin/sh", ["-c", "'\(docbm)' check -r --progress '\(scratch.path("tree"))' 2>&1"])
    #expect(result.status == 2)
    let lines = result.output.split(separator: "\n")
    let verdicts = lines.filter { $0.hasPrefix("keyLost") }
    #expect(verdicts.count == 2, "\(result.output)")
    for document in lost { #expect(result.output.contains("keyLost               \(document): ")) }
    for line in lines where line.contains(" · ") {
      #expect(line.hasPrefix("checked ") && line.contains(" documents in "), "progress mixed into: \(line)")
    }
    // Count, folders, time so far and the folder being read (the rate once a second has passed).
    let progress = try #require(
      lines.first { $0.hasPrefix("checked 1,000 documents in ") }, "\(result.output)")
    #expect(
      progress.contains(" folders") && progress.contains(", 0:")
        && progress.contains(" · \(scratch.path("tree"))"), "\(progress)")
    #expect(!result.output.contains("ok    "))
    #expect(result.output.contains("1200 documents checked: 2 with a problem, 1198 fine"))
    #expect(result.output.contains("'docbm check --all' lists every document"))
    #expect(lines.count < 10, "\(lines.count) lines for 2 problems")

    let all = run(docbm, ["check", "-R", "--all", "--no-progress", scratch.path("tree").description])
    #expect(all.output.split(separator: "\n").count == 1200 + 2)
    #expect(all.output.contains("with a problem: "))
    #expect(!all.error.contains("checked "), "no progress with --no-progress")
  }

  @Test("--json is taken before the subcommand, and -R and repair --recursive work on trees")
  func globalJSONAndRepairRecursive() throws {
    let scratch = try Scratch()
    let escrow = try Scratch()
    let environment = ["DOCBM_ESCROW_DIR": escrow.path("escrow").description]
    let target = try scratch.file("target.txt")
    let document = try scratch.file("tree/sub/board.json", "{}")
    let made = run(docbm, ["bookmark", document.description, target.description], environment: environment)
    try scratch.replaceAtomically(document, with: made.output)
    try scratch.file("tree/other.json", "{}")

    let json = run(
      docbm, ["--json", "check", "-R", scratch.path("tree").description], environment: environment)
    #expect(json.status == 2, "\(json.error)")
    #expect(json.output.contains("\"verdict\" : \"keyLost\""))

    let repaired = run(docbm, ["repair", "-r", scratch.path("tree").description], environment: environment)
    #expect(repaired.status == 0, "\(repaired.output)\(repaired.error)")
    #expect(repaired.output.hasPrefix("restored    \(document): "))
    #expect(repaired.output.contains("2 documents examined: 1 restored, 0 refused, 1 needed nothing"))
    let clean = run(docbm, ["check", "-r", scratch.path("tree").description], environment: environment)
    #expect(clean.status == 0, "\(clean.output)")
  }

  @Test("usage errors name the missing argument and suggest the subcommand meant")
  func usageErrors() {
    let missing = run(docbm, ["bookmark", "board.json"])
    #expect(missing.status == 64)
    #expect(missing.error.hasPrefix("Error: Missing expected argument 'TARGET'\n"))
    let typo = run(docbm, ["chek", "x"])
    #expect(typo.status == 64)
    #expect(typo.error.contains("Unknown subcommand 'chek'. Did you mean 'check'?"))
  }

  @Test("help, every subcommand's help and usage fit 80 columns when not a terminal, broken between words")
  func helpFitsTheWidth() {
    for topic in [["--help"]]
      + [
        "bookmark", "resolve", "decode", "inspect", "check", "repair", "save", "probe", "store", "watch",
        "escrow", "demo", "completions", "help",
      ].map({ ["help", $0] })
    {
      let result = run(docbm, topic)
      #expect(result.status == 0)
      for line in result.output.split(separator: "\n") {
        #expect(line.count <= 80, "\(topic): \(line.count) columns: \(line)")
      }
    }
  }

  @Test("probe's report fits 80 columns when not a terminal, broken between words")
  func probeFits() throws {
    let scratch = try Scratch()
    let result = run(
      docbm, ["probe", "--in", scratch.root.description, "--", "/bin/sed", "-i", "s/a/b/", "{}"])
    #expect(result.status == 2, "\(result.error)")
    let lines = result.output.split(separator: "\n")
    #expect(lines.count > 5)
    for line in lines {
      #expect(line.count <= 80, "\(line.count) columns: \(line)")
    }
    // Words are kept whole: the fix's command is not cut in the middle of a word.
    #expect(result.output.contains("docbm save"))
  }

  @Test("demo fits 80 columns")
  func demoFits() {
    let result = run(docbm, ["demo"])
    #expect(result.status == 0, "\(result.error)")
    for line in result.output.split(separator: "\n") where !line.contains("docbmRec") && !line.contains("/") {
      #expect(line.count <= 80, "\(line.count) columns: \(line)")
    }
  }

  @Test(
    "save refuses a terminal as standard input unless asked, and never saves empty input without --allow-empty"
  )
  func saveInput() throws {
    let scratch = try Scratch()
    let document = try scratch.file("doc.txt", "precious")
    let empty = run(docbm, ["save", document.description], input: "")
    #expect(empty.status == 1)
    #expect(empty.error.contains("--allow-empty"))
    #expect(try String(contentsOfFile: document.description, encoding: .utf8) == "precious")

    // A person at a terminal: standard input is one, and nothing was piped in.
    let errors = Captured()
    let console = Console(
      output: { _ in }, error: { errors.append($0) }, input: { Array("typed".utf8) }, inputIsTerminal: true)
    let status = DocbmCommandLine.run(
      arguments: [Array("save".utf8), Array(document.description.utf8)], console: console)
    #expect(status == 1)
    #expect(errors.text.contains("standard input is a terminal"))
    #expect(try String(contentsOfFile: document.description, encoding: .utf8) == "precious")
    let asked = DocbmCommandLine.run(
      arguments: ["save", "--from", "-", document.description].map { Array($0.utf8) }, console: console)
    #expect(asked == 0)
    #expect(try String(contentsOfFile: document.description, encoding: .utf8) == "typed")

    let allowed = run(docbm, ["save", "--allow-empty", document.description], input: "")
    #expect(allowed.status == 0, "\(allowed.error)")
    #expect(try String(contentsOfFile: document.description, encoding: .utf8) == "")
  }

  @Test("errors say what to run next: keyMissing suggests docbm repair, a hard link --split-hard-links")
  func errorHints() throws {
    let scratch = try Scratch()
    let document = try scratch.file("doc.json")
    let target = try scratch.file("t.txt")
    let text = run(docbm, ["bookmark", document.description, target.description]).output
      .trimmingCharacters(in: .whitespacesAndNewlines)
    try scratch.replaceAtomically(document, with: "{}")
    let resolved = run(docbm, ["resolve", document.description, text])
    #expect(resolved.status == 1)
    #expect(resolved.error.contains("docbm repair \(document)"), "\(resolved.error)")

    let linked = try scratch.file("linked.txt")
    #expect(link(linked.description, scratch.path("second.txt").description) == 0)
    let saved = run(docbm, ["save", linked.description], input: "new")
    #expect(saved.status == 1)
    #expect(saved.error.contains("docbm save --split-hard-links \(linked)"), "\(saved.error)")
  }

  @Test("repair does not say refused twice")
  func repairWording() throws {
    let scratch = try Scratch()
    let document = try scratch.file("doc.json")
    let target = try scratch.file("t.txt")
    let text = run(docbm, ["bookmark", document.description, target.description]).output
    // A stranger's file holding a pasted bookmark: refused.
    let stranger = try scratch.file("stranger.json", text)
    let result = run(docbm, ["repair", stranger.description])
    #expect(result.status == 2)
    #expect(result.output.hasPrefix("refused     \(stranger): "), "\(result.output)")
    #expect(!result.output.contains(": refused:"), "\(result.output)")
  }

  @Test("bash completion keeps file names with spaces whole and completes the command after probe --")
  func bashCompletion() throws {
    let scratch = try Scratch()
    try scratch.file("my board.json")
    let script = try scratch.file("docbm.bash", run(docbm, ["completions", "bash"]).output)
    let probe = """
      cd '\(scratch.root)' && source '\(script)'
      t() { COMP_WORDS=("$@"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); COMPREPLY=(); _docbm; printf '[%s]' "${COMPREPLY[@]}"; echo; }
      t docbm inspect my
      t docbm --json ch
      t docbm probe -- bas
      t docbm probe -- sed -i s/a/b/ my
      t docbm help rep
      t docbm store ''
      t docbm escrow ex
      t docbm escrow export my
      t docbm store --key k a
      """
    let result = run("/bin/bash", ["-c", probe])
    #expect(result.status == 0, "\(result.error)")
    let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.count >= 9)
    guard lines.count >= 9 else { return }
    #expect(lines[0] == "[my board.json]")
    #expect(lines[1] == "[check]")
    #expect(lines[2].contains("[bash]"))
    #expect(lines[3] == "[my board.json]")
    #expect(lines[4] == "[repair]")
    // The actions of store and escrow, then files once an action is given.
    #expect(lines[5].hasPrefix("[list][add][forget]"), "\(lines[5])")
    #expect(lines[6] == "[export]")
    #expect(lines[7] == "[my board.json]")
    #expect(lines[8] == "[add]", "an option's value is not taken for the action")
  }

  @Test("zsh completion completes options, shells and subcommands for every subcommand (in tmux)")
  func zshCompletion() throws {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/zsh"),
      FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")
    else {
      print("skipped: zsh or tmux is not installed, zsh completion was not tried in a real shell")
      return
    }
    let scratch = try Scratch()
    try scratch.file("functions/_docbm", run(docbm, ["completions", "zsh"]).output)
    let folder = URL(fileURLWithPath: docbm).deletingLastPathComponent().path
    try scratch.file(
      "zshrc",
      """
      fpath=('\(scratch.path("functions"))' $fpath)
      autoload -Uz compinit && compinit -u -D
      path=('\(folder)' $path)
      PS1='%% '
      """)
    guard TmuxSession.isAvailable else {
      print("skipped: python3 is needed to start tmux without inherited descriptors")
      return
    }
    let session = TmuxSession("zsh -f -i", in: scratch.root)
    defer {
      session.stop()
      withExtendedLifetime(scratch) {}  // the socket lives in it
    }
    try #require(
      waitUntil { !session.screen().trimmingCharacters(in: .whitespacesAndNewlines).isEmpty },
      "zsh showed no prompt")
    session.send("source '\(scratch.path("zshrc"))'; echo sourced-$((6 * 7))", "Enter")
    try #require(session.screen(showing: "sourced-42") != nil, "\(session.screen())")
    /// Clears the screen and waits for the bare prompt: keys typed while `clear` still runs
    /// would reach the terminal before zsh reads them again.
    func clearScreen() {
      session.send("clear", "Enter")
      _ = waitUntil { session.screen().trimmingCharacters(in: .whitespacesAndNewlines) == "%" }
    }
    clearScreen()
    /// Completes `line` (Tab, and Tab again unless the first showed it: the common part,
    /// then the list) and says whether the screen came to show `expected`.
    func completes(_ line: String, showing expected: String) -> Bool {
      session.send("C-u", line)
      let prompt = "% " + line.trimmingCharacters(in: .whitespaces)
      guard let typed = session.screen(showing: prompt) else { return false }
      session.send("Tab")
      // The second Tab is typed only once the first has changed the screen, so that it
      // starts the list rather than arriving with the first.
      _ = waitUntil { session.screen() != typed }
      if !session.screen().contains(expected) { session.send("Tab") }
      let pane = session.screen(showing: expected, within: 30)
      session.send("C-c")
      clearScreen()
      return pane != nil
    }
    #expect(completes("docbm decode --", showing: "--json"))
    #expect(completes("docbm probe --", showing: "--with-hard-link"))
    #expect(completes("docbm completions ", showing: "zsh"))
    #expect(completes("docbm help rep", showing: "docbm help repair"))
    #expect(completes("docbm demo --", showing: "docbm demo --help"))
    #expect(completes("docbm escrow ex", showing: "docbm escrow export"))
    #expect(completes("docbm store ", showing: "compact"))
    // After `probe --`, the program to run (coreutils' `sha256sum` is the one so named).
    #expect(completes("docbm probe -- sha256s", showing: "docbm probe -- sha256sum"))
  }

  /// A tree of 1,500 plain documents and three copies that lost their key, at `tree/`:
  /// large enough for progress to be drawn (every 500 documents) between its results.
  private func makeProgressTree(in scratch: Scratch) throws {
    let board = try scratch.file("tree/board.json", "{}")
    let made = run(docbm, ["bookmark", board.description, try scratch.file("tree/t.png").description])
    try #require(made.status == 0, "\(made.error)")
    let text = made.output.trimmingCharacters(in: .whitespacesAndNewlines)
    // Copies keep the document's name: checked as its copies, which lost the key.
    for index in 0..<3 { try scratch.file("tree/lost/\(index)/board.json", "{\"b\":\"\(text)\"}") }
    for index in 0..<1500 { try scratch.file("tree/plain/\(index % 30)/\(index).txt", "text") }
  }

  /// Runs `command` in a terminal until `done` shows, and returns the screen with history.
  private func screen(of command: String, in scratch: Scratch, until done: String) -> String {
    // The pane stays open after the command, until the session ends, so it can be read.
    let session = TmuxSession(command + "; exec tail -f /dev/null", in: scratch.root)
    defer { session.stop() }
    return session.screen(showing: done, history: 100) ?? session.screen(history: 100)
  }

  @Test("on a TERM=dumb terminal, progress is off unless asked, and then printed as lines (in tmux)")
  func dumbTerminal() throws {
    guard TmuxSession.isAvailable else {
      print("skipped: tmux or python3 is not installed, progress was not tried in a terminal")
      return
    }
    let scratch = try Scratch()
    try makeProgressTree(in: scratch)
    let tree = scratch.path("tree").description
    let quiet = screen(of: "TERM=dumb '\(docbm)' check -r '\(tree)'", in: scratch, until: "documents checked")
    #expect(quiet.contains("documents checked"), "\(quiet)")
    #expect(!quiet.contains("checked 500 documents in"), "\(quiet)")
    let asked = screen(
      of: "TERM=dumb '\(docbm)' check -r --progress '\(tree)'", in: scratch, until: "documents checked")
    let lines = asked.split(separator: "\n")
    #expect(lines.contains { $0.hasPrefix("checked 500 documents in ") }, "\(asked)")
    #expect(!lines.contains(where: { $0.contains(" · ") && $0.contains("keyLost") }), "\(asked)")
  }

  @Test("in a real terminal, check's progress line never shows in a result line (in tmux)")
  func progressInTerminal() throws {
    guard TmuxSession.isAvailable else {
      print("skipped: tmux or python3 is not installed, progress was not tried in a terminal")
      return
    }
    let scratch = try Scratch()
    try makeProgressTree(in: scratch)
    // The tree is large enough for progress to be drawn between its results.
    let piped = run(docbm, ["check", "-r", "--progress", scratch.path("tree").description])
    #expect(piped.error.contains("checked 1,000 documents in "), "\(piped.error)")
    let screen = screen(
      of: "'\(docbm)' check -r --progress '\(scratch.path("tree"))'", in: scratch, until: "documents checked")
    let lines = screen.split(separator: "\n")
    #expect(lines.count(where: { $0.hasPrefix("keyLost") }) == 3, "\(screen)")
    #expect(!lines.contains(where: { $0.contains(" · ") && $0.contains("keyLost") }), "\(screen)")
    #expect(lines.contains(where: { $0.contains("documents checked") }), "\(screen)")
  }

  @Test("Ctrl-C during check -r clears its progress line and ends the command as the signal does (in tmux)")
  func interruptClearsProgress() throws {
    guard TmuxSession.isAvailable else {
      print("skipped: tmux or python3 is not installed, progress was not tried in a terminal")
      return
    }
    let scratch = try Scratch()
    // Enough documents that the check is still running when the interrupt arrives.
    for folder in 0..<200 {
      for index in 0..<200 { try scratch.file("tree/\(folder)/\(index).txt", "text") }
    }
    let session = TmuxSession(
      "'\(docbm)' check -r '\(scratch.path("tree"))'; echo \"exit=$?\"; exec tail -f /dev/null",
      in: scratch.root)
    defer { session.stop() }
    let drawn = try #require(session.screen(showing: " · "), "no progress line: \(session.screen())")
    session.send("C-c")
    let ended = try #require(session.screen(showing: "exit="), "\(session.screen())")
    guard !ended.contains("documents checked") else {
      print("skipped: the check ended before the interrupt arrived; nothing was interrupted")
      return
    }
    #expect(ended.contains("exit=130"), "\(ended)")
    // The line the progress was drawn on is empty again: the shell's next line starts clean.
    let lines = ended.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(!lines.contains(where: { $0.contains(" · ") }), "before: \(drawn)\nafter: \(ended)")
  }
}

/// The progress line's words: counts grouped by thousands, the rate once a second has
/// passed, the time so far, the folder being read; cut from the folder's start to fit.
@Suite("check's progress line")
struct ProgressLineTests {
  @Test("it says the count, the folders, the rate, the time so far and the folder being read")
  func text() {
    func text(_ elapsed: Duration) -> String {
      ProgressLine.text(
        documents: 6_500, folders: 412, current: FilePath("/home/ada/Projects/site/index.html"),
        elapsed: elapsed,
        paths: .asGiven)
    }
    #expect(
      text(.milliseconds(4_250))
        == "checked 6,500 documents in 412 folders, 1,529 a second, 0:04 · /home/ada/Projects/site")
    #expect(
      text(.milliseconds(400)) == "checked 6,500 documents in 412 folders, 0:00 · /home/ada/Projects/site")
    #expect(text(.seconds(3_725)).contains(", 1:02:05 · "))
    #expect(ProgressLine.grouped(1_234_567) == "1,234,567" && ProgressLine.grouped(999) == "999")
  }

  @Test("a line too wide for the terminal loses the folder's start, never the counts")
  func fitted() {
    let line = "checked 500 documents in 3 folders, 0:01 · /home/ada/a/very/long/folder/name"
    let cut = ProgressLine.fitted(line, width: 60)
    #expect(cut.count == 59 && cut.hasPrefix("checked 500 documents in 3 folders, 0:01 · …"), "\(cut)")
    #expect(cut.hasSuffix("folder/name"))
    #expect(ProgressLine.fitted(line, width: 200) == line)
    #expect(ProgressLine.fitted(line, width: 30) == "checked 500 documents in 3 fo")
  }
}

/// Text written by an in-process console.
private final class Captured: @unchecked Sendable {
  private let lock = NSLock()
  private var written = ""
  func append(_ text: String) { lock.withLock { written += text } }
  var text: String { lock.withLock { written } }
}

/// `inspect` of a folder document, and JSON without spread-out empty containers.
@Suite("inspect of folders, and compact JSON")
struct InspectFolderTests {
  let docbm = Capabilities.docbmExecutable

  @Test("a folder document shows its key and attributes, and where its bookmarks are checked")
  func folderDocument() throws {
    let scratch = try Scratch()
    let folder = try scratch.folder("package.board")
    let made = run(docbm, ["bookmark", folder.description, try scratch.file("t.png").description])
    try #require(made.status == 0, "\(made.error)")
    let text = run(docbm, ["inspect", folder.description])
    #expect(text.status == 0, "\(text.error)")
    #expect(text.output.contains("key:          present"), "\(text.output)")
    #expect(!text.output.contains("unreadable"), "\(text.output)")
    #expect(text.output.contains("docbm check -r \(folder)"))
    let json = run(docbm, ["inspect", "--json", folder.description])
    let report = try #require(
      try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
    #expect(report["verdict"] == nil)
    #expect((report["note"] as? String)?.contains("folder document") == true)
  }

  @Test("empty arrays and objects print as [] and {}, and nothing else changes")
  func compactJSON() throws {
    let scratch = try Scratch()
    let plain = try scratch.file("plain.txt", "no bookmarks here")
    let output = run(docbm, ["inspect", "--json", plain.description]).output
    #expect(output.contains("\"attributes\" : [],"), "\(output)")
    #expect(output.contains("\"bookmarks\" : [],"))
    #expect(try JSONSerialization.jsonObject(with: Data(output.utf8)) is [String: Any])
    let spread = "{\n  \"a\" : [\n\n  ],\n  \"b\" : {\n\n  },\n  \"c\" : [\n    \"\"\n  ]\n}"
    #expect(
      JSONReport.compactingEmptyContainers(spread)
        == "{\n  \"a\" : [],\n  \"b\" : {},\n  \"c\" : [\n    \"\"\n  ]\n}")
  }
}
