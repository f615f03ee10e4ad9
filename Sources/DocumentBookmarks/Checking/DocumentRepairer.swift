/// Puts an escrowed key back on a document that lost it.
///
/// Only when the document has no key, and only the key that the document's own bookmarks
/// name, or that the escrow recorded for this very document. A document whose check was
/// ``CheckVerdict/incomplete`` is refused: not all its bookmarks could be verified. It never invents a key, never
/// replaces a key a document carries, and never attaches a key to a document that did not
/// have it.
public struct DocumentRepairer: Sendable {
  /// What repair did to one document.
  public struct Report: Hashable, Sendable, Codable {
    /// What happened, in one word. Names are frozen: they appear in JSON output.
    public enum Action: String, Hashable, Sendable, Codable {
      /// The escrowed key was put back.
      case restored
      /// Nothing needed repair.
      case nothingToDo
      /// Repair was possible in principle but not done; ``Report/message`` says why.
      case refused
    }
    public let document: FilePath
    public let action: Action
    /// The key put back (or that would have been).
    public let fingerprint: KeyFingerprint?
    public let message: String
    /// The check before.
    public let before: DocumentCheck
    /// The check after, when a key was put back.
    public let after: DocumentCheck?
  }

  public let escrow: KeyEscrow
  private let checker: DocumentChecker

  public init(escrow: KeyEscrow, searchBudget: SearchBudget = .standard) {
    self.escrow = escrow
    self.checker = DocumentChecker(escrow: escrow, searchBudget: searchBudget)
  }

  /// Checks the document and, when its key was lost and the escrow has it, puts it back.
  public func repair(_ path: FilePath) -> Report {
    let before = checker.check(path)
    func report(
      _ action: Report.Action, _ fingerprint: KeyFingerprint?, _ message: String, after: DocumentCheck? = nil
    )
      -> Report
    {
      Report(
        document: path, action: action, fingerprint: fingerprint, message: message, before: before,
        after: after)
    }
    switch before.verdict {
    case .ok, .noBookmarks:
      return report(.nothingToDo, before.keyFingerprint, "nothing to repair: \(before.message)")
    case .keyMismatch, .mixed:
      return report(
        .refused, nil,
        "refused: \(before.message); repair never replaces a key a document carries (bookmarks from another document stay invalid)"
      )
    case .unsupportedFilesystem, .unreadable, .incomplete:
      return report(.refused, nil, "refused: \(before.message)")
    case .keyLost:
      break
    }
    guard before.keyFingerprint == nil else {
      return report(
        .refused, nil,
        "refused: \(before.message); the document carries another key now, and repair never replaces one")
    }
    let named = Set(before.bookmarks.map(\.fingerprint))
    let wanted: KeyFingerprint
    if named.count == 1 {
      wanted = named.first!
    } else if named.isEmpty, let escrowed = before.escrowedFingerprint {
      wanted = escrowed
    } else {
      let list = named.map(\.description).sorted().joined(separator: ", ")
      return report(.refused, nil, "refused: the bookmarks in the document name several keys (\(list))")
    }
    guard let entry = escrow.entry(for: wanted) else {
      return report(
        .refused, wanted,
        "refused: the escrow has no key \(wanted) (it was made on another account, or before the escrow was used)"
      )
    }
    // Fingerprints are public: a forged header could name any key. Every bookmark that
    // names the key must verify with it before the key goes on the document.
    // Each record is verified as it is found (none is kept), within the scanner's limits:
    // a scan that stopped early has not seen every bookmark, so it is no licence.
    if !named.isEmpty {
      var seen = 0
      var forged = 0
      let completion: BookmarkScanCompletion
      do {
        completion = try BookmarkScanner().scan(fileAt: path) { found in
          seen += 1
          if found.bookmark.keyFingerprint == wanted
            && !BookmarkRecord.verify(found.bookmark.bytes, key: entry.key)
          {
            forged += 1
          }
        }
      } catch {
        return report(.refused, wanted, "refused: \(error.message)")
      }
      guard completion.isComplete else {
        return report(
          .refused, wanted,
          "refused: the document holds more bookmarks than a check examines, so not all could be verified")
      }
      guard forged == 0, seen > 0 else {
        return report(
          .refused, wanted,
          "refused: \(forged) bookmark(s) in the document name key \(wanted) but do not verify with it (forged or damaged)"
        )
      }
    }
    do {
      try KeyAttribute.restore(entry.key, on: path)
    } catch {
      return report(.refused, wanted, "could not put key \(wanted) back: \(error)")
    }
    let after = checker.check(path)
    return report(
      .restored, wanted, "put key \(wanted) back from \(entry.file); now: \(after.verdict.rawValue)",
      after: after)
  }
}
