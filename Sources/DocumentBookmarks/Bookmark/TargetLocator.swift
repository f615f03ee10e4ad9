import DocbmSystem

/// Finds a verified bookmark's target. The recorded identity wins whenever the very file
/// still exists within the search budget; a file at a recorded path with another identity
/// is the answer only when the original cannot be found.
///
/// Order (docs/design.md, "Resolution", with the table of situations):
/// 1. The document has not moved (the relative path from its folder names the absolute
///    path): the recorded identity at the absolute path → exact, not stale. This is the
///    common case, and the only work it does.
/// 2. The document moved or was copied, and the recorded identity is at the relative path
///    → `documentMoved` (the project travelled together).
/// 3. The recorded identity is still at the absolute path. When another file of the right
///    kind stands at the relative path, evidence decides: the original document, with the
///    same key, still where the bookmark was made, and a faithful copy (same size and
///    modification time, the time perhaps cut to seconds or 100 ns; a folder with the
///    original's names) at the relative path → a project copy, `documentMoved`; the
///    original document gone (it was moved alone) → the absolute path,
///    `relativePathChanged`; otherwise `ambiguous`, with both candidates. Without another
///    file there → `relativePathChanged`.
/// 4. Neither path holds the identity: a faithful copy at the relative path of a moved
///    document is the copy's target (`documentMoved`), without a search.
/// 5. The recorded volume is not mounted → `volumeUnavailable`.
///    Then the renames a watcher recorded (``MoveJournal``): a path they lead to that holds
///    the very object → `targetMoved`, decided as in 6, with no folder listed.
/// 6. The nearby identity search (``SearchBudget``) → `targetMoved`; unless a document
///    with the same key stands beside the found target where the bookmark records its
///    document, the document at hand is not the very file the bookmark was made in, and
///    the document's own file stands at its relative path (a backup restored beside the
///    renamed original): that file when it is a faithful copy (`documentMoved`), otherwise
///    `ambiguous`.
/// 7. A file of the right kind at the relative path (`documentMoved`, `identityChanged`)
///    or at the absolute path (`identityChanged`): the original is not nearby, the path
///    wins (another program's atomic save; no walk of the filesystem for it).
/// 8. The recorded identity in a Trash, by the Trash's info files (`targetMoved`,
///    `inTrash`; a search that finds it in a Trash says `inTrash` too).
///    Then a target that was itself a document docbm saved (a new file at its path, with
///    the same key) and was renamed after: the escrow recorded the file that replaced it at
///    its absolute path; that file's identity, found nearby and still carrying the key,
///    is the target (`targetMoved`, `identityChanged`).
/// 9. The walk of the target's whole filesystem (``SearchBudget/Reach/filesystem``),
///    shared by the call's bookmarks → `targetMoved`, decided as in 6.
/// 10. Otherwise `missing` when that walk read every folder on the filesystem;
///    `notFoundNearby` when the search stopped sooner (``Recommendation/searchWider``) or
///    passed over folders the user cannot read (``Recommendation/pickAgain``).
///
/// A bookmark that recorded no identity (inode 0: made through the Documents portal) is
/// found by its paths only, in the same order, without a search.
struct TargetLocator {
  let contents: BookmarkContents
  let documentFolder: FilePath
  /// The document's path now (as the app gave it).
  let documentPath: FilePath
  let budget: SearchBudget
  /// The folders already listed by this call (a batch resolve shares one); `nil` for a
  /// search of its own.
  var area: SearchArea? = nil
  /// Whether the caller gave up: a walk of a whole filesystem stops (for a search of its own).
  var cancellation: SearchCancellation? = nil
  /// Where watchers recorded the renames they saw (for a search of its own).
  var journal: MoveJournal? = nil
  /// The escrow of the resolving document, whose records say which file a docbm save put
  /// at a target's path; `nil` for none.
  var escrow: KeyEscrow? = nil

  struct Location {
    let path: FilePath
    let reasons: [StaleReason]
    var candidates: [Resolution.Candidate] = []
  }

