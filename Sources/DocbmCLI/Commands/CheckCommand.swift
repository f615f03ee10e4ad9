import DocbmSystem
import DocumentBookmarks
import FoundationEssentials

/// `docbm check PATH... [--recursive]`: one verdict per document.
///
/// Documents named one by one are each listed; folders walked with `--recursive` list
/// only the documents with a problem (as `git fsck` and `grep -r` do) unless `--all`.
struct CheckCommand {
  let paths: [FilePath]
  let recursive: Bool
  let json: Bool
  /// `--all`: list every document, also the fine ones, when walking folders.
  var listAll = false
  var progress = ProgressMode.automatic
  /// How far the bookmarks' targets are looked for (`--search`, `--search-time`).
  var search = SearchBudget.standard
  /// `--explain`: a line under each document whose key was lost with repair's reason.
  var explain = false

  /// What a walk found: the counts for the summary and the documents with a problem.
  struct Tally {
    var checked = 0
    /// How many documents have a problem other than being unreadable.
    var problems = 0
    /// The first ``namedProblems`` of them, named again at the end of a long list (only
    /// those: memory stays flat whatever the tree).
    var firstProblems: [FilePath] = []
    /// Documents that could not be read.
    var unreadableDocuments = 0
    /// Folders met in the walk that could not be listed (their documents are not counted).
    var unreadableFolders = 0
    var fine: Int { checked - problems - unreadableDocuments }

    static let namedProblems = 10

    mutating func addProblem(_ document: FilePath) {
      problems += 1
      if firstProblems.count < Tally.namedProblems { firstProblems.append(document) }
    }
  }

  func run(_ console: Console) throws -> Int32 {
    // The hints are decided as repair decides (the same rules, nothing written), beside
    // each check, from the same reading of the escrow; JSON carries them as fields.
    // What the walk finds is written to the escrow only after it (the moves, below), so
    // its reads may share a read transaction.
    let tree = TreeChecker(
      repairer: DocumentRepairer(escrow: .default, searchBudget: search), sharingEscrowReads: true)
    let checker = tree.checker
    for problem in checker.escrowProblems {
      console.printError("warning: the escrow cannot be used: \(problem)")
    }
    let listsEveryDocument = listAll || !recursive
    // JSON is written as the checks arrive: memory stays flat whatever the tree's size.
    var stream = CheckJSONStream(console: console)
    var tally = Tally()
    var problemCount = 0
    let progressLine = ProgressLine(mode: json ? .never : progress, console: console)
    // Documents the escrow records, found by their identity at other paths (moved or
    // renamed): recorded at the end, in one transaction, so that repair finds them there.
    var moves: [DocumentCheck] = []
    var portalExportsSaid: Set<String> = []
    let walked = walk(
      paths, recursive: recursive, tree: tree, progress: progressLine,
      found: { check, prospect in
        tally.checked += 1
        if check.verdict.isProblem { problemCount += 1 }
        if check.verdict == .unreadable {
          tally.unreadableDocuments += 1
        } else if check.verdict.isProblem {
          tally.addProblem(check.document)
        }
        if checker.isUnrecordedMove(check) { moves.append(check) }
        if json {
          stream.add(check, prospect: prospect)
        } else if listsEveryDocument || check.verdict.isProblem {
          progressLine.clear()
          // The portal's note is said in full once per export; later lines refer to it.
          let export = check.portalDocument.map { "\($0.documentID) \($0.appID ?? "")" }
          let said = export.map { !portalExportsSaid.insert($0).inserted } ?? false
          console.printResult(
            CheckCommand.line(
              for: check, hint: CheckCommand.hint(from: prospect), paths: console.paths, portalNoted: said))
          if explain, let reason = CheckCommand.reason(from: prospect) {
            console.printResult("    why: " + console.paths.shown(reason))
          }
          progressLine.flushed()
        }
      })
    progressLine.clear()
    for failure in checker.recordMoves(moves) {
      console.printError("warning: the escrow could not record a document: \(commandLineText(failure))")
    }
    tally.unreadableFolders = walked.unreadableFolders.count
    if json {
      stream.finish(problems: problemCount, unreadable: walked.operandFailures + walked.unreadableFolders)
    } else {
      for entry in walked.unreadableFolders { console.printResult(CheckCommand.line(unreadable: entry)) }
      for entry in walked.operandFailures { console.printError(CheckCommand.line(unreadable: entry)) }
      for line in CheckCommand.summary(tally, listedEveryDocument: listsEveryDocument, command: "check") {
        console.print(line)
      }
    }
    return walked.exitStatus(problems: problemCount)
  }

