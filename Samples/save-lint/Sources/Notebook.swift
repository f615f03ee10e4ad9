// save-lint: a tiny app with a wrong save and a right one. Its tests (Tests/) lint both
// with DocumentBookmarksTesting; the wrong one is caught.

import DocumentBookmarks
import Foundation

/// A notebook document: some text and the files it links to.
struct Notebook: Codable, Sendable {
  var text: String
  var links: [Bookmark]

  init(text: String, links: [Bookmark] = []) {
    self.text = text
    self.links = links
  }

  /// The wrong save: Foundation's atomic write. On Linux it replaces the file with a new
  /// one that has none of the old one's extended attributes, so the document's key is
  /// lost and every link in it stops resolving.
  func saveWrong(to url: URL) throws {
    try JSONEncoder().encode(self).write(to: url, options: .atomic)
  }

  /// The right save: the same bytes, through docbm's replaceDocument.
  func saveRight(to url: URL) throws {
    try BookmarkService().documents(anchoredOn: url).replaceDocument(with: JSONEncoder().encode(self))
  }
}