  func locate() throws(DocbmError) -> Location {
    let matcher = IdentityMatcher(kind: contents.kind, identity: contents.identity)
    let absolute = contents.absolutePath
    let relativeCandidate = documentFolder.appending(contents.relativePath.bytes)
    var documentMoved = relativeCandidate.lexicallyNormalized != absolute
    // A recorded path that could not be looked at because the storage failed (EIO, a FUSE
    // server gone) makes "missing" a guess: that is reported as ioError instead.
    var storageFailure: SystemCallError?
    func status(_ path: FilePath) -> FileStatus? {
      do {
        return try FileStatus.of(path, followSymlinks: false)
      } catch {
        if storageFailure == nil, error.errno.isStorageFailure { storageFailure = error }
        return nil
      }
    }
    let absoluteStatus = status(absolute)
    let absoluteIsTarget = absoluteStatus.map { matcher.isSameObject($0, at: absolute) } ?? false

    if !matcher.hasIdentity {
      return try locateByPath(
        absoluteStatus: absoluteStatus, relative: relativeCandidate, moved: documentMoved)
    }

    if !documentMoved && absoluteIsTarget {
      return Location(path: absolute, reasons: [])
    }

    var relativeStatus: FileStatus?
    if documentMoved, let status = status(relativeCandidate), matcher.kindMatches(status) {
      if let absoluteStatus, absoluteStatus.device == status.device && absoluteStatus.inode == status.inode {
        // The same place by another name (the document opened through a linked folder):
        // the document did not move.
        if absoluteIsTarget { return Location(path: absolute, reasons: []) }
        documentMoved = false
      } else if matcher.isSameObject(status, at: relativeCandidate) {
        return Location(path: canonical(relativeCandidate), reasons: [.documentMoved])
      } else {
        relativeStatus = status
      }
    }

    if absoluteIsTarget {
      guard let relativeStatus else { return Location(path: absolute, reasons: [.relativePathChanged]) }
      return decide(absolute: absolute, relative: canonical(relativeCandidate), relativeStatus)
    }

    if let relativeStatus, looksCopied(relativeStatus) {
      return Location(path: canonical(relativeCandidate), reasons: [.documentMoved])
    }

    if absoluteStatus == nil, let volumeError = unavailableVolume() { throw volumeError }

    let area = self.area ?? SearchArea(budget: budget, cancellation: cancellation, journal: journal)
    // A watcher saw it renamed: found where it went, without a search.
    if let candidate = recordedMove(of: matcher, from: absolute, area: area) {
      return located(
        candidate, documentMoved: documentMoved,
        relative: relativeStatus.map { (canonical(relativeCandidate), $0) }, absolute: absoluteStatus)
    }
    let search = IdentitySearch(matcher: matcher, budget: budget).search(roots: searchRoots(area), in: area)
    if storageFailure == nil { storageFailure = search.storageFailure }
    if let found = search.found {
      return located(
        found, documentMoved: documentMoved,
        relative: relativeStatus.map { (canonical(relativeCandidate), $0) },
        absolute: absoluteStatus)
    }
    if relativeStatus != nil {
      return Location(path: canonical(relativeCandidate), reasons: [.documentMoved, .identityChanged])
    }
    if let absoluteStatus, matcher.kindMatches(absoluteStatus) {
      let moved: [StaleReason] = documentMoved ? [.relativePathChanged] : []
      return Location(path: absolute, reasons: moved + [.identityChanged])
    }
    if let trashed = trashed(matcher, area: area) {
      return Location(path: trashed, reasons: [.targetMoved, .inTrash])
    }
    if absoluteStatus == nil, let successor = savedSuccessor(area: area) {
      return successor
    }
    // Not nearby, and no other file stands at its paths: the whole filesystem, when the
    // budget reaches that far.
    var walk: FilesystemWalk.Outcome?
    if budget.reach == .filesystem, let (mountRoot, home) = filesystemRoots(area) {
      walk = area.filesystem.find(matcher, mountRoot: mountRoot, home: home)
      if let found = walk?.found {
        return located(
          found, documentMoved: documentMoved,
          relative: relativeStatus.map { (canonical(relativeCandidate), $0) }, absolute: absoluteStatus)
      }
      if storageFailure == nil { storageFailure = walk?.storageFailure }
    }
    if let storageFailure {
      let place = storageFailure.path.map { " reading \($0)" } ?? ""
      throw DocbmError(
        .ioError, path: absolute,
        message:
          "the \(contents.kind.rawValue) last seen at \(absolute) could not be looked for: \(storageFailure.errno)\(place); try again later",
        systemCall: storageFailure.call, errno: storageFailure.errno.rawValue, lastKnownPath: absolute)
    }
    throw notFound(nearby: search, walk: walk)
  }

