import DocbmSystem
public import FoundationEssentials

/// One document and the bookmarks anchored on it: makes bookmarks signed with the
/// document's key and resolves them.
///
/// Calls are synchronous and block on file-system work; each does a bounded amount of it
/// (a few system calls, or a search within the ``SearchBudget``). Call them off the main
/// thread when the files may be on slow storage; the reasons are in docs/design.md. From
/// Swift concurrency, use ``async``: the same calls, run on docbm's own threads.
/// The value is `Sendable` and holds no open files.
public struct AnchoredDocument: Hashable, Sendable {
  /// The document's path, as given.
  public let path: FilePath
  /// How far resolution searches for moved targets.
  public let searchBudget: SearchBudget
  /// Where a new key is escrowed, if anywhere.
  public let escrow: KeyEscrow?

  /// The folder that relative paths in bookmarks start from: the document's folder, made
  /// absolute (against the working folder at the time this value was made) and normalized.
  let folder: FilePath

  /// The document at `path`; `absolute` is `path` made absolute and normalized when the
  /// caller knows it (a tree walk, from its root's), else it is made so now.
  init(path: FilePath, absolute: FilePath? = nil, searchBudget: SearchBudget, escrow: KeyEscrow? = nil) {
    self.path = path
    self.searchBudget = searchBudget
    self.escrow = escrow
    self.folder = (absolute ?? path.absolute).removingLastComponent
  }

  /// The fingerprint of the document's key, or `nil` when it has none. Never creates one.
  ///
  /// - Throws: ``DocbmError`` (`notFound`, `permissionDenied`, `keyMalformed`,
  ///   `unsupportedVersion`, …) when the key cannot be read.
  public func keyFingerprint() throws(DocbmError) -> KeyFingerprint? {
    try readKey()?.fingerprint
  }

  /// Makes a bookmark to `target` (a regular file or a folder), creating the document's key
  /// first if it has none.
  ///
  /// A symbolic link as target is followed: the bookmark refers to what the link leads to.
  ///
  /// With an escrow (``BookmarkService/escrow``), the key is escrowed (a new one, or one the
  /// escrow has no entry for) before the bookmark is returned.
  ///
  /// - Throws: ``DocbmError``: `notFound` (document or target), `unsupportedFileType`,
  ///   `permissionDenied`; and when the key cannot be stored, `unsupportedFilesystem`,
  ///   `readOnlyFilesystem`, `immutable` or `noSpace`, naming the document; the escrow's
  ///   own errors when it cannot be written. Through the Documents portal (see
  ///   ``PortalDocument``): `portalRefusesAttributes` for a single-file export without a key
  ///   (before any key is written), `portalHostPathUnknown` when the portal does not say
  ///   where the document or target really is.
  public func makeBookmark(to target: FilePath) throws(DocbmError) -> Bookmark {
    if let escrow { try restoreEscrowedKey(escrow) }
    let (bookmark, key) = try makeSignedBookmark(to: target)
    // The key signed with, made now or not, is escrowed (with this document, when the
    // escrow does not record it yet) before the bookmark is handed out; a failure here
    // leaves the key in place and the next call retries.
    if let escrow {
      try escrow.deposit(key, document: path)
    }
    return bookmark
  }

