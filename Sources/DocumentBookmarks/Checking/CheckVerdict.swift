/// The checker's verdict on one document. Names are frozen: they appear in JSON output.
/// New verdicts may be added in later versions: a `switch` over them needs a `default`.
public enum CheckVerdict: String, Hashable, Sendable, Codable, CaseIterable {
  /// The document has its key, and every bookmark found in it verifies.
  case ok
  /// The file has no key and is not a document of the keys its bookmarks name: every
  /// bookmark in it records that it was made on another document (a file of another
  /// name), and the escrow does not record this file for the key. A shell history, a
  /// note or a store's journal quoting bookmarks. Not a problem: no key belongs on it.
  case quotesBookmarks
  /// No bookmark was found in the document, and the escrow names no key for it.
  case noBookmarks
  /// Bookmarks in the document, or the escrow's record of it, name a key the document no
  /// longer has. `docbm repair` can put an escrowed key back.
  case keyLost
  /// The document has a key, but its bookmarks were all signed with another one.
  case keyMismatch
  /// Some bookmarks verify and some do not (tampered, or signed with another key).
  case mixed
  /// The document's filesystem has no user extended attributes, so it can hold no key.
  case unsupportedFilesystem
  /// The document or its key could not be read.
  case unreadable
  /// Checking stopped before the end of the document: it holds more bookmarks, or more
  /// places that look like bookmarks, than a check examines (``BookmarkScanLimits``), so
  /// nothing can be said of the rest. Real documents do not; a crafted file does. The
  /// check's message gives the verdict on the part that was checked.
  case incomplete

  /// Whether the verdict is a problem worth reporting (exit status 2 in `docbm check`).
  public var isProblem: Bool {
    switch self {
    case .ok, .noBookmarks, .quotesBookmarks: false
    default: true
    }
  }
}