  /// The target when it was a document that docbm saved (so a new file, with the document's
  /// key, took its path) and that was then renamed: the escrow's record of the file a save,
  /// a repair or an accepted successor put at the target's absolute path, born after the
  /// target, names the new file's identity, looked for in the watchers' recorded renames
  /// and nearby, and taken only while it carries the record's key. `nil` when there is no
  /// such record, or the file is not found.
  private func savedSuccessor(area: SearchArea) -> Location? {
    // An escrow that cannot be read leaves the target not found, as without an escrow.
    guard let escrow, let records = try? escrow.records(at: contents.absolutePath) else { return nil }
    for record in records {
      let document = record.document
      // Made after the target the bookmark recorded (a record of an older document that once
      // stood at the path is not its successor).
      let newer =
        if let born = document.birthTime, let recorded = contents.identity.birthTime {
          born > recorded
        } else {
          document.confirmed >= contents.createdAt
        }
      guard document.inode != contents.identity.inode, newer,
        [.saved, .successor, .repaired].contains(document.origin)
      else { continue }
      // The identity the matcher compares (inode, birth time, handle); a record keeps no
      // size or time, which the matcher does not read.
      let identity = TargetIdentity(
        fileHandle: document.fileHandle, inode: document.inode, generation: nil,
        birthTime: document.birthTime,
        size: 0, modificationTime: Timestamp(seconds: 0, nanoseconds: 0))
      let successor = IdentityMatcher(kind: contents.kind, identity: identity)
      // A file whose key cannot be read is not shown to be the document: not taken.
      guard
        let found = recordedMove(of: successor, from: contents.absolutePath, area: area)
          ?? IdentitySearch(matcher: successor, budget: budget).search(roots: searchRoots(area), in: area)
          .found,
        case .key(let key)? = try? KeyAttribute.read(atPath: found), key.fingerprint == record.fingerprint
      else { continue }
      return Location(path: canonical(found), reasons: [.targetMoved, .identityChanged])
    }
    return nil
  }

  /// Where a watcher saw the object `matcher` names renamed to from `path`, when the file
  /// there is still that object; `nil` when no recorded rename leads to it.
  private func recordedMove(of matcher: IdentityMatcher, from path: FilePath, area: SearchArea) -> FilePath? {
    MoveJournal.candidates(for: path, inode: matcher.identity.inode, in: area.recordedMoves).first {
      candidate in
      // A recorded rename whose path cannot be looked at now leads nowhere.
      (try? FileStatus.of(candidate, followSymlinks: false)).map { matcher.isSameObject($0, at: candidate) }
        ?? false
    }
  }

  /// The answer when the recorded object was found by its identity at `found`, away from
  /// its recorded paths; `relative` and `absolute` are what stands at those paths.
  private func located(
    _ found: FilePath, documentMoved: Bool, relative: (FilePath, FileStatus)?, absolute: FileStatus?
  ) -> Location {
    let matcher = IdentityMatcher(kind: contents.kind, identity: contents.identity)
    // The document's own file stands where the bookmark leads from it, and the recorded
    // one was found elsewhere: a restored backup beside the renamed original, or a copy
    // of a project whose original was moved away.
    let own = documentMoved ? relative : absolute.map { (contents.absolutePath, $0) }
    if let (ownPath, ownStatus) = own, matcher.kindMatches(ownStatus),
      let copy = copyLocation(own: ownPath, ownStatus, original: found)
    {
      return copy
    }
    var reasons: [StaleReason] = [.targetMoved]
    if documentMoved { reasons.append(.documentMoved) }
    if TrashInfo.contains(found) { reasons.append(.inTrash) }
    return Location(path: found, reasons: reasons)
  }

