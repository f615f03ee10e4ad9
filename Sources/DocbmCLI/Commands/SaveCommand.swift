import DocbmSystem
import DocumentBookmarks
import FoundationEssentials

/// `docbm save DOCUMENT`: replace the document with standard input (or `--from FILE`)
/// through `replaceDocument`.
struct SaveCommand {
  let document: FilePath
  let source: FilePath?
  /// Whether the input was named (`--from FILE` or `--from -`): then standard input may be
  /// a terminal.
  let inputNamed: Bool
  /// `--allow-empty`: save empty contents (otherwise refused before anything is written).
  let allowEmpty: Bool
  let splitHardLinks: Bool
  let allowOwnerChange: Bool
  /// `--allow-read-only`: a document whose permissions mark it read-only is saved anyway.
  let allowReadOnly: Bool
  /// `--in-place`: a single file exported through the Documents portal is written in place.
  let inPlace: Bool
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
      hardLinks: splitHardLinks ? .split : .refuse, ownerChange: allowOwnerChange ? .allow : .refuse,
      portalFileDocuments: inPlace ? .writeInPlace : .refuse,
      readOnlyDocument: allowReadOnly ? .allow : .refuse)
    do throws(DocbmError) {
      if source == nil, !inputNamed, console.inputIsTerminal {
        throw DocbmError(
          .notFound, path: document,
          message:
            "standard input is a terminal, so there are no new contents to save; pipe them in (docbm save \(DocbmCommandLine.shellQuoted(document.description)) < new-contents), use --from FILE, or --from - to type them (end with Ctrl-D); nothing was done"
        )
      }
      let contents = try readContents(console)
      if contents.isEmpty, !allowEmpty {
        throw DocbmError(
          .nothingWritten, path: document,
          message:
            "the new contents are empty, and saving them would empty \(document); pass --allow-empty to save an empty document; nothing was done"
        )
      }
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
