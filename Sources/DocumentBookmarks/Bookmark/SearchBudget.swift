/// How far resolution searches for a target that is no longer at its recorded paths.
///
/// The search lists folders breadth-first, starting at the target's recorded folder (or its
/// nearest ancestor that still exists), then at up to ``ascent`` folders above it, then at
/// the document's folder; it never follows symbolic links and never leaves the filesystem
/// it starts on. Past the budget the target is `missing`: resolution never hangs.
public struct SearchBudget: Hashable, Sendable, Codable {
  /// The most folder entries read in one search, over all roots.
  public var maximumEntries: Int
  /// How many folders deep below each root the search goes.
  public var maximumDepth: Int
  /// How many folders above the recorded folder are also searched from.
  public var ascent: Int

  /// Negative values count as zero.
  public init(maximumEntries: Int = 10_000, maximumDepth: Int = 4, ascent: Int = 2) {
    self.maximumEntries = max(0, maximumEntries)
    self.maximumDepth = max(0, maximumDepth)
    self.ascent = max(0, ascent)
  }

  /// The default: 10,000 entries, 4 folders deep, 2 folders up.
  public static let standard = SearchBudget()

  /// No search at all: only the recorded paths are tried.
  public static let none = SearchBudget(maximumEntries: 0, maximumDepth: 0, ascent: 0)
}