  /// The error for a target not found: `missing` when a walk read every folder on its
  /// filesystem, `notFoundNearby` otherwise (recommending ``Recommendation/pickAgain`` when
  /// only folders the user cannot read were left); the message says how far the search
  /// looked.
  private func notFound(nearby: IdentitySearch.Outcome, walk: FilesystemWalk.Outcome?) -> DocbmError {
    let absolute = contents.absolutePath
    let what = "the \(contents.kind.rawValue) last seen at \(absolute)"
    guard let walk else {
      let near =
        nearby.budgetSpent
        ? "in the \(budget.maximumEntries) folder entries the nearby search read"
        : "in the folders near its old place"
      let further =
        budget.reach == .nearby
        ? "a search of its whole filesystem may find it"
        : "its filesystem could not be searched further (its mount was not found)"
      return DocbmError(
        .notFoundNearby, path: absolute,
        message: "\(what) was not found: not at its recorded paths, nor by its identity \(near); \(further)",
        lastKnownPath: absolute)
    }
    let extent = walk.extent
    let roots = extent.roots.map(\.description).joined(separator: ", then ")
    let unreadable =
      extent.foldersUnreadable == 0
      ? ""
      : "; \(extent.foldersUnreadable) folder\(extent.foldersUnreadable == 1 ? "" : "s") you cannot read passed over"
    switch extent.ending {
    case .complete where extent.foldersUnreadable > 0:
      // The target may lie in a folder the walk could not list: gone is not proven, and
      // forgetting the bookmark would lose a file that may exist.
      let folders = "\(extent.foldersUnreadable) folder\(extent.foldersUnreadable == 1 ? "" : "s")"
      return DocbmError(
        .notFoundNearby, path: absolute,
        message:
          "\(what) was not found: not at its recorded paths, nor by its identity in any folder you can read on its filesystem (walked from \(roots)); it may be in one of the \(folders) you cannot read, which the walk passed over: ask the user to pick it again",
        recommendation: .pickAgain, lastKnownPath: absolute)
    case .complete:
      return DocbmError(
        .missing, path: absolute,
        message:
          "\(what) is gone: not at its recorded paths, nor found by its identity in any folder of its filesystem (walked from \(roots)); moved to another filesystem, it is a new file there, which a relink of its folder finds",
        lastKnownPath: absolute)
    case .timeLimit, .cancelled, nil:
      let stop =
        extent.ending == .cancelled
        ? "before the call was cancelled"
        : "before the search's time limit (\(budget.filesystemTimeLimit.map { "\($0)" } ?? "none")) ran out"
      return DocbmError(
        .notFoundNearby, path: absolute,
        message:
          "\(what) was not found: not at its recorded paths, nor by its identity in the part of its filesystem searched \(stop) (\(extent.foldersListed) folders listed from \(roots)\(unreadable)); a search without a time limit may find it",
        lastKnownPath: absolute)
    }
  }

  /// The recorded object in a Trash, moved there itself or inside a trashed folder: found
  /// through the Trash's info files, and only when it is the very object (the search never
  /// reaches a Trash, which lies far from the target's old place).
  private func trashed(_ matcher: IdentityMatcher, area: SearchArea) -> FilePath? {
    let entries = area.trashEntries(mountPoint: contents.volume.mountPoint)
    for candidate in TrashInfo.candidates(for: contents.absolutePath, among: entries) {
      // Taken only when it is shown to be the object; one that cannot be looked at is not.
      if let status = try? FileStatus.of(candidate, followSymlinks: false),
        matcher.isSameObject(status, at: candidate)
      {
        return candidate
      }
    }
    return nil
  }

  /// A bookmark that recorded no identity (made through the Documents portal): by path
  /// only, with no search; the relative path of a moved document first.
  private func locateByPath(absoluteStatus: FileStatus?, relative: FilePath, moved: Bool) throws(DocbmError)
    -> Location
  {
    let matcher = IdentityMatcher(kind: contents.kind, identity: contents.identity)
    let absoluteFits = absoluteStatus.map(matcher.kindMatches) ?? false
    if !moved && absoluteFits { return Location(path: contents.absolutePath, reasons: []) }
    // A relative path that cannot be looked at is not taken: the absolute path decides.
    if moved, let status = try? FileStatus.of(relative, followSymlinks: false), matcher.kindMatches(status) {
      return Location(path: canonical(relative), reasons: [.documentMoved])
    }
    if absoluteFits { return Location(path: contents.absolutePath, reasons: [.relativePathChanged]) }
    if absoluteStatus == nil, let volumeError = unavailableVolume() { throw volumeError }
    throw DocbmError(
      .notFoundNearby, path: contents.absolutePath,
      message:
        "the \(contents.kind.rawValue) last seen at \(contents.absolutePath) was not found: not at its recorded paths, and the bookmark, made through the Documents portal, records no identity to search for; ask the user to pick it again",
      recommendation: .pickAgain, lastKnownPath: contents.absolutePath)
  }

