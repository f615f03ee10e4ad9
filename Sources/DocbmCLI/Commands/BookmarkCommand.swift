import DocumentBookmarks

/// `docbm bookmark DOCUMENT TARGET...`: make a bookmark to each target and print its text
/// form, one per line.
///
/// With one target, a failure is the command's (its error, exit status 1). With several,
/// each target gets its line in order: a target that fails leaves an empty line (with
/// `--json`, an object with `error`), its error goes to standard error, the others are
/// still made, and the exit status is 1 when any failed.
struct BookmarkCommand {
  let document: FilePath
  let targets: [FilePath]
  let json: Bool

  private struct Report: Encodable {
    let schemaVersion = JSONReport.schemaVersion
    let document: FilePath
    let target: FilePath
    let keyFingerprint: KeyFingerprint?
    let bookmark: String?
    let size: Int?
    let error: ErrorReport?

    /// The report of a bookmark made.
    static func made(_ bookmark: Bookmark, target: FilePath, document: FilePath) -> Report {
      Report(
        document: document, target: target, keyFingerprint: bookmark.keyFingerprint, bookmark: bookmark.text,
        size: bookmark.bytes.count, error: nil)
    }
  }

  func run(_ console: Console) throws -> Int32 {
    let anchored = BookmarkService(escrow: nil).documents(anchoredOn: document)
    // A document the escrow records, which lost its key, gets that key back, never a new one.
    try anchored.restoreEscrowedKey(.default)
    var escrowed = Set<KeyFingerprint>()
    guard targets.count > 1 else {
      let bookmark = try make(targets[0], anchored, escrowed: &escrowed, console)
      print(Report.made(bookmark, target: targets[0], document: document), pretty: true, console)
      return DocbmCommandLine.ExitStatus.success
    }
    var failed = false
    for target in targets {
      do {
        let bookmark = try make(target, anchored, escrowed: &escrowed, console)
        print(Report.made(bookmark, target: target, document: document), pretty: false, console)
      } catch {
        failed = true
        console.printError("Error: \(commandLineText(error))")
        if json {
          console.print(
            JSONReport.renderLine(
              Report(
                document: document, target: target, keyFingerprint: nil, bookmark: nil, size: nil,
                error: ErrorReport(error))))
        } else {
          console.print("")
        }
      }
    }
    return failed ? DocbmCommandLine.ExitStatus.failure : DocbmCommandLine.ExitStatus.success
  }

  /// One bookmark, its key escrowed (once per key).
  private func make(
    _ target: FilePath, _ anchored: AnchoredDocument, escrowed: inout Set<KeyFingerprint>, _ console: Console
  ) throws(DocbmError) -> Bookmark {
    let (bookmark, key) = try anchored.makeSignedBookmark(to: target)
    // The command line escrows the key it signed with (never the one the path carries
    // afterwards, which a racing save could have changed), so that `docbm repair` can
    // restore it. An escrow that cannot be written does not undo the bookmark: a warning.
    guard escrowed.insert(key.fingerprint).inserted else { return bookmark }
    do {
      if try !KeyEscrow.default.deposit(key, document: document) {
        console.printError(
          "warning: the key of \(document) was not escrowed, so repair cannot put it back if a save drops it: the document is not a file of yours (the escrow keeps keys of your own documents only)"
        )
      }
    } catch {
      console.printError(
        "warning: the key of \(document) was not escrowed, so repair cannot put it back if a save drops it: \(commandLineText(error))"
      )
    }
    return bookmark
  }

  private func print(_ report: Report, pretty: Bool, _ console: Console) {
    if !json {
      console.print(report.bookmark ?? "")
    } else {
      console.print(pretty ? JSONReport.render(report) : JSONReport.renderLine(report))
    }
  }

}
