import DocumentBookmarks

/// Bookmarks a C caller passes as an array of text forms, each parsed on its own: a NULL or
/// a text that is no bookmark fails in its place, and the others are handled together.
struct BookmarkTexts {
  private let parsed: [Result<Bookmark, DocbmError>]

  /// The `count` texts at `texts`.
  init(_ texts: UnsafePointer<UnsafePointer<CChar>?>, count: UInt) {
    parsed = UnsafeBufferPointer(start: texts, count: Int(count)).map { text in
      guard let text else { return .failure(DocbmError(.corrupt, message: "the bookmark text is NULL")) }
      return Result { () throws(DocbmError) in try Bookmark(text: String(cString: text)) }
    }
  }

  /// One result for each text, in order: `body` is given the bookmarks that parsed, all at
  /// once (so that they share the work, a search for moved targets among it), and returns
  /// one result for each of them; a text that did not parse gets `failed` of its error.
  func map<Each>(_ body: ([Bookmark]) -> [Each], failed: (DocbmError) -> Each) -> [Each] {
    // The texts that failed are given their results below, in their places.
    var results = body(parsed.compactMap { try? $0.get() }).makeIterator()
    return parsed.map { text in
      switch text {
      case .success: results.next()!
      case .failure(let failure): failed(failure)
      }
    }
  }
}
