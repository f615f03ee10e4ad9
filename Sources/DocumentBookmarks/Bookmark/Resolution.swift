/// A bookmark that resolved: where its target is now, and whether the app should store a
/// refreshed bookmark.
public struct Resolution: Hashable, Sendable {
  /// One file that may be the target, when the evidence cannot decide (``StaleReason/ambiguous``).
  public struct Candidate: Hashable, Sendable, Codable {
    /// Why this file is a candidate. Names are frozen: they appear in JSON output.
    public enum Basis: String, Hashable, Sendable, Codable {
      /// It is the very file the bookmark recorded (same identity), at its absolute path.
      case recordedIdentity
      /// It stands at the recorded path relative to the document, which moved or was copied.
      case relativePath
    }

    /// The file.
    public let path: FilePath
    /// Why it is a candidate.
    public let basis: Basis
    /// One sentence on the evidence for and against it.
    public let note: String
  }

  /// Where the target is now.
  public let path: FilePath
  /// What the target is.
  public let kind: TargetKind
  /// Why the bookmark is stale; empty when it resolved exactly as recorded.
  public let staleReasons: [StaleReason]
  /// A new bookmark for the target as it is now, signed with the same key; present when the
  /// bookmark is stale (but not ``StaleReason/ambiguous``). Store it in place of the old one
  /// with the document's next save.
  public let refreshed: Bookmark?
  /// What the verified bookmark recorded, decoded when asked for (an unmoved resolve reads
  /// only the fields it needs, where they lie).
  public var recorded: BookmarkContents {
    // Checked before it resolved: a failure here is a bug, stopped by the precondition.
    guard let contents = try? BookmarkRecord.decodeFields(bookmark.bytes, header: header).get() else {
      preconditionFailure("a resolved bookmark's fields were checked before it resolved")
    }
    return contents
  }
  /// The verified bookmark.
  let bookmark: Bookmark
  private var header: BookmarkRecord.Header {
    BookmarkRecord.Header(version: bookmark.bytes[6], fingerprint: bookmark.keyFingerprint)
  }
  /// For an ``StaleReason/ambiguous`` result, the files that may be the target (``path``
  /// first); empty otherwise. To settle it, make a new bookmark to the one the user means.
  public let candidates: [Candidate]
  /// The Documents portal export the document was reached through, when it was: paths in
  /// ``refreshed`` then start from its ``PortalDocument/hostPath``, and when that is
  /// unknown (``PortalDocument/HostPathSource/unknown``) no refreshed bookmark is made.
  public let portalDocument: PortalDocument?

  init(
    path: FilePath, kind: TargetKind, staleReasons: [StaleReason], refreshed: Bookmark?, recorded: Bookmark,
    candidates: [Candidate] = [], portalDocument: PortalDocument? = nil
  ) {
    self.path = path
    self.kind = kind
    self.staleReasons = staleReasons
    self.refreshed = refreshed
    self.bookmark = recorded
    self.candidates = candidates
    self.portalDocument = portalDocument
  }

  /// Whether the bookmark resolved, but not the way it was recorded.
  public var isStale: Bool { !staleReasons.isEmpty }

  /// Whether the evidence could not tell which file is the target.
  public var isAmbiguous: Bool { staleReasons.contains(.ambiguous) }

  /// Whether the target is in a Trash (the user's, or a `.Trash` folder of its filesystem):
  /// the user deleted it in a file manager, and may still restore it. Said whether or not
  /// the bookmark is stale, so that a refreshed bookmark stored after the move to the Trash
  /// (``StaleReason/inTrash``) still says so when it resolves.
  public var isInTrash: Bool { TrashInfo.contains(path) }
}
