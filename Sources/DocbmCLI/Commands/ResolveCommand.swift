import DocumentBookmarks

/// `docbm resolve DOCUMENT BOOKMARK`: verify, locate, and say whether it is stale.
///
/// An ambiguous result is not a success: nothing is printed on standard output (a script
/// must not take a guess for the target), the candidates go to standard error (and into
/// `candidates` in JSON), and the exit status is its own (4).
///
/// With `-` for BOOKMARK, standard input holds bookmarks, one text form per line, resolved
/// together (``AnchoredDocument/resolve(_:)-([Bookmark])``): one line of output per line
/// of input, in order: the path, or an empty line for a bookmark that failed or is
/// ambiguous (with `--json`, one object per line); the notes on standard error start with
/// `line N:`. Exit status: 1 when any failed, else 4 when any is ambiguous, else 0.
struct ResolveCommand {
  let document: FilePath
  let bookmark: [UInt8]
  /// How far a target that left its recorded paths is looked for.
  let search: SearchBudget
  /// `--choose PATH`: the candidate the user takes when the result is ambiguous.
  var choice: FilePath? = nil
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
    /// Whether the target is in a Trash, stale or not.
    let inTrash: Bool
    let refreshed: String?
    /// For an ambiguous result, the files that may be the target.
    let candidates: [Resolution.Candidate]
    let error: ErrorReport?
  }

  func run(_ console: Console) throws -> Int32 {
    if bookmark == [UInt8(ascii: "-")] { return try runLines(console) }
    // No escrow here: the command itself records the document in the escrow, below, for
    // the key its bookmark names.
    let anchored = BookmarkService(searchBudget: search, escrow: nil).documents(anchoredOn: document)
    do {
      let bookmark = try Bookmark.operand(self.bookmark, console: console)
      let resolution =
        if let choice { try anchored.resolve(bookmark, choosing: choice) } else {
          try anchored.resolve(bookmark)
        }
      // The escrow follows documents: this one, verified to carry the key, is recorded
      // where it is now if the escrow holds the key but not this document.
      do {
        try KeyEscrow.default.recordMove(of: bookmark.keyFingerprint, to: document)
      } catch {
        console.printError("warning: the escrow could not record \(document): \(commandLineText(error))")
      }
      if json {
        console.print(JSONReport.render(report(resolution)))
      } else {
        if !resolution.isAmbiguous { console.print(resolution.path.description) }
        printNotes(resolution, prefix: "", console)
      }
      if let choice, resolution.isAmbiguous {
        console.printError("\(choice) is none of the candidates: nothing was chosen")
      }
      return resolution.isAmbiguous
        ? DocbmCommandLine.ExitStatus.ambiguous : DocbmCommandLine.ExitStatus.success
    } catch {
      guard json else { throw error }
      console.print(JSONReport.render(report(error)))
      return DocbmCommandLine.ExitStatus.failure
    }
  }

  private func report(_ resolution: Resolution) -> Report {
    let ambiguous = resolution.isAmbiguous
    return Report(
      document: document, resolved: !ambiguous, ambiguous: ambiguous,
      path: ambiguous ? nil : resolution.path, kind: ambiguous ? nil : resolution.kind,
      stale: resolution.isStale, staleReasons: resolution.staleReasons,
      inTrash: !ambiguous && resolution.isInTrash, refreshed: resolution.refreshed?.text,
      candidates: resolution.candidates, error: nil)
  }

  private func report(_ error: DocbmError) -> Report {
    Report(
      document: document, resolved: false, ambiguous: false, path: nil, kind: nil, stale: false,
      staleReasons: [], inTrash: false, refreshed: nil, candidates: [], error: ErrorReport(error))
  }

  /// What standard error says of a resolution besides its path: ambiguity and its
  /// candidates, staleness and the refreshed bookmark; each line after `prefix`.
  private func printNotes(_ resolution: Resolution, prefix: String, _ console: Console) {
    if resolution.isAmbiguous {
      console.printError(
        "\(prefix)ambiguous: the bookmark is good, but \(resolution.candidates.count) files may be its target; none was chosen (take one with 'docbm resolve --choose PATH': its refreshed bookmark keeps the choice)"
      )
    }
    if resolution.isInTrash, !resolution.isAmbiguous, !resolution.staleReasons.contains(.inTrash) {
      console.printError("\(prefix)in the Trash: restore it there, or it goes when the Trash is emptied")
    }
    guard resolution.isStale else { return }
    let reasons = resolution.staleReasons.map(\.rawValue).joined(separator: ", ")
    console.printError("\(prefix)stale: \(reasons)")
    if let refreshed = resolution.refreshed {
      console.printError("\(prefix)refreshed: \(refreshed.text)")
    }
    for candidate in resolution.candidates {
      console.printError(
        "\(prefix)candidate (\(candidate.basis.rawValue)): \(candidate.path): \(candidate.note)")
    }
  }

  /// The bookmarks of standard input, one per line, resolved in one call.
  private func runLines(_ console: Console) throws -> Int32 {
    let input = try console.readAllInput()
    var lines = input.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
    if lines.last?.isEmpty == true { lines.removeLast() }
    // A line that is no bookmark keeps its place: its result is its error.
    let parsed = lines.map { line in
      Result { () throws(DocbmError) in try Bookmark(text: String(decoding: line, as: UTF8.self)) }
    }
    let bookmarks = parsed.compactMap { try? $0.get() }  // the others keep their errors, in place
    // No escrow here: the command itself records the document in the escrow, below, for
    // each key its bookmarks name.
    let anchored = BookmarkService(searchBudget: search, escrow: nil).documents(anchoredOn: document)
    var resolved = anchored.resolve(bookmarks)[...]
    let results = parsed.map { bookmark in
      bookmark.flatMap { _ in resolved.popFirst()! }
    }
    var escrowed = Set<KeyFingerprint>()
    var failed = false
    var ambiguous = false
    for (index, (bookmark, result)) in zip(parsed, results).enumerated() {
      let line = index + 1
      switch result {
      case .success(let resolution):
        // The escrow follows the document, as for one bookmark: once per key. (A line that
        // resolved parsed, so `get()` succeeds.)
        if let fingerprint = try? bookmark.get().keyFingerprint, escrowed.insert(fingerprint).inserted {
          do {
            try KeyEscrow.default.recordMove(of: fingerprint, to: document)
          } catch {
            console.printError("warning: the escrow could not record \(document): \(commandLineText(error))")
          }
        }
        ambiguous = ambiguous || resolution.isAmbiguous
        if json {
          console.print(JSONReport.renderLine(report(resolution)))
        } else {
          console.print(resolution.isAmbiguous ? "" : resolution.path.description)
          printNotes(resolution, prefix: "line \(line): ", console)
        }
      case .failure(let error):
        failed = true
        if json {
          console.print(JSONReport.renderLine(report(error)))
        } else {
          console.print("")
          console.printError("line \(line): Error: \(commandLineText(error))")
        }
      }
    }
    if failed { return DocbmCommandLine.ExitStatus.failure }
    return ambiguous ? DocbmCommandLine.ExitStatus.ambiguous : DocbmCommandLine.ExitStatus.success
  }
}