  /// The recorded file is at its absolute path and another file stands at the relative
  /// path of the moved (or copied) document: which one is the target?
  private func decide(absolute: FilePath, relative: FilePath, _ relativeStatus: FileStatus) -> Location {
    // A folder copied by a tool that gives it a new modification time is still a copy
    // when it holds the same names as the original beside it.
    let copied =
      looksCopied(relativeStatus)
      || (relativeStatus.kind == .directory && contents.kind == .folder
        && Self.sameEntries(absolute, relative))
    let originalRemains = originalDocumentRemains()
    if originalRemains == true && copied {
      return Location(path: relative, reasons: [.documentMoved])
    }
    if originalRemains == false {
      return Location(path: absolute, reasons: [.relativePathChanged])
    }
    let why =
      originalRemains == true
      ? "the original document is still where the bookmark was made, but the file at the relative path is not a copy of the target (another size or modification time)"
      : "the bookmark does not say where its document was, so a copy cannot be told from a move"
    return Location(
      path: absolute, reasons: [.relativePathChanged, .ambiguous],
      candidates: [
        Resolution.Candidate(
          path: absolute, basis: .recordedIdentity,
          note: "the very file the bookmark recorded, still at its absolute path; \(why)"),
        Resolution.Candidate(
          path: relative, basis: .relativePath,
          note:
            "another file, at the recorded path relative to the document\(copied ? ", with the target's size and modification time" : "")"
        ),
      ])
  }

  /// The answer when the document at hand is a copy of the bookmark's document and the
  /// recorded target was found away from it, at `original`: a document with the same key
  /// stands beside `original` where the bookmark records its document (the original
  /// project, moved or renamed), and the document at hand is not the very file the
  /// bookmark was made in. Its own file at `own` is then its target when it is a faithful
  /// copy (`documentMoved`), and `ambiguous` otherwise. `nil` when the evidence says the
  /// document at hand is the original, or that no other document was left: the recorded
  /// file wins (`targetMoved`).
  private func copyLocation(own: FilePath, _ ownStatus: FileStatus, original: FilePath) -> Location? {
    guard let documentPathFromTarget = contents.documentPathFromTarget else { return nil }
    // A copy is taken only on evidence seen: a file or key that cannot be read is no
    // evidence, and the recorded file wins.
    let current = try? FileStatus.of(documentPath, followSymlinks: true)
    let otherDocument = original.removingLastComponent.appending(documentPathFromTarget.bytes)
      .lexicallyNormalized
    guard let other = try? FileStatus.of(otherDocument, followSymlinks: true) else { return nil }  // as above
    if let current, current.device == other.device && current.inode == other.inode { return nil }
    if isRecordedDocument(current, rather: other) { return nil }
    // As above.
    guard case .key(let key)? = try? KeyAttribute.read(atPath: otherDocument),
      key.fingerprint == contents.keyFingerprint
    else { return nil }
    let copied =
      looksCopied(ownStatus)
      || (ownStatus.kind == .directory && contents.kind == .folder && Self.sameEntries(original, own))
    if copied { return Location(path: own, reasons: [.documentMoved]) }
    return Location(
      path: original, reasons: [.targetMoved, .ambiguous],
      candidates: [
        Resolution.Candidate(
          path: original, basis: .recordedIdentity,
          note:
            "the very file the bookmark recorded, found by its identity beside \(otherDocument), another document with the same key; the document at hand is a copy, and its own file is not a copy of the target (another size or modification time)"
        ),
        Resolution.Candidate(
          path: own, basis: .relativePath,
          note: "the copy's own file, at the recorded path relative to the document"),
      ])
  }

  /// Whether the document at hand (`current`) is the very file the bookmark was made in
  /// (its recorded inode number and birth time) and `other`, another document that may be
  /// it, is not. A Btrfs snapshot's files keep both, so when both match, this says no.
  private func isRecordedDocument(_ current: FileStatus?, rather other: FileStatus?) -> Bool {
    guard let current, let recorded = contents.documentIdentity, recorded.isSameFile(current) == true else {
      return false
    }
    return other.map { recorded.isSameFile($0) != true } ?? true
  }

