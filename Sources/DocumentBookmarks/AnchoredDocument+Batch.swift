extension AnchoredDocument {
  /// Verifies and resolves many bookmarks of this document together: the result for each,
  /// in the same order.
  ///
  /// Each result is what ``resolve(_:)-(Bookmark)`` gives for that bookmark, alone, on the
  /// same files; the work is shared: the key is read once, and the searches for moved
  /// targets share their folders, each listed at most once per call and indexed by inode
  /// number, so that each moved target costs a look-up per folder searched, not a listing of
  /// it. Each search keeps its own nearby ``SearchBudget``; the walks of whole filesystems
  /// are shared too (one per filesystem, its time limit for the whole call), so that 100
  /// missing targets cost about what one does. Files moved while the call runs are seen as
  /// its first listing of their folder saw them.
  ///
  /// A failure is the failed bookmark's alone: the others still resolve. When the document
  /// has no key (or its key cannot be read), every bookmark fails with that error.
  ///
  /// Errors are those of ``resolve(_:)-(Bookmark)``.
  public func resolve(_ bookmarks: [Bookmark]) -> [Result<Resolution, DocbmError>] {
    resolve(bookmarks, cancellation: nil)
  }

  /// ``resolve(_:)-([Bookmark])``, whose walks of filesystems stop when `cancellation`
  /// says so.
  func resolve(_ bookmarks: [Bookmark], cancellation: SearchCancellation?) -> [Result<Resolution, DocbmError>]
  {
    guard !bookmarks.isEmpty else { return [] }
    // The key with its MAC schedule, made once for the whole batch.
    let key = Result { () throws(DocbmError) in try readKey().map(DocumentKeyCache.Entry.init) }
    let batch = ResolutionBatch(for: self, cancellation: cancellation)
    return bookmarks.map { bookmark in
      Result { () throws(DocbmError) in
        try ResolutionFaults.apply(to: bookmark, on: self)
        return try resolve(bookmark, key: key, batch: batch)
      }
    }
  }

  /// One bookmark of a batch: the header, then the key, checked in the order of the single
  /// resolve; the unmoved case without a search.
  private func resolve(
    _ bookmark: Bookmark, key keyRead: Result<DocumentKeyCache.Entry?, DocbmError>, batch: ResolutionBatch
  ) throws(DocbmError) -> Resolution {
    let header = try BookmarkRecord.header(of: bookmark.bytes).get()
    guard let entry = try keyRead.get() else { throw keyMissing(header.fingerprint) }
    let key = entry.key
    try checkFingerprint(header.fingerprint, against: key)
    let unmoved = UnmovedResolver.locate(bookmark, on: self, key: entry, portal: batch.portal)
    if let found = unmoved.found {
      return Resolution(
        path: found.path, kind: found.kind, staleReasons: [], refreshed: nil, recorded: bookmark)
    }
    return try resolve(
      bookmark, header: header, key: key, portal: .some(batch.portal), verified: unmoved.verified,
      batch: batch)
  }
}
