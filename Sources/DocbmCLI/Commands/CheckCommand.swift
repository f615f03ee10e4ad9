import DocumentBookmarks
import Foundation
import Glibc

/// `docbm check PATH... [--recursive]`: one verdict per document.
struct CheckCommand {
  let paths: [FilePath]
  let recursive: Bool
  let json: Bool

  private struct Report: Encodable {
    let schemaVersion = JSONReport.schemaVersion
    let documents: [DocumentCheck]
    let unreadable: [TreeChecker.Unreadable]
    let problems: Int
  }

  func run(_ console: Console) throws -> Int32 {
    let checker = DocumentChecker(escrow: .default)
    for problem in checker.escrowProblems { console.printError("warning: escrow entry skipped: \(problem)") }
    let tree = TreeChecker(checker: checker)
    let showProgress = !json && isatty(2) == 1 && getenv("NO_COLOR") == nil
    // Text output streams: only JSON output keeps every check until the end.
    var checks: [DocumentCheck] = []
    var checked = 0
    var problems = 0
    var unreadable: [TreeChecker.Unreadable] = []
    // Documents seen with an escrowed key where the escrow does not know them (moved, or
    // copies that kept their key): recorded at the end, so that repair can find them.
    var sightings: [DocumentCheck] = []
    for path in paths {
      let kind = (try? FileStatus.of(path, followSymlinks: false))?.kind
      if kind == .directory && !recursive {
        unreadable.append(
          .init(path: path, message: "\(path) is a folder; use --recursive to check the documents in it"))
        continue
      }
      unreadable += tree.check(
        path,
        progress: { progress in
          if showProgress { console.writeError("\rchecked \(progress.documentsChecked) documents…") }
        },
        found: { check in
          checked += 1
          if check.verdict.isProblem { problems += 1 }
          if checker.isUnrecordedSighting(check) { sightings.append(check) }
          if json { checks.append(check) } else { console.print(line(for: check)) }
        })
    }
    if showProgress { console.writeError("\r\u{1B}[K") }
    for failure in checker.recordSightings(sightings) {
      console.printError("warning: the escrow could not record a document: \(failure)")
    }
    if json {
      console.print(JSONReport.render(Report(documents: checks, unreadable: unreadable, problems: problems)))
    } else {
      for entry in unreadable { console.printError("unreadable: \(entry.path): \(entry.message)") }
      console.print("\(checked) documents checked, \(problems) with problems, \(unreadable.count) unreadable")
    }
    if !unreadable.isEmpty { return DocbmCommandLine.ExitStatus.failure }
    return problems == 0 ? DocbmCommandLine.ExitStatus.success : DocbmCommandLine.ExitStatus.problem
  }

  /// The spaces that align the paths after the verdicts.
  private static let padding = Substring(String(repeating: " ", count: 22))

  private func line(for check: DocumentCheck) -> String {
    let name = check.verdict.rawValue
    let verdict = name + CheckCommand.padding.dropFirst(min(name.utf8.count, 21))
    let count = check.bookmarks.count
    if check.verdict == .ok || check.verdict == .noBookmarks {
      return "\(verdict)\(check.document)"
        + (count > 0 ? "  (\(count) bookmark\(count == 1 ? "" : "s"))" : "")
    }
    return "\(verdict)\(check.document): \(check.message)"
  }
}