  /// What a walk could not read: the operands it could not check at all, and the folders
  /// it met and could not list.
  struct Walk {
    /// Operands that could not be looked at (gone, a symbolic link) or are folders named
    /// without `--recursive`: the command failed for them (exit 1).
    var operandFailures: [TreeChecker.Unreadable] = []
    /// Folders that could not be listed (an operand or one met inside it): a problem the
    /// check found, as an unreadable document is (exit 2).
    var unreadableFolders: [TreeChecker.Unreadable] = []

    /// The exit status of `check` and `repair` alike: 1 when an operand could not be
    /// checked, else 2 when `problems` (documents with a problem, or refused) or a folder
    /// could not be read, else 0.
    func exitStatus(problems: Int) -> Int32 {
      if !operandFailures.isEmpty { return DocbmCommandLine.ExitStatus.failure }
      if problems > 0 || !unreadableFolders.isEmpty { return DocbmCommandLine.ExitStatus.problem }
      return DocbmCommandLine.ExitStatus.success
    }
  }

  /// Checks each path (a folder only with `recursive`) with `tree`, calling `found` per
  /// document with its repair prospect (when `tree` decides them and the key was lost);
  /// returns what could not be read.
  func walk(
    _ paths: [FilePath], recursive: Bool, tree: TreeChecker, progress: ProgressLine,
    found: (DocumentCheck, DocumentRepairer.Report?) -> Void
  ) -> Walk {
    var walk = Walk()
    for path in paths {
      if let failure = Self.operandFailure(path, folders: recursive ? .walked : .refused, command: "check") {
        walk.operandFailures.append(failure)
        continue
      }
      walk.unreadableFolders += tree.check(
        path, progress: progress.show, found: found)
    }
    return walk
  }

  /// What a folder named on the command line is to a command.
  enum NamedFolders {
    /// Walked for its documents (`--recursive`).
    case walked
    /// A document itself (`repair` without `--recursive`: a folder can carry a key).
    case documents
    /// Refused: a folder needs `--recursive`.
    case refused
  }

  /// Why the path named on the command line cannot be taken up by `command` at all (the
  /// command fails for it: exit 1, said on standard error), or `nil` when it can: it cannot
  /// be looked at (it does not exist, a folder above it cannot be searched), it is a
  /// symbolic link (never followed), or it is a folder that `folders` refuses. A FIFO,
  /// socket or device can be taken up: it is a document that is `unreadable` (exit 2).
  /// `check` and `repair` decide with this one rule.
  static func operandFailure(
    _ path: FilePath, folders: NamedFolders, command: String
  ) -> TreeChecker.Unreadable? {
    let status: FileStatus
    do {
      status = try FileStatus.of(path, followSymlinks: false)
    } catch {
      return .init(path: path, message: DocbmError(error, operation: .search, path: path).message)
    }
    switch status.kind {
    case .symbolicLink:
      return .init(
        path: path, message: "\(path) is a symbolic link, which is never followed; \(command) its target")
    case .directory where folders == .refused:
      return .init(
        path: path, message: "\(path) is a folder; use --recursive (-r) to \(command) the documents in it")
    default:
      return nil
    }
  }

  /// A folder's line in the results, as an unreadable document's: the verdict, its path
  /// (from `column` on) and why.
  static func line(unreadable entry: TreeChecker.Unreadable, column: Int = pathColumn) -> String {
    let name = CheckVerdict.unreadable.rawValue
    return name.padded(to: column) + "\(entry.path): \(entry.message)"
  }

  /// The summary: the counts, without overlap (an unreadable document is not also counted
  /// as a problem), and where to find the documents with a problem.
  static func summary(_ tally: Tally, listedEveryDocument: Bool, command: String) -> [String] {
    var parts = ["\(tally.problems) with a problem"]
    if tally.unreadableDocuments > 0 { parts.append("\(tally.unreadableDocuments) unreadable") }
    parts.append("\(tally.fine) fine")
    var summary = "\(count(tally.checked, "document")) checked: \(parts.joined(separator: ", "))"
    if tally.unreadableFolders > 0 {
      let its = tally.unreadableFolders == 1 ? "its" : "their"
      summary +=
        "; \(count(tally.unreadableFolders, "folder")) could not be read, so \(its) documents were not checked"
    }
    var lines = [summary]
    if !listedEveryDocument {
      lines.append(
        "(only documents with a problem are listed; 'docbm \(command) --all' lists every document)")
    } else if tally.problems > 0 && tally.checked > 20 {
      // A long list scrolls away: name the documents with a problem again at its end.
      let named = tally.firstProblems.map(\.description)
      let more = tally.problems > named.count ? ", and \(tally.problems - named.count) more" : ""
      lines.append("with a problem: \(named.joined(separator: ", "))\(more)")
    }
    return lines
  }

