import DocbmSystem

/// A bookmark in a document's bytes that does not verify with the document's key (the
/// document has none, or another), with the file its recorded relative path names from the
/// document's folder now: what an app shows the user before adopting it
/// (``AnchoredDocument/adoptionCandidates()``, ``AnchoredDocument/adopt(_:)``).
///
/// Nothing in it is verified: the record may be a copy's that travelled without its key,
/// or one pasted from someone else's document, or forged. Only the user, who sees what it
/// points at, can say it is theirs.
public struct AdoptionCandidate: Hashable, Sendable {
  /// Where it is in the document's bytes, and in which form.
  public let found: FoundBookmark
  /// The key it names (not this document's, or the document has none).
  public let keyFingerprint: KeyFingerprint
  /// The target's path relative to the document's folder, as recorded (unverified).
  public let recordedRelativePath: FilePath
  /// The document it was made in, as recorded (unverified), when it says.
  public let recordedDocument: FilePath?
  /// What the recorded relative path names from this document's folder now, when there is
  /// a file or folder there, as its real path (every symbolic link on the way resolved):
  /// the only target adoption gives it, and what a bookmark of it records.
  public let target: FilePath?
  /// What ``target`` is.
  public let targetKind: TargetKind?
  /// Whether a symbolic link on the way from the document's folder leads elsewhere than
  /// the recorded relative path reads (`img/logo.png -> ../../.ssh/id_ed25519`): the
  /// target is not what the path seems to name.
  public let reachedThroughLink: Bool
  /// Whether ``target`` lies outside the document's folder (by real paths).
  public let isOutsideDocumentFolder: Bool
  /// The target's inode number when listed, so that ``AnchoredDocument/adopt(_:)`` gives
  /// the bookmark to the very object shown.
  let targetInode: UInt64?

  /// Whether the user must confirm this candidate on its own, having seen where it really
  /// leads: its target is reached through a symbolic link, or lies outside the document's
  /// folder. An app adopts such a candidate only on a yes for it, never with the others.
  public var needsItsOwnConfirmation: Bool { reachedThroughLink || isOutsideDocumentFolder }
}

extension AnchoredDocument {
  /// The bookmarks in the document's bytes that do not verify with its key, each with the
  /// file its recorded path relative to the document names now: the list an app shows
  /// before asking the user to adopt them.
  ///
  /// A copy of a project that travelled without its key (a sync, a `git clone`, an
  /// unzipped archive) holds bookmarks nothing can verify any more. Their records are
  /// hints only: the target is looked for at the recorded relative path and nowhere else.
  /// Each occurrence in the bytes is a candidate of its own, in the order found, within the
  /// scanner's limits (a document holding more bookmarks than a check examines lists the
  /// ones found first).
  ///
  /// - Throws: ``DocbmError`` when the document cannot be read (`notFound`,
  ///   `permissionDenied`, `unsupportedFileType`, `ioError`), or its key attribute cannot be
  ///   used (`keyMalformed`, `unsupportedVersion`).
  public func adoptionCandidates() throws(DocbmError) -> [AdoptionCandidate] {
    // A filesystem without user extended attributes holds no key: every bookmark is a
    // candidate (shown before a copy to a filesystem that can hold one).
    let key: DocumentKey?
    do {
      key = try readKey()
    } catch  where error.code == .unsupportedFilesystem {
      key = nil
    }
    // A folder that cannot be resolved is taken as it reads; a target that cannot be is not
    // there (no target, nothing to adopt for it).
    let realFolder = (try? SymbolicLink.canonicalPath(folder.absolute)) ?? folder.absolute.lexicallyNormalized
    var candidates: [AdoptionCandidate] = []
    try BookmarkScanner().scan(fileAt: path) { found in
      if let key, found.bookmark.keyFingerprint == key.fingerprint,
        BookmarkRecord.verify(found.bookmark.bytes, key: key)
      {
        return
      }
      guard let contents = try? found.bookmark.decodeUnverified() else { return }  // names no target
      let named = AnchoredDocument.adoptionPath(contents.relativePath, from: folder)
      // Where the path leads, every link resolved, and the object there; as said above, one
      // that cannot be looked at offers no target.
      let real = try? SymbolicLink.canonicalPath(named)
      let status = real.flatMap { try? FileStatus.of($0, followSymlinks: false) }  // as above
      let kind: TargetKind? =
        switch status?.kind {
        case .regular: .file
        case .directory: .folder
        default: nil
        }
      let target = kind == nil ? nil : real
      let reads = realFolder.appending(contents.relativePath.bytes).lexicallyNormalized
      candidates.append(
        AdoptionCandidate(
          found: found, keyFingerprint: contents.keyFingerprint, recordedRelativePath: contents.relativePath,
          recordedDocument: contents.documentPath, target: target, targetKind: kind,
          reachedThroughLink: target.map { $0 != reads } ?? false,
          isOutsideDocumentFolder: target.map { !$0.isBelow(realFolder) } ?? false,
          targetInode: target == nil ? nil : status?.inode))
    }
    return candidates
  }