  /// Before a bookmark is made on a document without a key: when the escrow records a key
  /// for this file, or for a document at its path, that key goes back on it (a repair, under
  /// ``EscrowRule``), so that the key's earlier bookmarks keep working. A document the escrow
  /// never saw, one of another user's, and a folder document (repair checks a document's
  /// bytes) are left for ``anchorKey()`` to give a new key.
  ///
  /// - Throws: `documentUnproven` when the escrow records a key here but the rule refuses
  ///   this file (no new key is made: that would end the recorded key's bookmarks for good);
  ///   its message names the key recorded and, when they differ, the key the file's
  ///   bookmarks name. Records taken from another escrow's export alone never refuse.
  package func restoreEscrowedKey(_ escrow: KeyEscrow) throws(DocbmError) {
    // A document that cannot be looked at fails here: with the escrow unread, a new key
    // could end a recorded one's bookmarks.
    guard PortalDocument.of(path) == nil, try readKey() == nil,
      let file = try EscrowEntry.Document.of(path, origin: .repaired, mayBePortal: false)
    else { return }
    // Repair checks a document's bytes: a folder document is left to get a new key (the file
    // was looked at just above; one gone since fails where the key is made).
    guard (try? FileStatus.of(path, followSymlinks: true))?.kind == .regular else { return }
    // An escrow that cannot be read records nothing that can be put back; writing the new
    // key's record to it reports what is wrong. An inode number recorded on another
    // filesystem, or for a file gone since, is not this document.
    guard let database = try? escrow.open(create: false),
      let records = try? database.records(atPath: file.path, orInode: file.inode)
    else { return }
    let recorded = records.filter { $0.document.path == file.path || $0.document.hasSameIdentity(as: file) }
    guard !recorded.isEmpty else { return }
    let report = DocumentRepairer(escrow: escrow, searchBudget: searchBudget).repair(path)
    switch report.action {
    case .restored, .nothingToDo:
      return
    case .refused:
      // Records taken from another escrow's export name no document by themselves: they
      // do not hold it back from a key of its own.
      let own = recorded.filter { $0.document.origin != .transferred }
      guard !own.isEmpty else { return }
      // The key the escrow records for this file, and, when they differ, the one its
      // bookmarks name (what repair looked for).
      var keys: [KeyFingerprint] = []
      for record in own where !keys.contains(record.fingerprint) { keys.append(record.fingerprint) }
      var named =
        keys.count == 1 ? "key \(keys[0])" : "keys \(keys.map(\.description).joined(separator: ", "))"
      named += " for this document"
      if let wanted = report.fingerprint, !keys.contains(wanted) {
        named += ", and its bookmarks name key \(wanted)"
      }
      // The repair's refusal ends with the remedy; where that is not already to forget the
      // record first, the way out for a new document at the recorded name is added.
      let forgetting =
        report.remedy == .forgetThenAdopt
        ? ""
        : ". If this file is a new document made at that name, not the one recorded, forget the old record first: docbm escrow forget \(path)"
      throw DocbmError(
        .documentUnproven, path: path,
        message:
          "\(path) has no key, and the escrow records \(named); docbm makes no new key here, since that would end the recorded key's bookmarks: \(report.message)\(forgetting)"
      )
    }
  }

  /// ``makeBookmark(to:)-(FilePath)`` without the escrow, returning the key that signed the
  /// bookmark (for a caller that escrows it itself, as the `docbm` command does).
  package func makeSignedBookmark(to target: FilePath) throws(DocbmError) -> (
    bookmark: Bookmark, key: DocumentKey
  ) {
    let snapshot: TargetSnapshot
    if let targetPortal = PortalDocument.of(target) {
      snapshot = try TargetSnapshot.read(target, through: targetPortal)
    } else {
      snapshot = try TargetSnapshot.read(target)
    }
    // Through the Documents portal, the bookmark records host paths and no identity, and
    // a single-file export, which refuses attributes, is refused before any key is written.
    let documentPortal = PortalDocument.of(path)
    var existingKey: DocumentKey?
    if let documentPortal {
      existingKey = try readKey()
      if documentPortal.refusesAttributes, existingKey == nil {
        throw PortalDocument.refusesAttributes(documentPortal, path: path, saving: false)
      }
      if documentPortal.hostPath == nil { throw PortalDocument.hostPathUnknown(documentPortal, path: path) }
    }
    let key: DocumentKey
    if let existingKey, documentPortal?.refusesAttributes == true {
      key = existingKey
    } else {
      key = try anchorKey()
    }
    AnchoredDocumentRecorder.note(path, key.fingerprint)
    return (try sign(snapshot, key: key, documentHostPath: documentPortal?.hostPath), key)
  }

  /// The document's key, created when it has none, and still the key of the file at the
  /// document's path when this returns.
  ///
  /// A save that replaces the document while the key is created may have copied the old
  /// version's attributes before the key existed. So after reading or creating the key, the
  /// path must still lead to the file that carries it; if a save replaced it meanwhile, the
  /// same key goes on the new version (or the key found there is used), and so on until
  /// the path holds still. The save carries a key that appeared late from its side too
  /// (``DocumentReplacer``).
  private func anchorKey() throws(DocbmError) -> DocumentKey {
    var preferred: DocumentKey?
    for _ in 0..<16 {
      let (key, isInPlace) = try openDocument { fd throws(DocbmError) in
        let key = try KeyAttribute.readOrCreate(on: fd, path: path, preferring: preferred).key
        return (key, try isStillAtPath(fd))
      }
      if isInPlace { return key }
      preferred = key
    }
    throw DocbmError(
      .systemFailure, path: path,
      message: "\(path) kept being replaced while its key was being created; try again",
      recommendation: .retryLater)
  }

