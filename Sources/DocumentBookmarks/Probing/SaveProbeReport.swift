/// What a save did to a scratch document.
public struct SaveProbeReport: Hashable, Sendable, Codable {
  /// What the save broke, and the files it left beside the document; empty when it kept
  /// everything a safe save keeps and left nothing behind.
  public var findings: [SaveFinding]
  /// Facts that are not damage: whether the contents changed, whether the inode changed,
  /// whether the save refused a hard-linked document and the check was repeated without.
  public var notes: [String]
  /// Whether the document's contents differ from before the save.
  public var contentsChanged: Bool
  /// Whether the save wrote the document at all: its contents, inode, modification or
  /// change time differ from before, or it is gone. When it did not, nothing was tested.
  public var wroteDocument: Bool
  /// The folder the scratch folder was made in.
  public var location: FilePath?
  /// Whether ``location`` is under `/tmp`, `/var/tmp` or `$TMPDIR`, where editors save
  /// differently from a user's folders (``ScratchDocument/isInTemporaryFolder``).
  public var isInTemporaryFolder: Bool

  public init(
    findings: [SaveFinding] = [], notes: [String] = [], contentsChanged: Bool = false,
    wroteDocument: Bool = true, location: FilePath? = nil, isInTemporaryFolder: Bool = false
  ) {
    self.findings = findings
    self.notes = notes
    self.contentsChanged = contentsChanged
    self.wroteDocument = wroteDocument
    self.location = location
    self.isInTemporaryFolder = isInTemporaryFolder
  }

  /// The outcome in one word. Names are frozen: they appear in JSON output.
  public enum Verdict: String, Hashable, Sendable, Codable, CaseIterable {
    /// The save kept everything and left nothing behind.
    case kept
    /// The save kept everything but left files beside the document (a backup, a temporary).
    case keptLeavingFiles
    /// The save lost something of the document, or failed.
    case lost
    /// The save did not write the document: nothing was tested.
    case notSaved
  }

  /// The findings that lost something of the document (all but files left behind).
  public var losses: [SaveFinding] { findings.filter(\.kind.losesSomething) }

  /// The outcome: lost when any finding lost something, not saved when the save left the
  /// document untouched, kept (possibly leaving files) otherwise.
  public var verdict: Verdict {
    if !losses.isEmpty { return .lost }
    if !wroteDocument { return .notSaved }
    return findings.isEmpty ? .kept : .keptLeavingFiles
  }

  /// Whether the save wrote the document, kept everything and left nothing behind.
  public var isSafe: Bool { verdict == .kept }

  /// The note shown when the scratch document was under a temporary folder.
  public static let temporaryFolderWarning =
    "the scratch document was under /tmp or $TMPDIR, where editors such as Vim and Emacs save differently (no backup, written in place): the result may not hold for a user's folder"

  /// The note shown when the scratch document had a second name (a hard link).
  public static let hardLinkNote =
    "the document had a second name (a hard link): programs such as Vim and GLib save a hard-linked file in place and replace an ordinary one, so an ordinary document may lose what this one kept"

  /// One line per finding and note, for test failures and terminals.
  public var summary: String {
    var lines: [String]
    switch verdict {
    case .notSaved:
      lines = ["the save did not write the document: nothing was tested"] + findings.map { "- \($0)" }
    case .kept:
      lines = ["the save kept the key, the other attributes, the mode, the owner and the links"]
    case .lost, .keptLeavingFiles:
      lines = findings.map { "- \($0)" }
    }
    lines += notes.map { "  (\($0))" }
    if let location { lines.append("  (scratch document made in \(location))") }
    if isInTemporaryFolder { lines.append("  (\(SaveProbeReport.temporaryFolderWarning))") }
    return lines.joined(separator: "\n")
  }
}