  /// Makes `candidates` (from ``adoptionCandidates()``, confirmed by the user) the
  /// document's own: for each whose target is there, a new bookmark to that target signed
  /// with the document's key, in order (`nil` for one whose target is not there; the same
  /// bookmark for candidates with the same target). The old
  /// records are never trusted or reused; the app stores the new ones with its next save
  /// (``replaceDocument(with:options:)``). A candidate that
  /// ``AdoptionCandidate/needsItsOwnConfirmation`` is passed here only after the user said
  /// yes to it alone.
  ///
  /// The document gets a key if it has none, exactly as the first ``makeBookmark(to:)-(FilePath)``
  /// gives one (escrowed, as its document, when the service has an escrow; a key the
  /// escrow records for this file is put back instead of a new one). A key it carries is
  /// kept: adoption never replaces a key.
  ///
  /// Never automatic: repair, `watch --repair`, the checker and ``makeBookmark(to:)-(FilePath)`` do
  /// not adopt. Call it only after the user has seen what each candidate points at and
  /// said yes; an unverified bookmark may be someone else's, pasted or forged, and adopting
  /// it makes it as good as one the user made.
  ///
  /// - Throws: ``DocbmError`` as ``makeBookmark(to:)-(FilePath)`` does (`documentUnproven` when the
  ///   escrow records a key for this path but the rule does not accept this file: repair
  ///   or check it first); `notFound` when a target is no longer the object listed (list
  ///   the candidates again, and ask again).
  public func adopt(_ candidates: [AdoptionCandidate]) throws(DocbmError) -> [Bookmark?] {
    // One bookmark per target: a record placed many times gets the same new one.
    var made: [FilePath: Bookmark] = [:]
    var adopted: [Bookmark?] = []
    for candidate in candidates {
      guard let target = candidate.target else {
        adopted.append(nil)
        continue
      }
      if made[target] == nil {
        let bookmark = try makeBookmark(to: target)
        // The bookmark records the object it reached: the one listed, or none. (Just made
        // here, it decodes.)
        guard let inode = candidate.targetInode, (try? bookmark.decodeUnverified())?.identity.inode == inode
        else {
          throw DocbmError(
            .notFound, path: target,
            message:
              "\(target) is no longer the \(candidate.targetKind?.rawValue ?? "file") that was listed for adoption: list the bookmarks again, and ask again"
          )
        }
        made[target] = bookmark
      }
      adopted.append(made[target])
    }
    return adopted
  }
}

extension AnchoredDocument {
  /// Where a candidate's recorded relative path leads from the document's folder, before
  /// any link is resolved: joined and lexically normalized, as adoption reads it.
  static func adoptionPath(_ relative: FilePath, from folder: FilePath) -> FilePath {
    folder.appending(relative.bytes).lexicallyNormalized
  }

  /// Whether adopting the document at `path`, which carries no key, would give a bookmark
  /// a target: whether one of its bookmarks names a file or folder from the document's
  /// folder, as ``adoptionCandidates()`` finds one (a candidate with a ``AdoptionCandidate/target``),
  /// without resolving each path's links to report where it really leads, which only the
  /// list shown before adopting needs. A hint for the advice of a check: a document that
  /// cannot be read offers nothing.
  static func hasAdoptionTargets(keyless path: FilePath) -> Bool {
    let folder = path.absolute.removingLastComponent
    var found = false
    // A hint only: a document that cannot be read offers nothing (adopting it says why).
    _ = try? BookmarkScanner().scan(fileAt: path) { bookmark in
      // A record that does not decode names no target.
      guard !found, let contents = try? bookmark.bookmark.decodeUnverified() else { return }
      // Followed through every link, as the candidate's real path is; what cannot be
      // looked at offers no target, as there.
      let status = try? FileStatus.of(adoptionPath(contents.relativePath, from: folder), followSymlinks: true)
      found = status?.kind == .regular || status?.kind == .directory
    }
    return found
  }
}
