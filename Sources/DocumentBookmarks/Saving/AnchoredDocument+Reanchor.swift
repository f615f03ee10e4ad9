public import FoundationEssentials

extension AnchoredDocument {
  /// "Save As" with bookmarks that work from the copy's place: each of `bookmarks` is
  /// resolved against this document and signed anew, relative to the copy's folder, with
  /// the key the copy carries (this document's); `write` gets them, in order, to store in
  /// the copy's contents; then the copy is saved as ``saveCopy(to:key:options:_:)`` saves
  /// it with ``CopyKey/carry``.
  ///
  /// A copy in another folder, made with ``saveCopy(to:key:options:_:)``, holds bookmarks
  /// whose relative paths start from this document's folder: they resolve, but stale, and
  /// the app would rewrite each. Re-anchored, they resolve from the copy, not stale.
  ///
  /// A bookmark that does not resolve (``ReanchoredBookmark/Outcome/failed(_:)``), or
  /// resolves ambiguously, is not re-anchored, and is reported to `write` and in the
  /// result, never dropped: the writer decides what the copy stores for it (the original
  /// bookmark, typically, for the user to pick again).
  ///
  /// Resolving never writes this document; the copy's folder must exist.
  ///
  /// - Returns: the copy and every bookmark with what became of it.
  /// - Throws: ``DocbmError`` as ``saveCopy(to:key:options:_:)`` does; a bookmark that does
  ///   not resolve is not an error.
  @discardableResult
  public func saveCopy(
    to destination: FilePath, bookmarks: [Bookmark], options: ReplaceOptions = ReplaceOptions(),
    _ write: (URL, [ReanchoredBookmark]) throws -> Void
  ) throws(DocbmError) -> SavedCopy {
    let reanchored = reanchor(bookmarks, for: destination)
    let copy = try saveCopy(to: destination, key: .carry, options: options) { url in
      try write(url, reanchored)
    }
    return SavedCopy(document: copy, bookmarks: reanchored)
  }

  /// Each bookmark resolved here and, when that found one target, signed for `destination`.
  package func reanchor(_ bookmarks: [Bookmark], for destination: FilePath) -> [ReanchoredBookmark] {
    guard !bookmarks.isEmpty else { return [] }
    let copy = AnchoredDocument(path: destination, searchBudget: searchBudget, escrow: escrow)
    // The key is the one each bookmark verified with: this document's, which the copy carries.
    let key: DocumentKey?
    do {
      key = try readKey()
    } catch {
      return bookmarks.map { ReanchoredBookmark(original: $0, outcome: .failed(error)) }
    }
    return bookmarks.map { original in
      do throws(DocbmError) {
        let resolution = try resolve(original)
        if resolution.staleReasons.contains(.ambiguous) {
          return ReanchoredBookmark(
            original: original, outcome: .ambiguous(candidates: resolution.candidates))
        }
        guard let key else {
          // Unreachable: a bookmark resolved, so the document has a key.
          return ReanchoredBookmark(
            original: original,
            outcome: .failed(DocbmError(.keyMissing, path: path, message: "\(path) has no key")))
        }
        let bookmark = try copy.sign(TargetSnapshot.read(resolution.path), key: key)
        return ReanchoredBookmark(original: original, outcome: .reanchored(bookmark))
      } catch {
        return ReanchoredBookmark(original: original, outcome: .failed(error))
      }
    }
  }
}