  /// Whether a document with the bookmark's key is still where the bookmark was made
  /// (then the document at hand is a copy); `nil` when the bookmark does not say where that
  /// was and it cannot be worked out.
  private func originalDocumentRemains() -> Bool? {
    // As for a copy: only what is seen counts; an original that cannot be looked at is not
    // shown to remain, and the recorded file wins.
    let current = try? FileStatus.of(documentPath, followSymlinks: true)
    guard let original = originalDocumentPath() else {
      return isRecordedDocument(current, rather: nil) ? false : nil
    }
    // As above.
    guard let originalStatus = try? FileStatus.of(original, followSymlinks: true) else { return false }
    // The document at hand itself, under another name (it did not leave), or the very file
    // the bookmark was made in (it was moved alone, whatever stands where it was).
    if let current, current.device == originalStatus.device && current.inode == originalStatus.inode {
      return false
    }
    if isRecordedDocument(current, rather: originalStatus) { return false }
    guard case .key(let key)? = try? KeyAttribute.read(atPath: original) else { return false }  // as above
    return key.fingerprint == contents.keyFingerprint
  }

  /// Where the document was when the bookmark was made: recorded (optional field), or, for
  /// older bookmarks whose relative path only descends, the absolute path less the relative
  /// one, with the document's current name.
  private func originalDocumentPath() -> FilePath? {
    if let recorded = contents.documentPath { return recorded }
    let relative = contents.relativePath.components
    let absolute = contents.absolutePath.components
    guard !relative.isEmpty, relative.count < absolute.count,
      !relative.contains(where: FilePath.isSelfOrParent),
      Array(absolute.suffix(relative.count)) == relative
    else { return nil }
    var folder = FilePath.root
    for component in absolute.dropLast(relative.count) { folder = folder.appending(component) }
    return folder.appending(documentPath.lastComponent)
  }

  /// Whether a file is a faithful copy of the target as recorded: the same size (for
  /// files) and modification time, as `cp -a`, `rsync -a` and `tar` keep them; a time
  /// kept to the whole second (bsdtar, which File Roller and Ark extract with;
  /// rdiff-backup) or to 100 ns (`rclone --metadata`, NTFS and zip extra fields) counts as
  /// kept.
  private func looksCopied(_ status: FileStatus) -> Bool {
    let identity = contents.identity
    guard Self.keptTime(status.modificationTime, of: identity.modificationTime) else { return false }
    return status.kind == .directory || status.size == identity.size
  }

  /// Whether `copied` is the time `recorded` as a copying tool keeps it: exactly, or cut to
  /// whole seconds or to 100 ns.
  static func keptTime(_ copied: Timestamp, of recorded: Timestamp) -> Bool {
    guard copied.seconds == recorded.seconds else { return false }
    return copied.nanoseconds == recorded.nanoseconds || copied.nanoseconds == 0
      || copied.nanoseconds == recorded.nanoseconds / 100 * 100
  }

  /// The most entries compared by ``sameEntries(_:_:)``: past it, two folders are not
  /// called copies (a copy is told by its time then).
  static let entryComparisonLimit = 4096

  /// Whether the folders `original` and `copy` hold the same names (each at most
  /// ``entryComparisonLimit``).
  static func sameEntries(_ original: FilePath, _ copy: FilePath) -> Bool {
    func names(_ folder: FilePath) -> Set<[UInt8]>? {
      // A folder that cannot be listed shows no sameness: `nil`, so not a copy.
      guard let fd = try? FileDescriptor.open(folder, [.directory, .noFollow]) else { return nil }
      defer { fd.close() }
      // As above.
      guard let entries = try? DirectoryStream.entries(of: fd), entries.count <= entryComparisonLimit else {
        return nil
      }
      return Set(entries.map(\.name))
    }
    guard let first = names(original), let second = names(copy) else { return false }
    return first == second
  }

