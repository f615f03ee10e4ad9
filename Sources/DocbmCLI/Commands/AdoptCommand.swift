import DocbmSystem
import DocumentBookmarks
import FoundationEssentials

/// `docbm adopt DOCUMENT`: shows what the document's unverifiable bookmarks point at, asks,
/// and makes them the document's own: new bookmarks in place of each text form, the
/// document saved with `replaceDocument`.
struct AdoptCommand {
  let document: FilePath
  let yes: Bool
  let json: Bool

  private struct Report: Encodable {
    struct Item: Encodable {
      let offset: UInt64
      let form: BookmarkForm
      let keyFingerprint: KeyFingerprint
      let recordedRelativePath: FilePath
      let recordedDocument: FilePath?
      /// The target's real path (every link resolved).
      let target: FilePath?
      /// Whether a symbolic link on the way leads elsewhere than the recorded path reads.
      let throughLink: Bool
      /// Whether the target lies outside the document's folder.
      let outsideFolder: Bool
      /// The new bookmark's text form, once adopted.
      let bookmark: String?
      /// Whether the document now holds the new bookmark in the old one's place.
      let rewritten: Bool
    }
    let schemaVersion = JSONReport.schemaVersion
    let document: FilePath
    let adopted: Bool
    let bookmarks: [Item]
  }

  func run(_ console: Console) throws -> Int32 {
    let anchored = BookmarkService(escrow: .default).documents(anchoredOn: document)
    let candidates = try anchored.adoptionCandidates()
    guard !candidates.isEmpty else {
      if json {
        console.print(JSONReport.render(Report(document: document, adopted: false, bookmarks: [])))
      } else {
        console.printFitted(
          "Nothing to adopt: every bookmark in \(document) verifies with its key (or it holds none).")
      }
      return DocbmCommandLine.ExitStatus.success
    }
    let found = candidates.filter { $0.target != nil }
    if !json {
      let key = try anchored.keyFingerprint().map { "its key \($0)" } ?? "no key"
      console.printFitted(
        "\(document) has \(key) and holds \(count(candidates.count, "bookmark")) it cannot verify. Each points at what its recorded path relative to the document names here:"
      )
      for candidate in candidates {
        let made = candidate.recordedDocument.map { ", made on \($0)" } ?? ""
        var notes = [candidate.targetKind?.rawValue ?? "file"]
        if candidate.reachedThroughLink { notes.append("through a symbolic link") }
        if candidate.isOutsideDocumentFolder { notes.append("outside the document's folder") }
        let there = candidate.target.map { "\($0) (\(notes.joined(separator: ", ")))" } ?? "nothing there"
        console.printFitted(
          "  \(candidate.found.form.rawValue) at byte \(candidate.found.offset), key \(candidate.keyFingerprint)\(made): \(candidate.recordedRelativePath) -> \(there)"
        )
      }
    }
    guard !found.isEmpty else {
      if json {
        console.print(JSONReport.render(report(candidates, adopted: nil, rewritten: [])))
      } else {
        console.printFitted("None of their targets is there: nothing to adopt.")
      }
      return DocbmCommandLine.ExitStatus.failure
    }
    // A key never goes on another user's file: they could read it, and the save that
    // follows would be refused, leaving it there. A document that cannot be looked at
    // fails at the adoption itself, with its error.
    if let owner = (try? FileStatus.of(document, followSymlinks: true))?.owner,
      owner != ProcessCredentials.effectiveUser
    {
      throw DocbmError(
        .permissionDenied, path: document,
        message:
          "\(document) belongs to user \(owner), not to you: adopting would give it a key its owner and anyone who can read it would know; ask its owner to adopt it. Nothing was changed"
      )
    }
    let chosen = choose(found, console)
    guard !chosen.isEmpty else {
      if json { console.print(JSONReport.render(report(candidates, adopted: nil, rewritten: []))) }
      return DocbmCommandLine.ExitStatus.failure
    }
    let made = try anchored.adopt(chosen)
    var byTarget: [FilePath: Bookmark] = [:]
    for (candidate, bookmark) in zip(chosen, made) {
      if let target = candidate.target, let bookmark { byTarget[target] = bookmark }
    }
    let adopted = candidates.map { candidate in
      chosen.contains(candidate) ? candidate.target.flatMap { byTarget[$0] } : nil
    }
    let (bytes, rewritten) = try TextFormRewrite.rewrite(
      document, replacing: zip(candidates, adopted).map { ($0.found, $1) })
    if rewritten.contains(true) {
      try anchored.replaceDocument(with: Data(bytes))
    }
    if json {
      console.print(JSONReport.render(report(candidates, adopted: adopted, rewritten: rewritten)))
      return DocbmCommandLine.ExitStatus.success
    }
    let saved = rewritten.filter { $0 }.count
    console.printFitted(
      "Adopted \(count(chosen.count, "bookmark")), signed with the document's key; \(saved == 0 ? "the document was not changed" : "\(document) saved with \(count(saved, "new bookmark")) in place of the old")."
    )
    let skipped = found.count - chosen.count
    if skipped > 0 {
      console.printFitted(
        "Left \(count(skipped, "bookmark")) as \(skipped == 1 ? "it was" : "they were"): \(skipped == 1 ? "its target is" : "their targets are") reached through a symbolic link or outside the document's folder, and each is adopted only on a yes of its own at a terminal (run docbm adopt without --yes)."
      )
    }
    for (candidate, (bookmark, done)) in zip(candidates, zip(adopted, rewritten))
    where bookmark != nil && !done {
      console.printFitted(
        "  the \(candidate.found.form.rawValue) form at byte \(candidate.found.offset) cannot be rewritten in place; put this text form there:"
      )
      console.print("    \(bookmark!.text)")
    }
    return DocbmCommandLine.ExitStatus.success
  }

