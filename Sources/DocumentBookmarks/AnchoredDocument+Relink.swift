import DocbmSystem

extension AnchoredDocument {
  /// Relinks bookmarks whose targets moved with a whole folder tree, the way photo and
  /// media tools relink a moved library: each bookmark whose recorded absolute path lies
  /// under `from` is looked for at the same relative path under `to`.
  ///
  /// Nothing is taken on a name alone. On the target's own filesystem (the recorded
  /// `f_fsid`), the file there must be the very object the bookmark recorded (its identity,
  /// as a resolve decides). On another filesystem (a project copied to a new disk, where
  /// every inode is new), it must be of the recorded kind and, for a file, of the recorded
  /// size, with the recorded modification time (kept exactly, or cut to the second or to
  /// 100 ns, as copying tools keep it); a symbolic link is never taken. A relinked
  /// bookmark's ``Resolution`` is stale with ``StaleReason/relinked`` and carries the
  /// refreshed bookmark, signed with the document's key; store it in place of the old one
  /// (the `docbm relink` command rewrites the document's text-form bookmarks with
  /// ``replaceDocument(with:options:)-(Data,_)``). Nothing is written here.
  ///
  /// A failure is the failed bookmark's alone (``Relink/Outcome/failed(_:)``): `keyMissing`
  /// when the document has no key, `keyMismatch`, `tampered`, `corrupt`,
  /// `unsupportedVersion`; `ioError`, `permissionDenied` (…) when the candidate, or its
  /// filesystem, cannot be looked at (never taken for nothing there).
  public func relink(_ bookmarks: [Bookmark], from: FilePath, to: FilePath) -> [Relink] {
    let source = from.absolute.lexicallyNormalized
    let destination = to.absolute.lexicallyNormalized
    let key = Result { () throws(DocbmError) in try readKey() }
    var origin: SigningOrigin?
    return bookmarks.map { bookmark in
      do throws(DocbmError) {
        let header = try BookmarkRecord.header(of: bookmark.bytes).get()
        guard let key = try key.get() else { throw keyMissing(header.fingerprint) }
        try checkFingerprint(header.fingerprint, against: key)
        guard BookmarkRecord.verify(bookmark.bytes, key: key) else {
          throw DocbmError(
            .tampered, path: path,
            message:
              "the bookmark's signature does not verify with the key of \(path): its bytes were changed")
        }
        let contents = try BookmarkRecord.decodeFields(bookmark.bytes, header: header).get()
        let recorded = contents.absolutePath.lexicallyNormalized
        guard let rest = Self.rest(of: recorded, below: source) else {
          return Relink(recorded: bookmark, candidate: nil, outcome: .notUnderSource)
        }
        let candidate = rest.reduce(destination) { $0.appending($1) }
        let status: FileStatus
        do throws(SystemCallError) {
          status = try FileStatus.of(candidate, followSymlinks: false)
        } catch  where error.errno == .noSuchFile || error.errno == .notDirectory {
          return Relink(recorded: bookmark, candidate: candidate, outcome: .nothingThere)
        } catch {
          // Not looked at is not "nothing there": the bookmark fails with why.
          throw DocbmError(error, operation: .inspectTarget, path: candidate)
        }
        if let refusal = try Self.refusal(of: status, at: candidate, for: contents) {
          let outcome: Relink.Outcome = refusal.isEmpty ? .nothingThere : .notTheTarget(refusal)
          return Relink(recorded: bookmark, candidate: candidate, outcome: outcome)
        }
        let made = origin ?? signingOrigin(documentHostPath: nil)
        origin = made
        let refreshed = try sign(try TargetSnapshot.read(candidate), key: key, from: made)
        let resolution = Resolution(
          path: candidate, kind: contents.kind, staleReasons: [.relinked], refreshed: refreshed,
          recorded: bookmark)
        return Relink(recorded: bookmark, candidate: candidate, outcome: .relinked(resolution))
      } catch {
        return Relink(recorded: bookmark, candidate: nil, outcome: .failed(error))
      }
    }
  }

  /// The components of `path` below `folder`, or `nil` when it is not `folder` or below it.
  private static func rest(of path: FilePath, below folder: FilePath) -> [[UInt8]]? {
    let components = path.components
    let prefix = folder.components
    guard components.count >= prefix.count, Array(components.prefix(prefix.count)) == prefix else {
      return nil
    }
    return Array(components.dropFirst(prefix.count))
  }

  /// Why the file with `status` at `candidate` is not the recorded target: `nil` when it is
  /// taken, an empty sentence when it is not of the target's kind at all.
  ///
  /// - Throws: ``DocbmError`` when the candidate's filesystem cannot be asked (`statfs`):
  ///   which test applies depends on it.
  private static func refusal(of status: FileStatus, at candidate: FilePath, for contents: BookmarkContents)
    throws(DocbmError) -> String?
  {
    let matcher = IdentityMatcher(kind: contents.kind, identity: contents.identity)
    if status.kind == .symbolicLink { return "a symbolic link, never followed by a relink" }
    guard matcher.kindMatches(status) else { return "" }
    let sameFilesystem: Bool
    if let recordedID = contents.volume.filesystemID, recordedID != 0 {
      let here = try mappingSystemErrors(.inspectTarget, path: candidate) { () throws(SystemCallError) in
        try FileSystemIdentity.of(path: candidate)
      }
      sameFilesystem = here.fsid == recordedID
    } else {
      sameFilesystem = false
    }
    if sameFilesystem {
      guard matcher.hasIdentity, matcher.isSameObject(status, at: candidate) else {
        return
          "on the target's own filesystem, but another file (another identity): a move keeps the identity, so this is a copy or another file"
      }
      return nil
    }
    let identity = contents.identity
    if contents.kind == .file && status.size != identity.size {
      return "on another filesystem, with another size (\(status.size) bytes, not \(identity.size))"
    }
    guard TargetLocator.keptTime(status.modificationTime, of: identity.modificationTime) else {
      return "on another filesystem, with another modification time than the one recorded"
    }
    return nil
  }
}
