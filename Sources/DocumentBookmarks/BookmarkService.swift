public import FoundationEssentials

/// The entry point: settings shared by every document, and the one call that anchors
/// bookmarks on a document.
///
/// ```swift
/// let document = BookmarkService().documents(anchoredOn: documentURL)
/// let bookmark = try document.makeBookmark(to: imageURL)  // makes the key
/// let resolution = try document.resolve(bookmark)
/// if let refreshed = resolution.refreshed { /* store it with the next save */ }
/// ```
public struct BookmarkService: Sendable {
  /// How far resolution searches for moved targets.
  public var searchBudget: SearchBudget
  /// Where new keys are kept so that a lost key can be repaired: by default the user's
  /// escrow (``KeyEscrow/default``), as the `docbm` command, C and Python use it. `nil`
  /// keeps none: a key the document then loses cannot be put back.
  public var escrow: KeyEscrow?

  /// A service; `escrow` is the user's unless the app passes another, or `nil` for none.
  public init(searchBudget: SearchBudget = .standard, escrow: KeyEscrow? = .default) {
    self.searchBudget = searchBudget
    self.escrow = escrow
  }

  /// The bookmarks anchored on the document at `path` (a regular file or a folder).
  ///
  /// Nothing is read or written yet: the key is created by the first
  /// ``AnchoredDocument/makeBookmark(to:)-(FilePath)``, never before.
  public func documents(anchoredOn path: FilePath) -> AnchoredDocument {
    AnchoredDocument(path: path, searchBudget: searchBudget, escrow: escrow)
  }

  /// The bookmarks anchored on the document at a file URL.
  public func documents(anchoredOn url: URL) -> AnchoredDocument {
    documents(anchoredOn: FilePath(url))
  }

  /// A document to be created at `path` by its first save, with bookmarks made for it
  /// before then; see ``NewDocument``. A fresh key is made now, in memory only.
  public func newDocument(at path: FilePath) -> NewDocument {
    NewDocument(path: path, searchBudget: searchBudget, escrow: escrow)
  }

  /// A document to be created at a file URL by its first save.
  public func newDocument(at url: URL) -> NewDocument {
    newDocument(at: FilePath(url))
  }
}
