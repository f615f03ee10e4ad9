extension AnchoredDocument {
  /// Resolves `bookmark`, settling an ambiguous result with the user's choice: when the
  /// evidence cannot tell which file is the target (``Resolution/isAmbiguous``) and `path`
  /// is one of its ``Resolution/candidates``, the result is that file, with a refreshed
  /// bookmark to it, signed with the document's key, that resolves there from now on: store
  /// it in place of the old one with the document's next save, and the choice is kept.
  ///
  /// A result that is not ambiguous is returned as it is, whatever `path` says (the
  /// evidence decided; compare its ``Resolution/path`` with the choice). An ambiguous
  /// result of which `path` is no candidate is returned as it is too, still ambiguous: no
  /// bookmark is made to a file the bookmark's evidence does not point at (make a new
  /// bookmark with ``makeBookmark(to:)-(FilePath)`` for that).
  ///
  /// - Throws: as ``resolve(_:)-(Bookmark)``; and as ``makeBookmark(to:)-(FilePath)`` when
  ///   the chosen file cannot be bookmarked (it went away meanwhile).
  public func resolve(_ bookmark: Bookmark, choosing path: FilePath) throws(DocbmError) -> Resolution {
    let resolution = try resolve(bookmark)
    guard resolution.isAmbiguous else { return resolution }
    let chosen = path.absolute.lexicallyNormalized
    guard
      let candidate = resolution.candidates.first(where: { $0.path.absolute.lexicallyNormalized == chosen })
    else { return resolution }
    let refreshed = try makeBookmark(to: candidate.path)
    // The recorded file keeps the reasons it was found for; another file at the recorded
    // path relative to the document is the target of a document that moved, by its path.
    let reasons: [StaleReason] =
      candidate.basis == .recordedIdentity
      ? resolution.staleReasons.filter { $0 != .ambiguous } : [.documentMoved, .identityChanged]
    return Resolution(
      path: candidate.path, kind: resolution.kind, staleReasons: reasons, refreshed: refreshed,
      recorded: resolution.bookmark, portalDocument: resolution.portalDocument)
  }
}