  /// The search roots: the recorded folder or its nearest existing ancestor, up to
  /// `ascent` folders above it, then the document's folder; only those inside the recorded
  /// mount point, when one was recorded, or on a filesystem with the recorded `f_fsid`
  /// (the same disk mounted elsewhere). A rename never leaves a filesystem, so a search
  /// outside it can only find another file: the lower layer of an overlay, the source
  /// folder of a bind mount or a FUSE passthrough, whose files have the target's inode and
  /// birth time.
  private func searchRoots(_ area: SearchArea) -> [FilePath] {
    var roots: [FilePath] = []
    var folder = nearestExistingFolder(area)
    if onRecordedFilesystem(folder, area: area) { roots.append(folder) }
    for _ in 0..<max(0, budget.ascent) where !folder.isRoot {
      folder = folder.removingLastComponent
      if onRecordedFilesystem(folder, area: area) { roots.append(folder) }
    }
    let documentRoot = documentFolder.lexicallyNormalized
    if !roots.contains(documentRoot), onRecordedFilesystem(documentRoot, area: area) {
      roots.append(documentRoot)
    }
    return roots
  }

  /// The recorded folder, or its nearest ancestor that is a folder now.
  private func nearestExistingFolder(_ area: SearchArea) -> FilePath {
    var folder = contents.absolutePath.removingLastComponent
    while !folder.isRoot, area.status(of: folder)?.kind != .directory {
      folder = folder.removingLastComponent
    }
    return folder
  }

  /// Whether `folder` is on the recorded filesystem: inside the recorded mount point, when
  /// one was recorded, or on a filesystem with the recorded `f_fsid` (the same disk
  /// mounted elsewhere).
  private func onRecordedFilesystem(_ folder: FilePath, area: SearchArea) -> Bool {
    guard let mountPoint = contents.volume.mountPoint?.lexicallyNormalized,
      !mountPoint.isRoot
    else { return true }
    let normal = folder.lexicallyNormalized
    if normal == mountPoint || normal.isBelow(mountPoint) { return true }
    guard let recorded = contents.volume.filesystemID, recorded != 0 else { return false }
    return area.filesystemID(of: folder) == recorded
  }

  /// Where a walk of the target's whole filesystem starts: the root of the mount that holds
  /// the nearest existing folder of its recorded path (on the recorded filesystem), and the
  /// user's home folder first when the target was in it and it is on that mount. `nil`
  /// when that mount cannot be told.
  private func filesystemRoots(_ area: SearchArea) -> (mountRoot: FilePath, home: FilePath?)? {
    let folder = nearestExistingFolder(area)
    guard onRecordedFilesystem(folder, area: area), let mount = area.mount(holding: folder) else {
      return nil
    }
    let mountRoot = mount.mountPoint.lexicallyNormalized
    guard let home = area.homeFolder, contents.absolutePath.isBelow(home),
      home == mountRoot || home.isBelow(mountRoot), area.mountTable?.mount(containing: home) == mount
    else { return (mountRoot, nil) }
    return (mountRoot, home)
  }

  /// A `volumeUnavailable` error when the recorded mount point no longer holds the
  /// recorded filesystem; `nil` when it does, or when too little was recorded to tell.
  private func unavailableVolume() -> DocbmError? {
    guard let mountPoint = contents.volume.mountPoint, !mountPoint.isRoot,
      let recordedID = contents.volume.filesystemID
    else { return nil }
    // f_fsid is a hint: it differs on btrfs subvolumes and after device renumbering. The
    // volume counts as unavailable only when its mount point is gone, or is now a plain
    // folder of another filesystem (not the root of a mount) with another id.
    let status = try? FileStatus.of(mountPoint, followSymlinks: false)
    if let status, status.isMountRoot || !status.knowsMountRoot { return nil }
    // No answer from the mount point is no sign of the recorded filesystem there.
    let current = try? FileSystemIdentity.of(path: mountPoint)
    guard current?.fsid != recordedID else { return nil }
    let fsid = String(recordedID, radix: 16)
    return DocbmError(
      .volumeUnavailable, path: contents.absolutePath,
      message:
        "the filesystem that held \(contents.absolutePath) (id \(fsid), mounted at \(mountPoint)) is not mounted",
      lastKnownPath: contents.absolutePath)
  }

  /// The path with its folders resolved by the kernel, for reporting; the lexical form
  /// when that fails.
  private func canonical(_ path: FilePath) -> FilePath {
    // For reporting only: the lexical form, as documented.
    guard let folder = try? TargetSnapshot.canonicalPath(path.removingLastComponent) else {
      return path.lexicallyNormalized
    }
    return folder.appending(path.lastComponent)
  }
}
