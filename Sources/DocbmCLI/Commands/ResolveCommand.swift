import DocumentBookmarks

/// `docbm resolve DOCUMENT BOOKMARK`: verify, locate, and say whether it is stale.
///
/// An ambiguous result is not a success: nothing is printed on standard output (a script
/// must not take a guess for the target), the candidates go to standard error (and into
/// `candidates` in JSON), and the exit status is its own (4).
struct ResolveCommand {
  let document: FilePath
  let bookmark: [UInt8]
  let json: Bool

  private struct Report: Encodable {
    let schemaVersion = JSONReport.schemaVersion
    let document: FilePath
    /// Whether one file was found to be the target (`false` for an ambiguous result).
    let resolved: Bool
    let ambiguous: Bool
    let path: FilePath?
    let kind: TargetKind?
    let stale: Bool
    let staleReasons: [StaleReason]
    let refreshed: String?
    /// For an ambiguous result, the files that may be the target.
    let candidates: [Resolution.Candidate]
    let error: ErrorReport?
  }

  func run(_ console: Console) throws -> Int32 {
    let anchored = BookmarkService().documents(anchoredOn: document)
    do {
      let bookmark = try Bookmark.operand(self.bookmark, console: console)
      let resolution = try anchored.resolve(bookmark)
      // The escrow follows documents: this one, verified to carry the key, is recorded
      // where it is now if the escrow holds the key but not this document.
      do {
        try KeyEscrow.default.recordMove(of: bookmark.keyFingerprint, to: document)
      } catch {
        console.printError("warning: the escrow could not record \(document): \(error)")
      }
      let ambiguous = resolution.isAmbiguous
      if json {
        console.print(
          JSONReport.render(
            Report(
              document: document, resolved: !ambiguous, ambiguous: ambiguous,
              path: ambiguous ? nil : resolution.path, kind: ambiguous ? nil : resolution.kind,
              stale: resolution.isStale, staleReasons: resolution.staleReasons,
              refreshed: resolution.refreshed?.text, candidates: resolution.candidates, error: nil)))
      } else {
        if ambiguous {
          console.printError(
            "ambiguous: the bookmark is good, but \(resolution.candidates.count) files may be its target; none was chosen (pick one, and make the bookmark again)"
          )
        } else {
          console.print(resolution.path.description)
        }
        if resolution.isStale {
          let reasons = resolution.staleReasons.map(\.rawValue).joined(separator: ", ")
          console.printError("stale: \(reasons)")
          if let refreshed = resolution.refreshed {
            console.printError("refreshed: \(refreshed.text)")
          }
          for candidate in resolution.candidates {
            console.printError(
              "candidate (\(candidate.basis.rawValue)): \(candidate.path): \(candidate.note)")
          }
        }
      }
      return ambiguous ? DocbmCommandLine.ExitStatus.ambiguous : DocbmCommandLine.ExitStatus.success
    } catch {
      guard json else { throw error }
      console.print(
        JSONReport.render(
          Report(
            document: document, resolved: false, ambiguous: false, path: nil, kind: nil, stale: false,
            staleReasons: [], refreshed: nil, candidates: [], error: ErrorReport(error))))
      return DocbmCommandLine.ExitStatus.failure
    }
  }
}
