import DocbmSystem

/// Finds a verified bookmark's target for a document reached through the Documents
/// portal, where the document's folder is the portal's, not where the document really is,
/// and inode numbers are the portal's own.
///
/// - With the document's host path known and visible (this process is on the host, or its
///   sandbox shares that folder), resolution is the ordinary one (``TargetLocator``) from
///   the host path: the mount adds no staleness.
/// - With the host path known but not visible (a sandbox): the recorded paths, taken from
///   the document's host folder, are looked for where the sandbox sees them (inside the
///   exported folder, through the portal; or at the host path itself); found by path, with
///   `documentMoved` or `relativePathChanged` only when the host paths say so.
/// - With the host path unknown: the recorded absolute path, then the relative path from
///   the portal folder; neither adds staleness, and no refreshed bookmark is made.
/// - Not found: `outsideSandbox` (ask the user to pick it again) in a sandbox's view,
///   where an invisible target may well exist; `missing` otherwise.
struct PortalTargetLocator {
  let contents: BookmarkContents
  let portal: PortalDocument
  let budget: SearchBudget

  func locate() throws(DocbmError) -> TargetLocator.Location {
    let matcher = IdentityMatcher(kind: contents.kind, identity: contents.identity)
    let absolute = contents.absolutePath
    guard let host = portal.hostPath else {
      // A path that cannot be looked at is not taken: what cannot be seen from here is out of
      // reach, as the error says.
      if let status = try? FileStatus.of(absolute, followSymlinks: false), matcher.kindMatches(status) {
        let replaced = matcher.hasIdentity && !matcher.isSameObject(status, at: absolute)
        return TargetLocator.Location(path: absolute, reasons: replaced ? [.identityChanged] : [])
      }
      let relative = portal.path.removingLastComponent.appending(contents.relativePath.bytes)
        .lexicallyNormalized
      // As above.
      if let status = try? FileStatus.of(relative, followSymlinks: false), matcher.kindMatches(status) {
        return TargetLocator.Location(path: relative, reasons: [])
      }
      throw notVisible()
    }
    if isVisible(host) {
      return try TargetLocator(
        contents: contents, documentFolder: host.removingLastComponent, documentPath: host, budget: budget
      ).locate()
    }
    let relative = host.removingLastComponent.appending(contents.relativePath.bytes).lexicallyNormalized
    let candidates: [(FilePath, [StaleReason])] =
      relative == absolute
      ? [(absolute, [])] : [(relative, [.documentMoved]), (absolute, [.relativePathChanged])]
    for (hostCandidate, reasons) in candidates {
      if let seen = seen(hostCandidate, matcher) {
        return TargetLocator.Location(path: seen, reasons: reasons)
      }
    }
    throw notVisible()
  }

  /// Whether the document's host path is the document as this process sees it: it exists
  /// there, of the same kind, size and modification time as through the portal.
  private func isVisible(_ host: FilePath) -> Bool {
    // Not seen when either cannot be looked at.
    guard let hostStatus = try? FileStatus.of(host, followSymlinks: false),
      let portalStatus = try? FileStatus.of(portal.path, followSymlinks: false)
    else { return false }
    return hostStatus.kind == portalStatus.kind
      && hostStatus.modificationTime == portalStatus.modificationTime
      && (hostStatus.kind == .directory || hostStatus.size == portalStatus.size)
  }

  /// Where this process sees the host path `host`, holding a file of the right kind:
  /// through the portal when it is inside what was exported, else at `host` itself.
  private func seen(_ host: FilePath, _ matcher: IdentityMatcher) -> FilePath? {
    for candidate in [portal.portalPath(ofHost: host), host].compactMap({ $0 }) {
      // A candidate that cannot be looked at is not where it is seen.
      if let status = try? FileStatus.of(candidate, followSymlinks: false), matcher.kindMatches(status) {
        return candidate
      }
    }
    return nil
  }

  private func notVisible() -> DocbmError {
    let absolute = contents.absolutePath
    if portal.isSandboxView {
      return DocbmError(
        .outsideSandbox, path: absolute,
        message:
          "the \(contents.kind.rawValue) last seen at \(absolute) is not where this sandboxed app can see it (the document is reached through the Documents portal, and the target is not exported with it); ask the user to pick it again",
        lastKnownPath: absolute)
    }
    return DocbmError(
      .notFoundNearby, path: absolute,
      message:
        "the \(contents.kind.rawValue) last seen at \(absolute) was not found: not at its recorded paths, seen from the document's place through the Documents portal, where it cannot be searched for; ask the user to pick it again",
      recommendation: .pickAgain, lastKnownPath: absolute)
  }
}
