import DocbmCLI
import DocbmTestSupport
import DocumentBookmarks
import Foundation
import Glibc
import Testing

/// `docbm check` and `docbm repair` on real files, with a scratch escrow.
@Suite("docbm check and repair end to end")
struct CheckEndToEndTests {
  let docbm = Capabilities.docbmExecutable

  @Test("with no thread to be had (a limit of one process, as nobody), check -r checks on its own thread")
  func noThreads() throws {
    guard Capabilities.canDropPrivileges, FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit")
    else {
      print("skipped: limiting another user's threads needs root, setpriv and prlimit")
      return
    }
    let scratch = try Scratch()
    chmod(scratch.root.description, 0o755)
    for folder in 0..<3 {
      for index in 0..<5 { _ = try scratch.file("tree/f\(folder)/doc\(index).txt", "text \(index)") }
    }
    #expect(run("/bin/chmod", ["-R", "a+rX", scratch.root.description]).status == 0)
    // RLIMIT_NPROC counts the user's threads: with 1, no worker thread can be made. A
    // checker that waited for its workers would never finish: `timeout` makes that a failure.
    let checked = run(
      "/usr/bin/timeout",
      [
        "-s", "KILL", "30", "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
        "/usr/bin/prlimit",
        "--nproc=1", "--", docbm, "check", "--recursive", scratch.path("tree").description,
      ], environment: ["DOCBM_ESCROW_DIR": scratch.path("escrow").description])
    #expect(checked.status == 0, "\(checked.status): \(checked.error)")
    #expect(checked.output.contains("15 documents checked: 0 with a problem, 15 fine"), "\(checked.output)")
  }

