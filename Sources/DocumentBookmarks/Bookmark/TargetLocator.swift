/// Finds a verified bookmark's target: the recorded paths first, then the bounded search.
///
/// Order (docs/design.md, "Resolution"):
/// 1. The absolute path, when the document has not moved (the relative path from the
///    document's folder names the same place): found there with the recorded identity →
///    not stale.
/// 2. The document moved or was copied: the relative path from its folder, when something
///    of the right kind is there → `documentMoved` (the project travelled together).
/// 3. The absolute path: same identity → `relativePathChanged` if the document moved;
///    another file of the right kind → `identityChanged` (the path wins, as with Apple's
///    bookmarks).
/// 4. The recorded volume is not mounted → `volumeUnavailable`.
/// 5. The identity search within the ``SearchBudget`` → `targetMoved`.
/// 6. Otherwise `missing`.
struct TargetLocator {
  let contents: BookmarkContents
  let documentFolder: FilePath
  let budget: SearchBudget

  struct Location {
    let path: FilePath
    let reasons: [StaleReason]
  }

  func locate() throws(DocbmError) -> Location {
    let matcher = IdentityMatcher(kind: contents.kind, identity: contents.identity)
    let absolute = contents.absolutePath
    let relativeCandidate = documentFolder.appending(contents.relativePath.bytes)
    let documentMoved = relativeCandidate.lexicallyNormalized != absolute
    let absoluteStatus = try? FileStatus.of(absolute, followSymlinks: false)

    if !documentMoved {
      if let status = absoluteStatus, matcher.isSameObject(status, at: absolute) {
        return Location(path: absolute, reasons: [])
      }
    } else if let status = try? FileStatus.of(relativeCandidate, followSymlinks: false),
      matcher.kindMatches(status)
    {
      let samePlace = absoluteStatus.map { $0.device == status.device && $0.inode == status.inode } ?? false
      let path = samePlace ? absolute : canonical(relativeCandidate)
      if matcher.isSameObject(status, at: relativeCandidate) {
        return Location(path: path, reasons: samePlace ? [] : [.documentMoved])
      }
      return Location(path: path, reasons: samePlace ? [.identityChanged] : [.documentMoved])
    }

    if let status = absoluteStatus, matcher.kindMatches(status) {
      let moved: [StaleReason] = documentMoved ? [.relativePathChanged] : []
      if matcher.isSameObject(status, at: absolute) {
        return Location(path: absolute, reasons: moved)
      }
      return Location(path: absolute, reasons: moved + [.identityChanged])
    }

    if let volumeError = unavailableVolume() { throw volumeError }

    let search = IdentitySearch(matcher: matcher, budget: budget)
    if let found = search.find(roots: searchRoots()) {
      var reasons: [StaleReason] = [.targetMoved]
      if documentMoved { reasons.append(.documentMoved) }
      return Location(path: found, reasons: reasons)
    }
    throw DocbmError(
      .missing, path: absolute,
      message:
        "the \(contents.kind.rawValue) last seen at \(absolute) is gone: not at its recorded paths, and not found by identity within the search budget",
      lastKnownPath: absolute)
  }

  /// The search roots: the recorded folder or its nearest existing ancestor, up to
  /// `ascent` folders above it, then the document's folder.
  private func searchRoots() -> [FilePath] {
    var roots: [FilePath] = []
    var folder = contents.absolutePath.removingLastComponent
    while folder.bytes != [UInt8(ascii: "/")],
      (try? FileStatus.of(folder, followSymlinks: false))?.kind != .directory
    {
      folder = folder.removingLastComponent
    }
    roots.append(folder)
    for _ in 0..<max(0, budget.ascent) where folder.bytes != [UInt8(ascii: "/")] {
      folder = folder.removingLastComponent
      roots.append(folder)
    }
    let documentRoot = documentFolder.lexicallyNormalized
    if !roots.contains(documentRoot) { roots.append(documentRoot) }
    return roots
  }

  /// A `volumeUnavailable` error when the recorded mount point no longer holds the
  /// recorded filesystem; `nil` when it does, or when too little was recorded to tell.
  private func unavailableVolume() -> DocbmError? {
    guard let mountPoint = contents.volume.mountPoint, mountPoint.bytes != [UInt8(ascii: "/")],
      let recordedID = contents.volume.filesystemID
    else { return nil }
    // f_fsid is a hint: it differs on btrfs subvolumes and after device renumbering. The
    // volume counts as unavailable only when its mount point is gone, or is now a plain
    // folder of another filesystem (not the root of a mount) with another id.
    let status = try? FileStatus.of(mountPoint, followSymlinks: false)
    if let status, status.isMountRoot || !status.knowsMountRoot { return nil }
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
    guard let folder = try? TargetSnapshot.canonicalPath(path.removingLastComponent) else {
      return path.lexicallyNormalized
    }
    return folder.appending(path.lastComponent)
  }
}
