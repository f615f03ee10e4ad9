import DocumentBookmarks
import Foundation

/// `docbm save DOCUMENT`: replace the document with standard input (or `--from FILE`)
/// through `replaceDocument`.
struct SaveCommand {
  let document: FilePath
  let source: FilePath?
  let splitHardLinks: Bool
  let allowOwnerChange: Bool
  let json: Bool

  private struct Report: Encodable {
    let schemaVersion = JSONReport.schemaVersion
    let document: FilePath
    let saved: Bool
    let size: Int?
    let error: ErrorReport?
    let step: SaveStep?
  }

  func run(_ console: Console) throws -> Int32 {
    let anchored = BookmarkService(escrow: .default).documents(anchoredOn: document)
    let options = ReplaceOptions(
      hardLinks: splitHardLinks ? .split : .refuse, ownerChange: allowOwnerChange ? .allow : .refuse)
    do {
      let contents = try readContents(console)
      try anchored.replaceDocument(with: contents, options: options)
      if json {
        console.print(
          JSONReport.render(
            Report(document: document, saved: true, size: contents.count, error: nil, step: nil)))
      }
      return DocbmCommandLine.ExitStatus.success
    } catch {
      guard json else { throw error }
      console.print(
        JSONReport.render(
          Report(document: document, saved: false, size: nil, error: ErrorReport(error), step: error.step)))
      return DocbmCommandLine.ExitStatus.failure
    }
  }

  private func readContents(_ console: Console) throws(DocbmError) -> Data {
    guard let source else { return Data(try console.readAllInput()) }
    return Data(
      try mappingSystemErrors(.scan, path: source) { () throws(SystemCallError) in
        try readWholeFile(source, limit: .max)
      })
  }
}