  @Test(
    "an unreadable folder is a result like an unreadable document: listed, counted once, exit 2 in check and repair"
  )
  func unreadableFolder() throws {
    guard Capabilities.canDropPrivileges else {
      print("skipped: reading as another user needs root and setpriv")
      return
    }
    let scratch = try Scratch()
    chmod(scratch.root.description, 0o755)
    _ = try scratch.file("tree/fine.txt", "text")
    _ = try scratch.file("tree/secret/inside.txt", "text")
    _ = try scratch.file("tree/closed.txt", "text")
    #expect(run("/bin/chmod", ["-R", "a+rX", scratch.root.description]).status == 0)
    chmod(scratch.path("tree/secret").description, 0)
    chmod(scratch.path("tree/closed.txt").description, 0)
    func asNobody(_ arguments: [String]) -> ProcessResult {
      run(
        "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", docbm] + arguments,
        environment: ["DOCBM_ESCROW_DIR": scratch.path("escrow").description])
    }
    let tree = scratch.path("tree")
    let checked = asNobody(["check", "--recursive", tree.description])
    #expect(checked.status == 2, "\(checked.status): \(checked.output)\(checked.error)")
    #expect(checked.error.isEmpty, "\(checked.error)")
    let lines = checked.output.split(separator: "\n").map(String.init)
    #expect(
      lines.contains { $0.hasPrefix("unreadable            \(tree)/closed.txt: ") }, "\(checked.output)")
    #expect(lines.contains { $0.hasPrefix("unreadable            \(tree)/secret: ") }, "\(checked.output)")
    #expect(
      checked.output.contains(
        "2 documents checked: 0 with a problem, 1 unreadable, 1 fine; 1 folder could not be read, so its documents were not checked"
      ), "\(checked.output)")
    // The folder alone, named: the same result.
    let alone = asNobody(["check", "--recursive", scratch.path("tree/secret").description])
    #expect(alone.status == 2, "\(alone.status): \(alone.output)\(alone.error)")
    let repaired = asNobody(["repair", "--recursive", tree.description])
    #expect(repaired.status == 2, "\(repaired.status): \(repaired.output)\(repaired.error)")
    #expect(repaired.output.contains("unreadable  \(tree)/secret: "), "\(repaired.output)")
    #expect(repaired.output.contains("1 folder could not be read"), "\(repaired.output)")
    // A path that does not exist is a failure of the command, not a result.
    let gone = asNobody(["check", "--recursive", scratch.path("gone").description])
    #expect(gone.status == 1, "\(gone.status): \(gone.output)\(gone.error)")
    #expect(gone.error.hasPrefix("unreadable  "), "\(gone.error)")
    #expect(!gone.output.contains("gone"), "\(gone.output)")
    chmod(scratch.path("tree/secret").description, 0o755)
  }

  @Test("a key lost by sed -i: check says keyLost (exit 2), repair restores it, check is clean again")
  func lostAndRepaired() throws {
    let scratch = try Scratch()
    let environment = ["DOCBM_ESCROW_DIR": scratch.path("escrow").description]
    func docbm(_ arguments: [String], input: String? = nil) -> ProcessResult {
      run(self.docbm, arguments, input: input, environment: environment)
    }
    let document = try scratch.file("project/doc.json", "{}")
    let target = try scratch.file("project/a.png")
    let text = docbm(["bookmark", document.description, target.description]).output
      .trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(docbm(["save", document.description], input: "{\"a\": \"\(text)\"}").status == 0)
    #expect(docbm(["check", document.description]).status == 0)

    #expect(run("/bin/sed", ["-i", "s/a/a/", document.description]).status == 0)
    let lost = docbm(["check", "--json", document.description])
    #expect(lost.status == 2)
    #expect(lost.output.contains("\"verdict\" : \"keyLost\""))

    let repaired = docbm(["repair", document.description])
    #expect(repaired.status == 0, "\(repaired.output)")
    #expect(repaired.output.hasPrefix("restored"))
    #expect(docbm(["resolve", document.description, text]).output == target.description + "\n")

    let tree = docbm(["check", "--recursive", scratch.path("project").description])
    #expect(tree.status == 0)
    #expect(!tree.output.contains("ok  "), "a tree lists only the documents with a problem")
    #expect(tree.output.contains("2 documents checked: 0 with a problem, 2 fine"))
    let all = docbm(["check", "-R", "--all", scratch.path("project").description])
    #expect(all.output.contains("ok                    \(document)  (1 bookmark)"))
  }

  @Test(
    "a folder without --recursive is a failure of the check (exit 1); a foreign bookmark's repair is refused (exit 2)"
  )
  func failuresAndRefusals() throws {
    let scratch = try Scratch()
    let environment = ["DOCBM_ESCROW_DIR": scratch.path("escrow").description]
    let folder = run(docbm, ["check", scratch.root.description], environment: environment)
    #expect(folder.status == 1)
    #expect(folder.error.contains("use --recursive"))

    let source = try scratch.file("source.json")
    let thief = try scratch.file("thief.json")
    let text = run(docbm, ["bookmark", source.description, source.description], environment: environment)
      .output
    #expect(
      run(docbm, ["bookmark", thief.description, source.description], environment: environment).status == 0)
    #expect(run(docbm, ["save", thief.description], input: text, environment: environment).status == 0)
    let check = run(docbm, ["check", thief.description], environment: environment)
    #expect(check.status == 2)
    #expect(check.output.hasPrefix("keyMismatch"))
    let repair = run(docbm, ["repair", "--json", thief.description], environment: environment)
    #expect(repair.status == 2)
    #expect(repair.output.contains("\"action\" : \"refused\""))
  }

  @Test(
    "a home folder with a shell history quoting bookmarks and a store checks clean; --all names the history"
  )
  func quotationsAreNotProblems() throws {
    let scratch = try Scratch()
    let environment = ["DOCBM_ESCROW_DIR": scratch.path("escrow").description]
    func docbm(_ arguments: [String]) -> ProcessResult {
      run(self.docbm, arguments, environment: environment)
    }
    let home = try scratch.folder("home")
    let document = try scratch.file("home/Documents/project/board.json", "{}")
    let target = try scratch.file("home/Documents/project/images/cat.png")
    let text = docbm(["bookmark", document.description, target.description]).output
      .trimmingCharacters(in: .whitespacesAndNewlines)
    try scratch.write("{\"cat\": \"\(text)\"}", to: document)
    let history = try scratch.file("home/.bash_history", "docbm resolve board.json \(text)\n")
    let store = scratch.path("home/.local/state/editor/recents.json")
    try scratch.makeParents(of: store)
    #expect(docbm(["store", "add", "--create", store.description, target.description]).status == 0)
    #expect(docbm(["store", "add", "--create", store.description, document.description]).status == 0)

    let tree = docbm(["check", "-r", home.description])
    #expect(tree.status == 0, "\(tree.output)")
    #expect(tree.output.contains("0 with a problem"), "\(tree.output)")
    let all = docbm(["check", "-r", "--all", home.description])
    #expect(all.output.contains("quotesBookmarks       \(history): "), "\(all.output)")
    let repair = docbm(["repair", history.description])
    #expect(repair.status == 0)
    #expect(repair.output.hasPrefix("nothingToDo"), "\(repair.output)")
    #expect(run("/usr/bin/getfattr", ["-n", "user.docbm.key", history.description]).status != 0)
    // The document that lost its key is still a problem.
    #expect(run("/bin/sed", ["-i", "s/cat/kitten/", document.description]).status == 0)
    let lost = docbm(["check", "-r", home.description])
    #expect(lost.status == 2)
    #expect(lost.output.contains("keyLost               \(document): "), "\(lost.output)")
  }

  @Test("check's hint for a lost key says what repair will do, and repair does just that")
  func hintsAgreeWithRepair() throws {
    let scratch = try Scratch()
    let environment = ["DOCBM_ESCROW_DIR": scratch.path("escrow").description]
    func docbm(_ arguments: [String]) -> ProcessResult {
      run(self.docbm, arguments, environment: environment)
    }
    let document = try scratch.file("project/board.json", "{}")
    let target = try scratch.file("project/cat.png")
    let text = docbm(["bookmark", document.description, target.description]).output
      .trimmingCharacters(in: .whitespacesAndNewlines)
    try scratch.write("{\"cat\": \"\(text)\"}", to: document)
    // A copy elsewhere made without the key (cp), then the document's own key lost (sed -i).
    try scratch.folder("elsewhere")
    let copy = scratch.path("elsewhere/board.json")
    #expect(run("/bin/cp", [document.description, copy.description]).status == 0)
    #expect(run("/bin/sed", ["-i", "s/cat/kitten/", document.description]).status == 0)

    // A tree check decides each hint from its one reading of the escrow, on its worker
    // threads: the same lines as the documents checked one by one.
    let tree = docbm([
      "check", "-r", document.removingLastComponent.description, copy.removingLastComponent.description,
    ])
    #expect(tree.status == 2)
    for path in [copy, document] {
      let single = try #require(docbm(["check", path.description]).output.split(separator: "\n").first)
      #expect(tree.output.split(separator: "\n").contains(single), "\(single) not in \(tree.output)")
    }

    let refuses = "'docbm repair' would refuse it: "
    for (path, restores) in [(copy, false), (document, true)] {
      let checked = docbm(["check", path.description])
      #expect(checked.status == 2)
      let line = try #require(checked.output.split(separator: "\n").first.map(String.init))
      #expect(line.hasPrefix("keyLost"), "\(line)")
      let repaired = docbm(["repair", path.description])
      if restores {
        #expect(line.hasSuffix("; 'docbm repair' can put it back"), "\(line)")
        #expect(repaired.status == 0 && repaired.output.hasPrefix("restored"), "\(repaired.output)")
      } else {
        let hinted = try #require(
          line.range(of: refuses).map { String(line[$0.upperBound...].prefix { $0 != ";" }) }, "\(line)")
        // A copy that repair will not restore, while the document lost its key too: the
        // hint says so, and names the repair that takes the file for the document.
        #expect(
          line.hasSuffix(
            "no longer carries it: if this file is that document, moved or saved without its key, 'docbm repair --allow-unrecorded' puts the key back"
          ), "\(line)")
        #expect(repaired.status == 2, "\(repaired.output)")
        #expect(repaired.output.hasPrefix("refused"), "\(repaired.output)")
        #expect(repaired.output.contains(hinted), "the hint said \(hinted); repair said \(repaired.output)")
      }
    }
    #expect(docbm(["check", document.description]).status == 0)
  }

  @Test(
    "every verdict's line names only what repair then does: a key put back, a refusal and why, or nothing")
  func everyVerdictAgreesWithRepair() throws {
    let scratch = try Scratch()
    let environment = ["DOCBM_ESCROW_DIR": scratch.path("escrow").description]
    func docbm(_ arguments: [String]) -> ProcessResult {
      run(self.docbm, arguments, environment: environment)
    }
    func bookmark(_ document: FilePath, _ target: FilePath) throws -> String {
      let made = docbm(["bookmark", document.description, target.description])
      try #require(made.status == 0, "\(made.error)")
      return made.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }
    let cat = try scratch.file("project/cat.png")
    let board = try scratch.file("project/board.json", "{}")
    let own = try bookmark(board, cat)
    try scratch.write("{\"cat\": \"\(own)\"}", to: board)
    let other = try scratch.file("project/other.json", "{}")
    let foreign = try bookmark(other, cat)
    try scratch.write("{\"cat\": \"\(foreign)\"}", to: other)

    var cases: [(CheckVerdict, FilePath)] = [(.ok, board)]
    cases.append((.noBookmarks, try scratch.file("project/plain.txt", "text")))
    cases.append(
      (.quotesBookmarks, try scratch.file("notes/history.txt", "docbm resolve board.json \(own)\n")))
    // Keys lost by a plain write: the document itself (repair puts the key back) and a
    // copy elsewhere that lost it (repair refuses).
    let lost = try scratch.file("project/lost.json", "{}")
    let lostBookmark = try bookmark(lost, cat)
    try scratch.write("{\"cat\": \"\(lostBookmark)\"}", to: lost)
    try scratch.folder("elsewhere")
    let lostCopy = scratch.path("elsewhere/lost.json")
    #expect(run("/bin/cp", [lost.description, lostCopy.description]).status == 0)
    #expect(run("/bin/sed", ["-i", "s/cat/kitten/", lost.description]).status == 0)
    cases += [(.keyLost, lost), (.keyLost, lostCopy)]
    // A document with a key of its own, holding only another document's bookmark, and one
    // holding both.
    let mismatched = try scratch.file("project/mismatched.json", "{}")
    _ = try bookmark(mismatched, cat)
    try scratch.write("{\"cat\": \"\(foreign)\"}", to: mismatched)
    let mixed = try scratch.file("project/mixed.json", "{}")
    let mixedOwn = try bookmark(mixed, cat)
    try scratch.write("{\"a\": \"\(mixedOwn)\", \"b\": \"\(foreign)\"}", to: mixed)
    cases += [(.keyMismatch, mismatched), (.mixed, mixed)]
    let fifo = scratch.path("project/pipe")
    try #require(fifo.withCString { mkfifo($0, 0o644) } == 0)
    cases.append((.unreadable, fifo))
    // A copy made without the key beside its bookmark's target, the original still
    // carrying it (adopt); and the same copy made again after an adopted one was deleted
    // (the escrow records the adopted key at its path: forget, then adopt).
    func copyBoard(from board: FilePath = board, to folder: String) throws -> FilePath {
      try scratch.folder(folder)
      for file in [board, board.removingLastComponent.appending("cat.png")] {
        let copied = run("/bin/cp", [file.description, scratch.path(folder).description])
        try #require(copied.status == 0, "\(copied.error)")
      }
      return scratch.path("\(folder)/board.json")
    }
    cases.append((.keyLost, try copyBoard(to: "copies/first")))
    // A project from another machine, whose escrow this one has not imported: the advice
    // is to import that escrow first (or adopt a copy to keep apart).
    let away = try scratch.file("machine2/board.json", "{}")
    let awayCat = try scratch.file("machine2/cat.png")
    let awayMade = run(
      self.docbm, ["bookmark", away.description, awayCat.description],
      environment: ["DOCBM_ESCROW_DIR": scratch.path("escrow2").description])
    try #require(awayMade.status == 0, "\(awayMade.error)")
    try scratch.write(
      "{\"cat\": \"\(awayMade.output.trimmingCharacters(in: .whitespacesAndNewlines))\"}", to: away)
    let arrived = try copyBoard(from: away, to: "arrived")
    cases.append((.keyLost, arrived))

    let promise = "'docbm repair' can put it back"
    let refuses = "'docbm repair' would refuse it: "
    for (verdict, path) in cases {
      let checked = docbm(["check", path.description])
      let line = try #require(checked.output.split(separator: "\n").first.map(String.init))
      let column = String(repeating: " ", count: 22 - verdict.rawValue.count)
      #expect(line.hasPrefix(verdict.rawValue + column + path.description), "\(line)")
      #expect(checked.status == (verdict.isProblem ? 2 : 0), "\(line)")
      let keyBefore = run("/usr/bin/getfattr", ["--only-values", "-n", "user.docbm.key", path.description])
        .output
      let repaired = docbm(["repair", path.description])
      let keyAfter = run("/usr/bin/getfattr", ["--only-values", "-n", "user.docbm.key", path.description])
        .output
      if line.hasSuffix(promise) {
        #expect(repaired.status == 0 && repaired.output.hasPrefix("restored"), "\(line) → \(repaired.output)")
        #expect(keyBefore.isEmpty && !keyAfter.isEmpty, "\(path)")
      } else if let range = line.range(of: refuses) {
        #expect(repaired.status == 2 && repaired.output.hasPrefix("refused"), "\(line) → \(repaired.output)")
        #expect(
          repaired.output.contains(line[range.upperBound...].prefix { $0 != ";" }),
          "\(line) → \(repaired.output)")
        #expect(keyAfter == keyBefore, "\(path)")
        if path == arrived {
          #expect(line.contains("is in no escrow here: if it came from another machine"), "\(line)")
        } else if line.contains("'docbm adopt' give") {
          // The advice, followed: forget the record it names first, when it names one.
          if line.contains("'docbm escrow forget \(path)'") {
            #expect(docbm(["escrow", "forget", path.description]).status == 0)
          }
          let adopted = docbm(["adopt", "--yes", path.description])
          #expect(adopted.status == 0, "\(line) → \(adopted.output)\(adopted.error)")
          #expect(docbm(["check", path.description]).status == 0, "\(path) after adopting")
          if path == scratch.path("copies/first/board.json") {
            // Deleted, and copied again: the escrow still records the adopted key there.
            try FileManager.default.removeItem(atPath: scratch.path("copies/first").description)
            let again = try copyBoard(to: "copies/first")
            let hint = docbm(["check", again.description]).output
            #expect(hint.contains("'docbm escrow forget \(again)'"), "\(hint)")
            #expect(docbm(["escrow", "forget", again.description]).status == 0)
            #expect(docbm(["adopt", "--yes", again.description]).status == 0)
            #expect(docbm(["check", again.description]).status == 0, "\(again) after forget and adopt")
          }
        }
      } else {
        // No promise: repair puts no key anywhere, and says so.
        #expect(!line.contains("'docbm "), "\(line)")
        #expect(!repaired.output.hasPrefix("restored"), "\(line) → \(repaired.output)")
        #expect(keyAfter == keyBefore, "\(path): \(line) → \(repaired.output)")
        #expect(repaired.status == (verdict.isProblem ? 2 : 0), "\(line) → \(repaired.output)")
      }
    }
  }

  @Test(
    "a key lost in a copy gets one remedy, the same from check and repair, and following it works"
  )
  func remediesLeadSomewhere() throws {
    let scratch = try Scratch()
    let environment = ["DOCBM_ESCROW_DIR": scratch.path("escrow").description]
    func docbm(_ arguments: [String], escrow: String? = nil, input: String? = nil) -> ProcessResult {
      run(
        self.docbm, arguments, input: input,
        environment: escrow.map { ["DOCBM_ESCROW_DIR": scratch.path($0).description] } ?? environment)
    }
    // A project whose board holds a bookmark of the image beside it.
    func project(_ name: String) throws -> FilePath {
      _ = try scratch.file("\(name)/cat.png", "img")
      let board = try scratch.file("\(name)/board.json", "{}")
      let made = docbm(["bookmark", board.description, scratch.path("\(name)/cat.png").description])
      try #require(made.status == 0, "\(made.error)")
      let text = made.output.trimmingCharacters(in: .whitespacesAndNewlines)
      try #require(docbm(["save", board.description], input: "[\"\(text)\"]").status == 0)
      return board
    }
    func copy(_ from: String, _ to: String) throws {
      try scratch.folder(FilePath(to).removingLastComponent.description)
      try #require(
        run("/bin/cp", ["-r", scratch.path(from).description, scratch.path(to).description]).status == 0)
    }
    /// Check's hint and repair's refusal for `path`: the same advice in both.
    func advice(_ path: String, escrow: String? = nil) throws -> (hint: String, report: [String: Any]) {
      let line = docbm(["check", scratch.path(path).description], escrow: escrow).output
      let marker = "'docbm repair' would refuse it: "
      let hint = try #require(
        line.range(of: marker).map { String(line[$0.upperBound...].prefix { $0 != "\n" }) })
      let repaired = docbm(["repair", "--json", scratch.path(path).description], escrow: escrow)
      #expect(repaired.status == 2, "\(repaired.output)")
      let object = try #require(
        JSONSerialization.jsonObject(with: Data(repaired.output.utf8)) as? [String: Any], "\(repaired.output)"
      )
      let report = try #require((object["repairs"] as? [[String: Any]])?.first, "\(repaired.output)")
      #expect(report["advice"] as? String == hint, "\(report)")
      #expect((report["message"] as? String)?.hasSuffix("; " + hint) == true, "\(report)")
      // `check --json` carries the same decision; `--explain` gives repair's reason, and
      // with the hint it is repair's whole message.
      let checked = docbm(["check", "--json", scratch.path(path).description], escrow: escrow)
      let checkObject = try #require(
        JSONSerialization.jsonObject(with: Data(checked.output.utf8)) as? [String: Any], "\(checked.output)")
      let prospect = try #require(
        ((checkObject["documents"] as? [[String: Any]])?.first?["repair"]) as? [String: Any],
        "\(checked.output)")
      for field in ["action", "refusal", "remedy", "recordedDocument", "advice", "message"] {
        #expect(prospect[field] as? String == report[field] as? String, "\(field): \(prospect) vs \(report)")
      }
      let explained = docbm(["check", "--explain", scratch.path(path).description], escrow: escrow).output
      let why = try #require(
        explained.split(separator: "\n").first { $0.hasPrefix("    why: ") }?.dropFirst("    why: ".count),
        "\(explained)")
      #expect(report["message"] as? String == "refused: \(why); \(hint)", "\(why)")
      return (hint, report)
    }

    // A whole project copied without its key, the original still there: adopt it.
    _ = try project("p")
    try copy("p", "copies/whole")
    let whole = try advice("copies/whole/board.json")
    #expect(whole.report["remedy"] as? String == "adopt")
    #expect(whole.report["recordedDocument"] as? String == scratch.path("p/board.json").description)
    #expect(whole.hint.contains("'docbm adopt'"))
    let adopted = docbm(["adopt", "--yes", scratch.path("copies/whole/board.json").description])
    #expect(adopted.status == 0, "\(adopted.output)\(adopted.error)")
    #expect(docbm(["check", scratch.path("copies/whole/board.json").description]).status == 0)
    #expect(docbm(["check", scratch.path("p/board.json").description]).status == 0)

    // The board alone copied elsewhere: its bookmarks lead to the project's image, so only
    // the same key makes them work; adopt would find nothing to take.
    try copy("p/board.json", "copies/alone/board.json")
    let alone = try advice("copies/alone/board.json")
    #expect(alone.report["remedy"] as? String == "repairAllowingUnrecorded")
    #expect(alone.hint.contains("--allow-unrecorded"))
    #expect(!alone.hint.contains("'docbm adopt' gives"))
    let allowed = docbm(["repair", "--allow-unrecorded", scratch.path("copies/alone/board.json").description])
    #expect(allowed.status == 0 && allowed.output.hasPrefix("restored"), "\(allowed.output)")

    // A project moved by a tool that dropped the key: nothing carries the key any more.
    _ = try project("q")
    try copy("q", "moved/q")
    try FileManager.default.removeItem(atPath: scratch.path("q").description)
    let moved = try advice("moved/q/board.json")
    #expect(moved.report["remedy"] as? String == "repairAllowingUnrecorded")
    #expect(moved.report["recordedDocument"] as? String == scratch.path("q/board.json").description)
    #expect(moved.hint.contains("no longer carries it"))
    let restored = docbm(["repair", "--allow-unrecorded", scratch.path("moved/q/board.json").description])
    #expect(restored.status == 0 && restored.output.hasPrefix("restored"), "\(restored.output)")

    // On a second machine (another escrow): import first, then check again.
    _ = try project("r")
    try copy("r", "machine2/r")
    let second = try advice("machine2/r/board.json", escrow: "escrow2")
    #expect(second.report["remedy"] as? String == "importEscrow")
    #expect(second.hint.contains("'docbm escrow import FILE'"))
    #expect(second.hint.contains("'docbm adopt'"))
    let export = scratch.path("export.docbm").description
    #expect(docbm(["escrow", "export", export]).status == 0)
    let imported = docbm(["escrow", "import", export], escrow: "escrow2")
    #expect(imported.status == 0, "\(imported.output)\(imported.error)")
    // The copy is now known as a copy of a document that still carries the key.
    let after = try advice("machine2/r/board.json", escrow: "escrow2")
    #expect(after.report["remedy"] as? String == "adopt", "\(after.hint)")
  }

  @Test("inspect lists the bookmarks found in the document's bytes")
  func inspectShowsBookmarks() throws {
    let scratch = try Scratch()
    let document = try scratch.file("doc.json")
    let target = try scratch.file("a.png")
    let text = run(docbm, ["bookmark", document.description, target.description]).output
    #expect(
      run(docbm, ["save", document.description], input: "[\"\(text.trimmingCharacters(in: .newlines))\"]")
        .status == 0)
    let inspected = run(docbm, ["inspect", document.description]).output
    #expect(inspected.contains("bookmarks:    1 found"))
    #expect(inspected.contains("text at 2, key "))
    #expect(inspected.contains("→ \(target): verifies, resolves"))
    #expect(inspected.contains("verdict:      ok"))
  }

  @Test("an explicit FIFO or unix socket operand is unreadable (exit 2), never waited on")
  func specialFileOperands() throws {
    let scratch = try Scratch()
    let fifo = scratch.path("pipe")
    try #require(fifo.withCString { mkfifo($0, 0o644) } == 0)
    let socketPath = scratch.path("sock")
    let socket = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    try #require(socket >= 0)
    defer { close(socket) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (index, byte) in socketPath.bytes.enumerated() { raw[index] = byte }
    }
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(socket, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    try #require(bound == 0)
    for operand in [fifo, socketPath] {
      // A FIFO opened for reading would block until a writer came: the timeout says so.
      let result = run("/usr/bin/timeout", ["10", docbm, "check", operand.description])
      #expect(result.status == 2, "\(operand): \(result.output)\(result.error)")
      #expect(result.output.hasPrefix("unreadable            \(operand): "), "\(result.output)")
      #expect(result.output.contains("not a regular file"))
      #expect(result.output.contains("1 document checked: 0 with a problem, 1 unreadable, 0 fine"))
    }
  }

  @Test("a document past the bookmark limit is incomplete (exit 2) in check, inspect and repair")
  func incompleteDocument() throws {
    let scratch = try Scratch()
    let environment = ["DOCBM_ESCROW_DIR": scratch.path("escrow").description]
    // 10 001 records of the smallest length: framing only, back to back.
    var record: [UInt8] = [0x76, 0x87, 0x1B, 0x99, 0x17, 0x9C, 1, 0, 0, 34]
    record += [UInt8](repeating: 0xCD, count: 24)
    let document = scratch.path("many.bin")
    try Data(Array([[UInt8]](repeating: record, count: 10_001).joined())).write(
      to: URL(fileURLWithPath: document.description))
    let check = run(docbm, ["check", document.description], environment: environment)
    #expect(check.status == 2)
    #expect(check.output.hasPrefix("incomplete            \(document): checking stopped at byte 340000"))
    let json = run(docbm, ["check", "--json", document.description], environment: environment)
    #expect(json.output.contains("\"verdict\" : \"incomplete\""))
    let inspect = run(docbm, ["inspect", document.description], environment: environment)
    #expect(inspect.output.contains("verdict:      incomplete"))
    let repair = run(docbm, ["repair", document.description], environment: environment)
    #expect(repair.status == 2)
    #expect(repair.output.hasPrefix("refused"))
  }

  @Test("on a filesystem without user xattrs (ramfs), only a document with bookmarks is a problem")
  func ramfsDocuments() throws {
    guard Capabilities.canMountPrivately else {
      print("skipped: mounting test filesystems needs root and unshare -m")
      return
    }
    let scratch = try Scratch()
    let source = try scratch.file("source.json")
    let target = try scratch.file("a.png")
    let text = run(docbm, ["bookmark", source.description, target.description]).output
      .trimmingCharacters(in: .whitespacesAndNewlines)
    try #require(text.hasPrefix("docbmRec"))
    let mountPoint = try scratch.folder("ram")
    let script = """
      m='\(mountPoint)'
      mount -t ramfs none "$m" || exit 77
      echo '{"title": "plain"}' > "$m/plain.json"
      echo '["\(text)"]' > "$m/linked.json"
      '\(docbm)' check "$m/plain.json"; echo "status $?"
      '\(docbm)' check "$m/linked.json"; echo "status $?"
      '\(docbm)' check -r "$m" > /dev/null; echo "check -r status $?"
      '\(docbm)' repair -r "$m"; echo "repair -r status $?"
      # The document itself carried to ramfs, its original gone: copied back, it is repaired.
      '\(docbm)' save '\(source)' < "$m/linked.json" || exit 3
      cp '\(source)' "$m/carried.json" && rm '\(source)'
      '\(docbm)' check "$m/carried.json"
      cp "$m/carried.json" '\(source)' && '\(docbm)' repair '\(source)'; echo "copied back status $?"
      """
    let result = run("/usr/bin/unshare", ["-m", "--propagation", "private", "/bin/sh", "-c", script])
    if result.status == 77 {
      print("skipped: ramfs cannot be mounted here (\(result.error))")
      return
    }
    #expect(result.output.contains("noBookmarks           \(mountPoint)/plain.json\n"), "\(result.output)")
    #expect(result.output.contains("status 0\nunsupportedFilesystem \(mountPoint)/linked.json: "))
    #expect(result.output.contains("\nstatus 2\n"), "\(result.output)")
    // repair -r agrees with check -r: the document is refused, and both exit 2.
    #expect(result.output.contains("check -r status 2\n"), "\(result.output)")
    #expect(result.output.contains("refused     \(mountPoint)/linked.json: "), "\(result.output)")
    #expect(result.output.contains("2 documents examined: 0 restored, 1 refused, 1 needed nothing\n"))
    #expect(result.output.contains("repair -r status 2\n"), "\(result.output)")
    #expect(
      result.output.contains(
        "unsupportedFilesystem \(mountPoint)/carried.json: the filesystem has no user extended attributes, so the document can hold no key, but it holds bookmarks; copy it back to \(source), where the escrow records it"
      ), "\(result.output)")
    #expect(result.output.contains("restored    \(source): "), "\(result.output)")
    #expect(result.output.hasSuffix("copied back status 0\n"), "\(result.output)")
  }
}
