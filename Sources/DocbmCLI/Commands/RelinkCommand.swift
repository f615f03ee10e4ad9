import DocumentBookmarks
import FoundationEssentials

/// `docbm relink DOCUMENT FROM TO`: the document's bookmarks whose targets lay under FROM
/// are looked for at the same place under TO (``AnchoredDocument/relink(_:from:to:)``), and
/// the document is saved with `replaceDocument`, each relinked text form replaced by its
/// refreshed bookmark.
struct RelinkCommand {
  let document: FilePath
  let from: FilePath
  let to: FilePath
  let json: Bool

  private struct Report: Encodable {
    struct Item: Encodable {
      let offset: UInt64
      let form: BookmarkForm
      let recordedPath: FilePath?
      let candidate: FilePath?
      /// `relinked`, `notUnderSource`, `nothingThere`, `notTheTarget` or `failed`.
      let outcome: String
      let reason: String?
      /// The refreshed bookmark's text form, when relinked.
      let bookmark: String?
      /// Whether the document now holds it in the old one's place.
      let rewritten: Bool
      let error: ErrorReport?
    }
    let schemaVersion = JSONReport.schemaVersion
    let document: FilePath
    let from: FilePath
    let to: FilePath
    let saved: Bool
    let bookmarks: [Item]
  }

  func run(_ console: Console) throws -> Int32 {
    let anchored = BookmarkService(escrow: .default).documents(anchoredOn: document)
    var found: [FoundBookmark] = []
    try BookmarkScanner().scan(fileAt: document) { found.append($0) }
    let relinks = anchored.relink(found.map(\.bookmark), from: from, to: to)
    let (bytes, rewritten) = try TextFormRewrite.rewrite(
      document, replacing: zip(found, relinks).map { ($0, $1.refreshed) })
    let saved = rewritten.contains(true)
    if saved { try anchored.replaceDocument(with: Data(bytes)) }
    let items = zip(found, zip(relinks, rewritten)).map { found, pair in item(found, pair.0, pair.1) }
    let underSource = items.filter { $0.outcome != "notUnderSource" }
    let relinked = underSource.filter { $0.outcome == "relinked" }.count
    let status =
      !underSource.isEmpty && relinked == underSource.count
      ? DocbmCommandLine.ExitStatus.success : DocbmCommandLine.ExitStatus.failure
    if json {
      console.print(
        JSONReport.render(Report(document: document, from: from, to: to, saved: saved, bookmarks: items)))
      return status
    }
    for item in underSource {
      let place = item.candidate.map(\.description) ?? "byte \(item.offset)"
      switch item.outcome {
      case "relinked":
        console.printFitted("relinked     \(item.recordedPath.map(\.description) ?? "?") -> \(place)")
        if !item.rewritten, let text = item.bookmark {
          console.printFitted(
            "  the \(item.form.rawValue) form at byte \(item.offset) cannot be rewritten in place; put this text form there:"
          )
          console.print("    \(text)")
        }
      case "nothingThere": console.printFitted("nothing at   \(place)")
      case "notTheTarget": console.printFitted("not taken    \(place): \(item.reason ?? "")")
      default: console.printFitted("failed       byte \(item.offset): \(item.reason ?? "")")
      }
    }
    let outside = items.count - underSource.count
    let others = underSource.count - relinked
    var summary =
      underSource.isEmpty
      ? "No bookmark in \(document) has its target under \(from)"
      : "\(count(relinked, "bookmark")) relinked; \(saved ? "\(document) saved with the new ones" : "the document was not changed")"
    if others > 0 { summary += "; \(others) not relinked (listed above)" }
    if outside > 0 {
      summary += "; \(count(outside, "other bookmark")) left as \(outside == 1 ? "it is" : "they are")"
    }
    console.printFitted(summary + ".")
    return status
  }

  private func item(_ found: FoundBookmark, _ relink: Relink, _ rewritten: Bool) -> Report.Item {
    // A bookmark that does not decode has no recorded path to show; its outcome says why.
    let recorded = (try? found.bookmark.decodeUnverified())?.absolutePath
    var outcome = "failed"
    var reason: String?
    var bookmark: String?
    var error: ErrorReport?
    switch relink.outcome {
    case .relinked(let resolution):
      outcome = "relinked"
      bookmark = resolution.refreshed?.text
    case .notUnderSource: outcome = "notUnderSource"
    case .nothingThere: outcome = "nothingThere"
    case .notTheTarget(let why):
      outcome = "notTheTarget"
      reason = why
    case .failed(let failure):
      reason = failure.description
      error = ErrorReport(failure)
    @unknown default: reason = "an outcome this version does not know"
    }
    return Report.Item(
      offset: found.offset, form: found.form, recordedPath: recorded, candidate: relink.candidate,
      outcome: outcome, reason: reason, bookmark: bookmark, rewritten: rewritten, error: error)
  }

  private func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }
}
