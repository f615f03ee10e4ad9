/// What a save did to a scratch document.
public struct SaveProbeReport: Hashable, Sendable, Codable {
  /// What the save broke; empty when it kept everything a safe save keeps.
  public var findings: [SaveFinding]
  /// Facts that are not damage: whether the contents changed, whether the inode changed,
  /// whether the save refused a hard-linked document and the check was repeated without.
  public var notes: [String]
  /// Whether the document's contents differ from before the save.
  public var contentsChanged: Bool

  /// Whether the save kept everything.
  public var isSafe: Bool { findings.isEmpty }

  public init(findings: [SaveFinding] = [], notes: [String] = [], contentsChanged: Bool = false) {
    self.findings = findings
    self.notes = notes
    self.contentsChanged = contentsChanged
  }

  /// One line per finding and note, for test failures and terminals.
  public var summary: String {
    if findings.isEmpty {
      return (["the save kept the key, the other attributes, the mode, the owner and the links"] + notes)
        .joined(separator: "\n")
    }
    return (findings.map { "- \($0)" } + notes.map { "  (\($0))" }).joined(separator: "\n")
  }
}
