/// Choices for ``AnchoredDocument/replaceDocument(options:_:)``.
public struct ReplaceOptions: Hashable, Sendable {
  /// What to do when the document has more than one hard link.
  public enum HardLinks: Hashable, Sendable {
    /// Refuse with `hardLinked`: a rename-based save would give this name a new file and
    /// leave the other names with the old contents (and the old key), silently.
    case refuse
    /// Save anyway; the other names keep the old version.
    case split
  }

  /// What to do when the document has more than one hard link. Default: ``HardLinks/refuse``.
  public var hardLinks: HardLinks
  /// Whether every extended attribute must be copied (like `cp --preserve=xattr`), or only
  /// the key (like `cp -a`, which copies what it can). Default: every attribute.
  public var requireEveryAttribute: Bool

  public init(hardLinks: HardLinks = .refuse, requireEveryAttribute: Bool = true) {
    self.hardLinks = hardLinks
    self.requireEveryAttribute = requireEveryAttribute
  }
}

/// What a copy made with ``AnchoredDocument/saveCopy(to:key:options:_:)`` carries.
public enum CopyKey: Hashable, Sendable {
  /// The copy carries the document's key: bookmarks inside it keep resolving in the copy
  /// ("Save As"). Whoever gets the copy can resolve them too.
  case carry
  /// The copy carries no key ("save a copy for someone else"): bookmarks inside it fail with
  /// `keyMissing` there, so they are not transplantable; the recipient's app makes new ones.
  case strip
}
