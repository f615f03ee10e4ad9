/// How far resolution searches for a target that is no longer at its recorded paths.
///
/// Resolution searches in two stages, both by identity only (the inode number from the
/// folder listing, then the birth time; never the name), never following a symbolic link
/// and never leaving the filesystem the target was on:
///
/// 1. **Nearby.** Folders are listed breadth-first from the target's recorded folder (or its
///    nearest ancestor that still exists), then from up to ``ascent`` folders above it, then
///    from the document's folder, at most ``maximumDepth`` folders deep and
///    ``maximumEntries`` entries in all.
/// 2. **The whole filesystem** (``reach`` ``Reach/filesystem``, the default), when the
///    nearby search found nothing and no other file stands at the target's paths: the user's
///    home folder first when the target was in it, then the rest of its filesystem from the
///    root of its mount, every folder the user can read, listed once, on every core, for at
///    most ``filesystemTimeLimit``. The bookmarks of one call (a document's batch, a check, a
///    store's refresh) share that walk: each folder is listed once for all of them.
///
/// A target that is not found is `missing` (recommendation `forget`) only when the second
/// stage read every folder of its filesystem; a search that stopped sooner (the nearby
/// reach, the time limit, a cancelled call) answers `notFoundNearby` (recommendation
/// `searchWider`), its message saying how far it looked, and one that passed over folders
/// the user cannot read answers `notFoundNearby` with `pickAgain`.
public struct SearchBudget: Hashable, Sendable, Codable {
  /// How far a search goes past the nearby folders.
  /// New reaches may be added in later versions: a `switch` over them needs a `default`.
  public enum Reach: String, Hashable, Sendable, Codable, CaseIterable {
    /// The nearby folders only: a target not found there is `notFoundNearby`.
    case nearby
    /// The nearby folders, then the target's whole filesystem (the user's home folder
    /// first), within ``SearchBudget/filesystemTimeLimit``.
    case filesystem
  }

  /// The most folder entries read by the nearby search, over all its roots.
  public var maximumEntries: Int
  /// How many folders deep below each root the nearby search goes.
  public var maximumDepth: Int
  /// How many folders above the recorded folder the nearby search also starts from.
  public var ascent: Int
  /// Whether the whole filesystem is searched when the nearby folders do not hold the target.
  public var reach: Reach
  /// The longest one call walks filesystems, over all its bookmarks; `nil` for no limit.
  /// When it runs out, the targets not found by then are `notFoundNearby`.
  public var filesystemTimeLimit: Duration?

  /// Negative counts and durations count as zero.
  public init(
    maximumEntries: Int = 10_000, maximumDepth: Int = 4, ascent: Int = 2, reach: Reach = .filesystem,
    filesystemTimeLimit: Duration? = .seconds(10)
  ) {
    self.maximumEntries = max(0, maximumEntries)
    self.maximumDepth = max(0, maximumDepth)
    self.ascent = max(0, ascent)
    self.reach = reach
    self.filesystemTimeLimit = filesystemTimeLimit.map { max(.zero, $0) }
  }

  /// The default: 10,000 entries, 4 folders deep and 2 folders up nearby, then the
  /// target's whole filesystem for at most 10 seconds.
  public static let standard = SearchBudget()

  /// The nearby search of ``standard`` alone: a call never walks a whole filesystem.
  public static let nearby = SearchBudget(reach: .nearby)

  /// ``standard`` with no time limit: a target not found is `missing`, unless the call is
  /// cancelled or a folder could not be read because its storage failed.
  public static let wholeFilesystem = SearchBudget(filesystemTimeLimit: nil)

  /// No search at all: only the recorded paths are tried.
  public static let none = SearchBudget(
    maximumEntries: 0, maximumDepth: 0, ascent: 0, reach: .nearby, filesystemTimeLimit: .zero)

  private enum CodingKeys: String, CodingKey {
    case maximumEntries, maximumDepth, ascent, reach, filesystemTimeLimit
  }

  /// Decodes a budget; one written without ``reach`` (before it existed) searches nearby
  /// only, as it did then.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      maximumEntries: try container.decode(Int.self, forKey: .maximumEntries),
      maximumDepth: try container.decode(Int.self, forKey: .maximumDepth),
      ascent: try container.decode(Int.self, forKey: .ascent),
      reach: try container.decodeIfPresent(Reach.self, forKey: .reach) ?? .nearby,
      filesystemTimeLimit: try container.decodeIfPresent(Duration.self, forKey: .filesystemTimeLimit))
  }
}