  /// The candidates the user said yes to. `--yes` stands for a yes to every candidate
  /// whose target is plainly in the document's folder; one reached through a symbolic link,
  /// or outside the folder, takes a yes of its own at a terminal, with where it leads in
  /// the question. Without `--yes` and without a terminal, nothing is chosen, and the
  /// refusal says how to go on.
  private func choose(_ found: [AdoptionCandidate], _ console: Console) -> [AdoptionCandidate] {
    let plain = found.filter { !$0.needsItsOwnConfirmation }
    let unusual = found.filter(\.needsItsOwnConfirmation)
    if yes { return plain }
    guard console.inputIsTerminal else {
      console.printError(
        "docbm: adopt changes nothing without your word: check the targets listed above, then run it at a terminal or with --yes; nothing was changed"
      )
      return []
    }
    var chosen: [AdoptionCandidate] = []
    if !plain.isEmpty,
      ask(
        "Adopt \(count(plain.count, "bookmark")) whose targets are in its folder and save \(document)? Only if they are yours",
        console)
    {
      chosen += plain
    }
    for candidate in unusual {
      let why = [
        candidate.reachedThroughLink ? "through a symbolic link" : nil,
        candidate.isOutsideDocumentFolder ? "outside the document's folder" : nil,
      ].compactMap { $0 }.joined(separator: ", ")
      if ask(
        "Adopt the bookmark at byte \(candidate.found.offset), \(candidate.recordedRelativePath), which leads to \(candidate.target.map(\.description) ?? "nothing") (\(why))? Only if it is yours",
        console)
      {
        chosen.append(candidate)
      }
    }
    if chosen.isEmpty { console.printError("Nothing was changed.") }
    return chosen
  }

  /// Asks `question` at the terminal: whether the answer is yes.
  private func ask(_ question: String, _ console: Console) -> Bool {
    console.write("\(question) [y/N] ")
    console.flush()
    let answer = console.readLine().map { String(decoding: $0, as: UTF8.self) } ?? ""
    let word = answer.split(separator: " ", omittingEmptySubsequences: true).first.map { $0.lowercased() }
    return word == "y" || word == "yes"
  }

  private func report(_ candidates: [AdoptionCandidate], adopted: [Bookmark?]?, rewritten: [Bool]) -> Report {
    Report(
      document: document, adopted: adopted != nil,
      bookmarks: candidates.enumerated().map { index, candidate in
        Report.Item(
          offset: candidate.found.offset, form: candidate.found.form,
          keyFingerprint: candidate.keyFingerprint,
          recordedRelativePath: candidate.recordedRelativePath, recordedDocument: candidate.recordedDocument,
          target: candidate.target, throughLink: candidate.reachedThroughLink,
          outsideFolder: candidate.isOutsideDocumentFolder, bookmark: adopted?[index]?.text,
          rewritten: rewritten.indices.contains(index) && rewritten[index])
      })
  }
}
