public import DocumentBookmarks

/// Something that happened to a watched document, or to the watch itself.
///
/// Paths are where the document was (``oldPath``) and where it is now (``path``); the
/// identities are the file it was and the file it is now. A field that does not apply is
/// `nil`: a deleted document has no ``path``, a notice about the watch has no document.
public struct DocumentEvent: Hashable, Sendable {
  /// What happened. Names are frozen: they appear in `docbm watch --json` output. New
  /// kinds may be added in later versions: a `switch` over them needs a `default`.
  public enum Kind: String, Hashable, Sendable, Codable, CaseIterable {
    /// A file carrying a key came into the watched folders (made there, copied with its key,
    /// moved in from elsewhere, or given a key by a first bookmark).
    case appeared
    /// The document was renamed or moved within the watched folders: same file, new path.
    case moved
    /// Another file took the document's place: a save that renamed a new file over it, or
    /// removed it and wrote a new one. The app should reload the document from ``path``.
    case replaced
    /// The document was written in place (same file, new contents).
    case modified
    /// The document was removed and nothing took its place.
    case deleted
    /// The document was moved out of the watched folders: where to is not known.
    case movedOut
    /// The document no longer carries its key (``fingerprint``): a save dropped it.
    case keyLost
    /// Repair put the escrowed key back (``repair`` says how).
    case keyRestored
    /// Repair refused to put a key back (``repair`` says why): the trust rules did not hold.
    case repairRefused
    /// Events were dropped by the kernel (its queue overflowed); the folders were listed
    /// again and what changed meanwhile was reported as events.
    case rescanned
    /// A folder could not be watched (the watch limit, permissions); ``message`` says why.
    case notWatched
    /// A folder given to the watcher (``path``) is gone: removed, or its filesystem
    /// unmounted. Nothing in it is watched any more. When it was the last, the watcher
    /// has stopped: ``DocumentWatcher/hasNothingLeftToWatch`` is `true`, and
    /// ``DocumentWatcher/events()`` ends after this event.
    case folderGone
  }

  /// What happened.
  public let kind: Kind
  /// Where the document was before, when it moved or was replaced.
  public let oldPath: FilePath?
  /// Where the document is now (or the folder a notice is about).
  public let path: FilePath?
  /// The file the document was, when it changed.
  public let oldIdentity: DocumentIdentity?
  /// The file the document is now.
  public let identity: DocumentIdentity?
  /// The document's key (for ``Kind/keyLost``, the key it lost).
  public let fingerprint: KeyFingerprint?
  /// The repair's report, for ``Kind/keyRestored`` and ``Kind/repairRefused``.
  public let repair: DocumentRepairer.Report?
  /// Whether the file that ``Kind/replaced`` the document, or ``Kind/appeared``, is this
  /// process's own save (`replaceDocument`, `saveCopy`, `createDocument`): an editor need
  /// not reload what it has just written itself.
  public let isOwnSave: Bool
  /// One line for a person.
  public let message: String

  /// An event from its parts.
  public init(
    _ kind: Kind, oldPath: FilePath? = nil, path: FilePath?, oldIdentity: DocumentIdentity? = nil,
    identity: DocumentIdentity? = nil, fingerprint: KeyFingerprint? = nil,
    repair: DocumentRepairer.Report? = nil, isOwnSave: Bool = false, message: String
  ) {
    self.kind = kind
    self.oldPath = oldPath
    self.path = path
    self.oldIdentity = oldIdentity
    self.identity = identity
    self.fingerprint = fingerprint
    self.repair = repair
    self.isOwnSave = isOwnSave
    self.message = message
  }
}
