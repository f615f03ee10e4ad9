import DocumentBookmarks
import FoundationEssentials

/// `docbm repair PATH...`: put escrowed keys back; report exactly what was done. With
/// `--recursive`, every document under the folders given that `check` finds a problem
/// with is repaired as `repair FILE` would (a lost key put back, or the reason it is
/// not), so that the two agree on which documents are fine and on the exit status.
struct RepairCommand {
  let documents: [FilePath]
  /// `--allow-unrecorded`: also repair the user's own copies the escrow never recorded.
  let allowUnrecorded: Bool
  var recursive = false
  let json: Bool
  /// `--all`: with `--recursive`, also list the documents that needed nothing.
  var listAll = false
  var progress = ProgressMode.automatic

  private struct Report: Encodable {
    let schemaVersion = JSONReport.schemaVersion
    let repairs: [DocumentRepairer.Report]
    let unreadable: [TreeChecker.Unreadable]
  }

  func run(_ console: Console) throws -> Int32 {
    let repairer = DocumentRepairer(
      escrow: .default, policy: DocumentRepairer.Policy(allowsUnrecordedDocuments: allowUnrecorded))
    var repairs: [DocumentRepairer.Report] = []
    var walked = CheckCommand.Walk()
    var examined = 0
    let progressLine = ProgressLine(mode: json ? .never : progress, console: console)
    func report(_ repair: DocumentRepairer.Report) {
      repairs.append(repair)
      guard !json, listAll || !recursive || repair.action != .nothingToDo else { return }
      progressLine.clear()
      console.printResult(RepairCommand.line(for: repair, paths: console.paths))
      progressLine.flushed()
    }
    if recursive {
      // The walk checks every document; those with a problem are repaired (or refused,
      // with the reason), those without need nothing.
      let tree = TreeChecker(checker: DocumentChecker(escrow: .default))
      let walker = CheckCommand(paths: documents, recursive: true, json: json)
      var lost: [FilePath] = []
      walked = walker.walk(
        documents, recursive: true, tree: tree, progress: progressLine,
        found: { check, _ in
          examined += 1
          if check.verdict.isProblem { lost.append(check.document) }
        })
      progressLine.clear()
      for document in lost { report(repairer.repair(document)) }
    } else {
      // Each path named is taken up as `check` takes it up (one rule for both); a folder
      // named without --recursive is a document itself (a folder can carry a key).
      for document in documents {
        if let failure = CheckCommand.operandFailure(document, folders: .documents, command: "repair") {
          walked.operandFailures.append(failure)
          continue
        }
        examined += 1
        report(repairer.repair(document))
      }
    }
    if json {
      console.print(
        JSONReport.render(
          Report(repairs: repairs, unreadable: walked.operandFailures + walked.unreadableFolders)))
    } else {
      for entry in walked.unreadableFolders {
        console.printResult(CheckCommand.line(unreadable: entry, column: 12))
      }
      for entry in walked.operandFailures {
        console.printError(CheckCommand.line(unreadable: entry, column: 12))
      }
      if recursive {
        let restored = repairs.filter { $0.action == .restored }.count
        let refused = repairs.filter { $0.action == .refused }.count
        var summary =
          "\(count(examined, "document")) examined: \(restored) restored, \(refused) refused, \(examined - restored - refused) needed nothing"
        if !walked.unreadableFolders.isEmpty {
          let its = walked.unreadableFolders.count == 1 ? "its" : "their"
          summary +=
            "; \(count(walked.unreadableFolders.count, "folder")) could not be read, so \(its) documents were not examined"
        }
        console.print(summary)
      }
    }
    return walked.exitStatus(problems: repairs.count { $0.action == .refused })
  }

  /// `restored    PATH: what was done`. The action is the line's first word, so a message
  /// that begins with it (`refused: …`) does not say it twice.
  static func line(for repair: DocumentRepairer.Report, paths: DisplayPaths = .asGiven) -> String {
    let action = repair.action.rawValue
    var message = Substring(paths.shown(repair.message))
    if message.hasPrefix(action + ": ") { message = message.dropFirst(action.count + 2) }
    return "\(action.padded(to: 12))\(repair.document): \(message)"
  }
}