  /// Whether the document's path still leads to the file open as `fd`.
  private func isStillAtPath(_ fd: FileDescriptor) throws(DocbmError) -> Bool {
    try mappingSystemErrors(.openDocument, path: path) { () throws(SystemCallError) in
      let open = try FileStatus.of(fd)
      // A path that cannot be looked at now is tried again: opening it next says why.
      guard let now = try? FileStatus.of(path, followSymlinks: true) else { return false }
      return now.inode == open.inode && now.device == open.device
    }
  }

  /// Makes a bookmark to the file or folder at a file URL.
  public func makeBookmark(to target: URL) throws(DocbmError) -> Bookmark {
    try makeBookmark(to: FilePath(target))
  }

  /// Verifies `bookmark` against the document's key, then finds its target.
  ///
  /// Nothing in the record is read before its tag verifies. Resolution never writes the
  /// document or its attributes; a stale result carries a refreshed bookmark to store with
  /// the next save.
  ///
  /// - Throws: ``DocbmError``: `keyMissing` (the document has no key), `keyMismatch`
  ///   (signed with another key), `keyMalformed`, `tampered` (the tag fails), `corrupt`,
  ///   `unsupportedVersion`, `missing` (every folder of its filesystem searched; with
  ///   ``DocbmError/lastKnownPath``), `notFoundNearby` (the search stopped sooner: the
  ///   nearby reach, its time limit; or it passed over folders the user cannot read,
  ///   recommending ``Recommendation/pickAgain``),
  ///   `volumeUnavailable`, `notFound` (the document itself); through the Documents portal
  ///   in a sandbox, `outsideSandbox` (not `missing`) for a target the app cannot see.
  public func resolve(_ bookmark: Bookmark) throws(DocbmError) -> Resolution {
    try resolve(bookmark, cancellation: nil)
  }

  /// ``resolve(_:)-(Bookmark)``, whose walk of a filesystem stops when `cancellation` says so.
  func resolve(_ bookmark: Bookmark, cancellation: SearchCancellation?) throws(DocbmError) -> Resolution {
    try ResolutionFaults.apply(to: bookmark, on: self)
    // Nothing moved: answered with the key's and the target's system calls alone.
    if let unmoved = UnmovedResolver.locate(bookmark, on: self) {
      return Resolution(
        path: unmoved.path, kind: unmoved.kind, staleReasons: [], refreshed: nil, recorded: bookmark)
    }
    let header = try BookmarkRecord.header(of: bookmark.bytes).get()
    return try resolve(
      bookmark, header: header, key: try verifiedKey(for: header.fingerprint), cancellation: cancellation)
  }

  /// Resolves with a key already read from the document (the checker reads it once for
  /// all the bookmarks in a document). `key` must be the document's.
  /// With `refreshing` false, a stale result carries no refreshed bookmark (the checker
  /// needs none, and making one costs a dozen system calls).
  /// With `portal`, what ``PortalDocument/of(_:)`` says of this document, when the caller
  /// knows it already (the checker, for every bookmark of a document).
  /// With `verified`, the caller has verified the record's tag under `key` already (the
  /// checker's unmoved resolve, which found that something moved): it is not verified again.
  /// With `batch`, the search area and document facts that the bookmarks of one call share
  /// (the checker makes one per document).
  package func resolve(
    _ bookmark: Bookmark, key: DocumentKey, refreshing: Bool = true, portal: PortalDocument?? = nil,
    verified: Bool = false, batch: ResolutionBatch? = nil
  ) throws(DocbmError) -> Resolution {
    let header = try BookmarkRecord.header(of: bookmark.bytes).get()
    try checkFingerprint(header.fingerprint, against: key)
    return try resolve(
      bookmark, header: header, key: key, refreshing: refreshing, portal: portal, verified: verified,
      batch: batch)
  }

  /// Where watchers record the renames they see: the escrow's folder (the user's, unless
  /// the document was given another escrow).
  var moveJournal: MoveJournal { MoveJournal(folder: (escrow ?? .default).folder) }

  /// The document's key, or `nil` when it has none.
  package func readKey() throws(DocbmError) -> DocumentKey? {
    try KeyAttribute.read(atPath: path).key(of: path)
  }