  /// What the next command will do for a document whose key was lost, as repair decided
  /// it (`prospect`, ``DocumentRepairer/prospect(_:)``): put it back, or refuse; and the
  /// one remedy that fits (``DocumentRepairer/Report/advice``). The whole reason is
  /// repair's message (`docbm repair`, or its `--json`).
  static func hint(from prospect: DocumentRepairer.Report?) -> String? {
    guard let prospect else { return nil }
    switch prospect.action {
    case .restored: return "'docbm repair' can put it back"
    case .nothingToDo: return nil
    case .refused:
      if let advice = prospect.advice {
        // The verdict already says that the document can hold no key where it is.
        return prospect.refusal == .unsupportedFilesystem
          ? advice : "'docbm repair' would refuse it: \(advice)"
      }
      var reason = Substring(prospect.message)
      if reason.hasPrefix("refused: ") { reason = reason.dropFirst("refused: ".count) }
      return "'docbm repair' would refuse it: \(reason)"
    }
  }

  /// Why repair decides for a document whose key was lost as ``hint(from:)`` says
  /// (`--explain`): repair's message without the remedy the hint already gives; `nil`
  /// when there is no hint.
  static func reason(from prospect: DocumentRepairer.Report?) -> String? {
    guard let prospect, prospect.action != .nothingToDo else { return nil }
    var reason = Substring(prospect.message)
    if reason.hasPrefix("refused: ") { reason = reason.dropFirst("refused: ".count) }
    if prospect.action == .refused, let advice = prospect.advice, reason.hasSuffix("; " + advice) {
      reason = reason.dropLast(advice.count + 2)
    }
    return String(reason)
  }

  /// The column where paths start after the verdicts.
  private static let pathColumn = 22

  /// A document's line: its verdict, its path and, for a problem, the sentence and `hint`,
  /// built as bytes and made a `String` once: a tree check prints a line for every
  /// document with a problem. Its paths are shown as `paths` says; `portalNoted` says that
  /// an earlier line gave the portal's note for this document's export in full.
  static func line(
    for check: DocumentCheck, hint: String? = nil, paths: DisplayPaths = .asGiven, portalNoted: Bool = false
  ) -> String {
    let name = check.verdict.rawValue
    var line: [UInt8] = []
    line.reserveCapacity(256)
    line.append(contentsOf: name.utf8)
    line.append(
      contentsOf: repeatElement(UInt8(ascii: " "), count: pathColumn - min(name.utf8.count, pathColumn - 1)))
    line.append(contentsOf: check.document.description.utf8)
    let count = check.bookmarks.count
    if check.verdict == .ok || check.verdict == .noBookmarks {
      if count > 0 {
        line.append(contentsOf: "  (".utf8)
        line.append(contentsOf: DocbmCLI.count(count, "bookmark").utf8)
        line.append(UInt8(ascii: ")"))
      }
    } else {
      line.append(contentsOf: ": ".utf8)
      line.append(contentsOf: paths.shown(check.message).utf8)
      if let hint { line.append(contentsOf: "; \(paths.shown(hint))".utf8) }
    }
    line.append(contentsOf: portalNote(check, brief: portalNoted).utf8)
    return String(decoding: line, as: UTF8.self)
  }

  /// Said of a document reached through the Documents portal: in full, or, `brief`, as a
  /// reference to what an earlier line of the same export said.
  static func portalNote(_ check: DocumentCheck, brief: Bool = false) -> String {
    guard let portal = check.portalDocument else { return "" }
    if brief { return "  (through the Documents portal, document \(portal.documentID), as above)" }
    return "  (\(InspectCommand.portalLine(portal)))"
  }
}

/// "1 document", "2 documents".
func count(_ number: Int, _ noun: String) -> String {
  "\(number) \(noun)\(number == 1 ? "" : "s")"
}
