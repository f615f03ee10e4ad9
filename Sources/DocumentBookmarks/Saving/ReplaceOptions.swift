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

  /// What to do when the new version cannot keep the document's owner or group.
  ///
  /// Only root (or a process with CAP_CHOWN) can give a file any owner. Anyone else can keep
  /// the owner only of a document they own, and the group only when they belong to it; so
  /// saving another user's document in a folder one may write (a shared folder, `/tmp`) would
  /// make the saver its owner. That is decided before anything is written.
  public enum OwnerChange: Hashable, Sendable {
    /// Refuse with `ownerChanged`, before writing: the document stays as it was, its owner's.
    case refuse
    /// Save anyway: the new version belongs to the saver (and keeps the document's group
    /// when the saver belongs to it, else gets the saver's). The old owner loses what being
    /// the owner gave: the owner's permission bits, and changing its mode and attributes.
    case allow
  }

  /// What to do when the document's permissions mark it read-only: no write permission for
  /// anyone (`chmod a-w`), or none for the saver. A rename-based save needs only the
  /// folder's write permission, so without this check it would replace a document its owner
  /// protected, where Vim, Emacs and `cp` stop or ask.
  public enum ReadOnlyDocument: Hashable, Sendable {
    /// Refuse with `readOnlyDocument`, before the writer runs: the document stays as it was.
    case refuse
    /// Save anyway (Vim's `:w!`); the new version keeps the document's mode, read-only
    /// included.
    case allow
  }

  /// How to save a single file exported through the Documents portal (``PortalDocument``),
  /// which refuses to set extended attributes, so that a new version renamed over it
  /// would lose the key.
  public enum PortalFileDocuments: Hashable, Sendable {
    /// Refuse with `portalRefusesAttributes` before the writer runs: the document stays as
    /// it was, key included.
    case refuse
    /// Write the new contents over the document's own file (truncate, write, flush), which
    /// keeps its key and attributes. **Not crash-safe**: a crash or a full disk while the
    /// contents are copied into place leaves the document cut short. The writer of a URL
    /// save writes into a private temporary folder first, so a writer that fails leaves
    /// the document untouched.
    case writeInPlace
  }

  /// What to do when the document has more than one hard link. Default: ``HardLinks/refuse``.
  public var hardLinks: HardLinks
  /// Whether every extended attribute must be copied (like `cp --preserve=xattr`), or only
  /// the key (like `cp -a`, which copies what it can). Default: every attribute.
  public var requireEveryAttribute: Bool
  /// What to do when the new version cannot keep the document's owner or group. Default:
  /// ``OwnerChange/refuse``.
  public var ownerChange: OwnerChange
  /// How to save a single file exported through the Documents portal. Default:
  /// ``PortalFileDocuments/refuse``.
  public var portalFileDocuments: PortalFileDocuments
  /// What to do when the document's permissions mark it read-only. Default:
  /// ``ReadOnlyDocument/refuse``.
  public var readOnlyDocument: ReadOnlyDocument

  public init(
    hardLinks: HardLinks = .refuse, requireEveryAttribute: Bool = true, ownerChange: OwnerChange = .refuse,
    portalFileDocuments: PortalFileDocuments = .refuse, readOnlyDocument: ReadOnlyDocument = .refuse
  ) {
    self.hardLinks = hardLinks
    self.requireEveryAttribute = requireEveryAttribute
    self.ownerChange = ownerChange
    self.portalFileDocuments = portalFileDocuments
    self.readOnlyDocument = readOnlyDocument
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