  /// The full resolve of a record whose header is read: verifies it (unless `verified`),
  /// finds its target through `batch`'s search area, and refreshes a stale result.
  func resolve(
    _ bookmark: Bookmark, header: BookmarkRecord.Header, key: DocumentKey, refreshing: Bool = true,
    portal knownPortal: PortalDocument?? = nil, verified: Bool = false, batch: ResolutionBatch? = nil,
    cancellation: SearchCancellation? = nil
  ) throws(DocbmError) -> Resolution {
    guard verified || BookmarkRecord.verify(bookmark.bytes, key: key) else {
      throw DocbmError(
        .tampered, path: path,
        message: "the bookmark's signature does not verify with the key of \(path): its bytes were changed")
    }
    AnchoredDocumentRecorder.note(path, key.fingerprint)
    let contents = try BookmarkRecord.decodeFields(bookmark.bytes, header: header).get()
    let portal = knownPortal ?? batch.map(\.portal) ?? PortalDocument.of(path)
    let location: TargetLocator.Location
    if let portal {
      location = try PortalTargetLocator(contents: contents, portal: portal, budget: searchBudget).locate()
    } else {
      location = try TargetLocator(
        contents: contents, documentFolder: folder, documentPath: path, budget: searchBudget,
        area: batch?.area, cancellation: cancellation, journal: moveJournal, escrow: escrow
      ).locate()
    }
    // The escrow follows documents: one that moved (with its targets, or alone) is
    // recorded where it is now (once per batch).
    if let escrow, batch?.recordedMove != true,
      location.reasons.contains(.documentMoved) || location.reasons.contains(.relativePathChanged)
    {
      // Best effort: the resolve stands; a sighting not recorded is recorded at the next one.
      _ = try? escrow.recordMove(of: key.fingerprint, to: path)
      batch?.recordedMove = true
    }
    var refreshed: Bookmark?
    // Through the portal, a refreshed bookmark is computed from the host paths only: never
    // without them, and never from the portal's own paths. Best effort: without a refreshed
    // bookmark the recorded one still resolves, and the next resolve offers one again.
    if refreshing, !location.reasons.isEmpty, !location.reasons.contains(.ambiguous),
      portal == nil || portal?.hostPath != nil,
      let snapshot = try? refreshSnapshot(of: location.path, batch: batch)
    {
      let origin = batch?.signingOrigin(of: self, documentHostPath: portal?.hostPath)
      refreshed = try? sign(  // best effort, as above
        snapshot, key: key, from: origin ?? signingOrigin(documentHostPath: portal?.hostPath))
    }
    return Resolution(
      path: location.path, kind: contents.kind, staleReasons: location.reasons,
      refreshed: refreshed, recorded: bookmark, candidates: location.candidates, portalDocument: portal)
  }

  /// The snapshot a refreshed bookmark is made from: through the portal when the target is
  /// reached through it.
  /// In a batch, the folders' facts are shared, and a portal is looked for only when one
  /// was mounted as the batch began.
  private func refreshSnapshot(of target: FilePath, batch: ResolutionBatch?) throws(DocbmError)
    -> TargetSnapshot
  {
    if batch?.portalsMounted ?? true, let portal = PortalDocument.of(target) {
      return try TargetSnapshot.read(target, through: portal)
    }
    return try TargetSnapshot.read(target, folders: batch?.folders)
  }

  /// The document's key, checked against the fingerprint a bookmark names.
  private func verifiedKey(for fingerprint: KeyFingerprint) throws(DocbmError) -> DocumentKey {
    guard let key = try readKey() else { throw keyMissing(fingerprint) }
    try checkFingerprint(fingerprint, against: key)
    return key
  }

  /// The `keyMissing` error for a bookmark signed with `fingerprint`; `unsupportedFileType`
  /// when the document is not a regular file or a folder.
  func keyMissing(_ fingerprint: KeyFingerprint) -> DocbmError {
    // A FIFO, device or socket holds no user attributes: it is no document, not one that
    // lost its key. One that cannot be looked at is reported as it read, without a key.
    if let status = try? FileStatus.of(path, followSymlinks: true),
      status.kind != .regular, status.kind != .directory
    {
      return notADocument()
    }
    return DocbmError(
      .keyMissing, path: path,
      message:
        "\(path) has no key (\(KeyAttribute.name)), so bookmark \(fingerprint) cannot be verified; a save may have dropped it"
    )
  }

