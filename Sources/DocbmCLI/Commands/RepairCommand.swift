import DocumentBookmarks
import Foundation

/// `docbm repair DOCUMENT...`: put escrowed keys back; report exactly what was done.
struct RepairCommand {
  let documents: [FilePath]
  /// `--allow-unrecorded`: also repair the user's own copies the escrow never recorded.
  let allowUnrecorded: Bool
  let json: Bool

  private struct Report: Encodable {
    let schemaVersion = JSONReport.schemaVersion
    let repairs: [DocumentRepairer.Report]
  }

  func run(_ console: Console) throws -> Int32 {
    let repairer = DocumentRepairer(
      escrow: .default, policy: DocumentRepairer.Policy(allowsUnrecordedDocuments: allowUnrecorded))
    let repairs = documents.map(repairer.repair)
    if json {
      console.print(JSONReport.render(Report(repairs: repairs)))
    } else {
      for repair in repairs {
        console.print(
          "\(repair.action.rawValue.padding(toLength: 12, withPad: " ", startingAt: 0))\(repair.document): \(repair.message)"
        )
      }
    }
    let refused = repairs.contains { $0.action == .refused }
    return refused ? DocbmCommandLine.ExitStatus.problem : DocbmCommandLine.ExitStatus.success
  }
}