  /// Throws `keyMismatch` unless a bookmark signed with `fingerprint` belongs to `key`.
  func checkFingerprint(_ fingerprint: KeyFingerprint, against key: DocumentKey) throws(DocbmError) {
    guard key.fingerprint == fingerprint else {
      throw DocbmError(
        .keyMismatch, path: path,
        message: "the bookmark was signed with key \(fingerprint), but \(path) carries key \(key.fingerprint)"
      )
    }
  }

  /// A new record for `snapshot`, relative to the document's folder, signed with `key`.
  ///
  /// - Throws: ``DocbmError`` `unsupportedFileType` when the paths make the record longer
  ///   than a decoder accepts (``BookmarkRecord/maximumLength``).
  /// `documentHostPath` is the document's host path when it is reached through the
  /// Documents portal: the relative and document paths start from there.
  func sign(
    _ snapshot: TargetSnapshot, key: DocumentKey, documentHostPath: FilePath? = nil
  ) throws(DocbmError) -> Bookmark {
    try sign(snapshot, key: key, from: signingOrigin(documentHostPath: documentHostPath))
  }

  /// Where a new record says its document is: its real folder and path, and the file.
  struct SigningOrigin {
    let realFolder: FilePath
    let realDocument: FilePath
    let document: RecordedDocument?
  }

  /// The document's side of a new record (two `realpath` calls and a `stat`).
  /// `documentHostPath` is the document's host path when it is reached through the
  /// Documents portal.
  func signingOrigin(documentHostPath: FilePath?) -> SigningOrigin {
    // Paths that cannot be resolved are recorded as they read.
    let realFolder =
      documentHostPath?.removingLastComponent ?? (try? TargetSnapshot.canonicalPath(folder)) ?? folder
    let realDocument =  // as above
      documentHostPath ?? (try? TargetSnapshot.canonicalPath(path))
      ?? realFolder.appending(path.lastComponent)
    return SigningOrigin(
      realFolder: realFolder, realDocument: realDocument,
      document: documentHostPath == nil ? recordedDocument() : nil)
  }

  /// A new record for `snapshot`, made from `origin`, signed with `key`; see
  /// ``sign(_:key:documentHostPath:)``.
  func sign(_ snapshot: TargetSnapshot, key: DocumentKey, from origin: SigningOrigin) throws(DocbmError)
    -> Bookmark
  {
    let contents = BookmarkContents(
      version: BookmarkRecord.version, keyFingerprint: key.fingerprint, kind: snapshot.kind,
      relativePath: snapshot.path.relative(from: origin.realFolder), absolutePath: snapshot.path,
      createdAt: .now, identity: snapshot.identity, volume: snapshot.volume,
      documentPath: origin.realDocument,
      documentIdentity: origin.document)
    let bytes = BookmarkRecord.encode(contents, key: key)
    guard bytes.count <= BookmarkRecord.maximumLength else {
      throw DocbmError(
        .unsupportedFileType, path: snapshot.path,
        message:
          "the paths of \(snapshot.path) make a bookmark of \(bytes.count) bytes, more than the \(BookmarkRecord.maximumLength) a bookmark may have",
        recommendation: .useAnotherLocation)
    }
    return Bookmark(verifiedBytes: bytes, fingerprint: key.fingerprint)
  }

  /// The document as a file, for a new bookmark; `nil` when it cannot be looked at (the
  /// bookmark then records no identity of its document).
  private func recordedDocument() -> RecordedDocument? {
    (try? FileStatus.of(path, followSymlinks: true)).map(RecordedDocument.init)  // optional, as documented
  }

  /// Opens the document (following a symbolic link to it) and checks that it is a regular
  /// file or a folder.
  private func openDocument<Value>(
    _ body: (FileDescriptor) throws(DocbmError) -> Value
  ) throws(DocbmError) -> Value {
    let fd = try mappingSystemErrors(.openDocument, path: path) { () throws(SystemCallError) in
      try FileDescriptor.open(path, [.readOnly, .nonBlocking])
    }
    defer { fd.close() }
    let status = try mappingSystemErrors(.openDocument, path: path) { () throws(SystemCallError) in
      try FileStatus.of(fd)
    }
    guard status.kind == .regular || status.kind == .directory else { throw notADocument() }
    return try body(fd)
  }

  /// The error for a document that is neither a regular file nor a folder.
  private func notADocument() -> DocbmError {
    DocbmError(
      .unsupportedFileType, path: path,
      message: "\(path) is neither a regular file nor a folder, so it cannot anchor bookmarks")
  }
}
