import DocbmSystem

/// Every failure docbm reports: what happened (``code``), to which path, what to do
/// (``recommendation``) and, when a system call failed, which one and its `errno`.
///
/// Error values never contain key bytes. Their ``description`` is one readable line;
/// the individual fields are there for programs.
///
/// ## Recommendations
///
/// The recommendation follows from the code and from what failed. Resolving, inspecting and
/// checking use ``DocbmError/Code/defaultRecommendation``. A failed save (its ``step`` is set) uses
/// ``DocbmError/Code/saveRecommendation``, which says what to do about the save rather than about a
/// bookmark:
///
/// | code | after a save | otherwise |
/// |---|---|---|
/// | `notFound`, `pathTooLong`, `permissionDenied`, `readOnlyFilesystem`, `unsupportedFileType` | ``Recommendation/saveElsewhere`` | `pickAgain` (`pathTooLong`, `readOnlyFilesystem`: `useAnotherLocation`) |
/// | `documentExists` | ``Recommendation/saveElsewhere`` | `useAnotherLocation` |
/// | `hardLinked`, `ownerChanged`, `attributeCopyFailed`, `readOnlyDocument` | ``Recommendation/confirmSave`` | `useAnotherLocation` |
/// | `immutable` | ``Recommendation/clearFlags`` | `useAnotherLocation` |
/// | `portalRefusesAttributes`, `portalHostPathUnknown` | `useAnotherLocation` | `useAnotherLocation` |
/// | `outsideSandbox` | `pickAgain` | `pickAgain` |
/// | `noSpace` | ``Recommendation/freeSpace`` | `retryLater` |
/// | `ioError`, `systemFailure`, `writerFailed`, `nothingWritten` | `retryLater` | `retryLater` |
///
/// A save whose new version is in place but whose folder could not be flushed
/// (``SaveStep/syncFolder``) recommends `retryLater` whatever its code.
public struct DocbmError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The kind of failure. Names are frozen: they appear in JSON output and in app logic.
  /// New codes may be added in later versions: a `switch` over them needs a `default`.
  public enum Code: String, Hashable, Sendable, Codable, CaseIterable {
    /// The document carries no key (never had one, or a save lost it).
    case keyMissing
    /// The document carries a key, but not the one the bookmark was signed with.
    case keyMismatch
    /// The document's key attribute exists but does not parse.
    case keyMalformed
    /// The bookmark's authentication tag does not verify: its bytes were changed.
    case tampered
    /// The bytes are not a bookmark, or are cut short.
    case corrupt
    /// The bookmark (or key value) has a version this build does not know.
    case unsupportedVersion
    /// The target is gone: it is not at its recorded paths, and a search of every folder on
    /// its filesystem did not find it by its identity.
    case missing
    /// The target is not at its recorded paths, and the search did not find it in the part
    /// of its filesystem it covered (the nearby folders, or as far as the time limit let it
    /// walk, or until the call was cancelled, or every folder but those the user cannot
    /// read): it may well exist elsewhere. The message says how far the search looked.
    case notFoundNearby
    /// A save would replace a document whose permissions keep it from being written: it has
    /// no write permission for anyone (`chmod a-w`; refused even for root, as editors do),
    /// or none for the saver. Refused before anything is written, unless the caller allows
    /// it (``ReplaceOptions/readOnlyDocument``, `docbm save --allow-read-only`); a save that
    /// is allowed keeps the document's mode.
    case readOnlyDocument
    /// The target's filesystem is not mounted.
    case volumeUnavailable
    /// A path given to docbm (document or target) does not exist.
    case notFound
    /// A path is longer than the kernel takes (`PATH_MAX`, 4096 bytes), or one of its
    /// names longer than a file name may be (`NAME_MAX`, 255 bytes).
    case pathTooLong
    /// The path is neither a regular file nor a folder (a device, socket, FIFO, …).
    case unsupportedFileType
    /// The filesystem does not support user extended attributes (ramfs, FAT, older tmpfs).
    case unsupportedFilesystem
    /// The filesystem is mounted read-only.
    case readOnlyFilesystem
    /// The file is immutable or append-only (`chattr +i`, `+a`).
    case immutable
    /// The caller lacks permission (read, write or search).
    case permissionDenied
    /// The filesystem has no room for the attribute (block full, quota, too large).
    case noSpace
    /// An input/output error from the device.
    case ioError
    /// Another system failure; see ``DocbmError/systemCall`` and ``DocbmError/errno``.
    case systemFailure
    /// A save's writer threw; the message carries its error. The document is untouched.
    case writerFailed
    /// A save's writer returned without writing anything at the URL it was given.
    case nothingWritten
    /// The document has several hard links, and the save was not allowed to split them.
    case hardLinked
    /// A save could not copy the document's extended attributes to the new version.
    case attributeCopyFailed
    /// The escrow folder, or a file in it, could belong to or be changed by someone else
    /// (another owner, writable by others, a symbolic link, not a regular file), so its
    /// keys are not used; or an export's file was replaced or moved by someone else while
    /// it was put in place (then the keys written were erased).
    case escrowUntrusted
    /// The escrow's database is damaged, is not docbm's escrow, or is of a newer version;
    /// docbm neither trusts nor changes it. The message says how to recover it or set it
    /// aside.
    case escrowDamaged
    /// The document has no key, and the escrow records a key for a document at its path,
    /// but this file is not shown to be that document (an older file moved into the path,
    /// one readable by more users, or one in a folder others can change). No new key is
    /// made, since that would end the recorded key's bookmarks for good; the message says
    /// why (docs/security.md, "Which file is a key's document").
    case documentUnproven
    /// A save could not give the new version the document's owner or group, and was not
    /// allowed to change them (``ReplaceOptions/ownerChange``).
    case ownerChanged
    /// A first save (``NewDocument``) found a file or folder at the document's path, made
    /// meanwhile by someone else; it was left as it is, with its own key if it has one.
    case documentExists
    /// The document is a single file reached through the Documents portal (Flatpak), which
    /// refuses to set extended attributes on it, so it cannot be given a key, nor saved by
    /// a new version that carries one. The message says what works instead: export the
    /// folder that holds it, or save in place (``ReplaceOptions/portalFileDocuments``).
    case portalRefusesAttributes
    /// The document or target is reached through the Documents portal, which does not say
    /// where it really is (no `user.document-portal.host-path` attribute), so no bookmark
    /// valid outside this sandbox can be made.
    case portalHostPathUnknown
    /// Inside a sandbox (Flatpak), the target is not where the app can see it: not
    /// exported through the Documents portal, nor in a folder the sandbox shares. It may
    /// well exist; ask the user to pick it again (through the portal's file chooser).
    case outsideSandbox
  }

  /// What happened.
  public let code: Code
  /// The path the failure is about (the document or the target), when there is one.
  public let path: FilePath?
  /// A sentence that says what happened, for people.
  public let message: String
  /// What to do about it.
  public let recommendation: Recommendation
  /// The system call that failed, when one did (e.g. `fsetxattr`).
  public let systemCall: String?
  /// The `errno` of that call.
  public let errno: Int32?
  /// The last path at which the target was known to be, for `missing` and
  /// `volumeUnavailable`.
  public let lastKnownPath: FilePath?
  /// For a failed save, the step that failed. The document is intact unless the step is
  /// ``SaveStep/syncFolder`` (the new version is in place, its durability unknown).
  public let step: SaveStep?

  public init(
    _ code: Code, path: FilePath? = nil, message: String,
    recommendation: Recommendation? = nil, systemCall: String? = nil, errno: Int32? = nil,
    lastKnownPath: FilePath? = nil, step: SaveStep? = nil
  ) {
    self.code = code
    self.path = path
    self.message = message
    self.recommendation =
      recommendation ?? (step == nil ? code.defaultRecommendation : code.saveRecommendation)
    self.systemCall = systemCall
    self.errno = errno
    self.lastKnownPath = lastKnownPath
    self.step = step
  }

  /// `code: message (step: …) [call: errno]`, on one line; the message names the path.
  public var description: String {
    var text = "\(code.rawValue): \(message)"
    if let step { text += " (step: \(step.rawValue))" }
    if let systemCall, let errno {
      text += " [\(systemCall): \(Errno(rawValue: errno))]"
    }
    return text
  }

  /// Whether trying the same operation again may succeed: later (``Recommendation/retryLater``),
  /// or once there is room (``Recommendation/freeSpace``).
  public var isTransient: Bool { recommendation == .retryLater || recommendation == .freeSpace }

  /// This error as part of a save at `step`: itself when it names a step already, else the
  /// same failure with the step and a save's recommendation.
  package func duringSave(_ step: SaveStep) -> DocbmError {
    guard self.step == nil else { return self }
    return DocbmError(
      code, path: path, message: message, systemCall: systemCall, errno: errno,
      lastKnownPath: lastKnownPath, step: step)
  }
}

extension DocbmError.Code {
  /// The recommendation that goes with the code when nothing more specific is known (for
  /// resolving, inspecting, checking and making bookmarks).
  public var defaultRecommendation: Recommendation {
    switch self {
    case .keyMissing, .documentUnproven: .repairKey
    case .keyMismatch, .keyMalformed, .tampered, .corrupt, .unsupportedVersion, .notFound,
      .unsupportedFileType,
      .permissionDenied, .outsideSandbox:
      .pickAgain
    case .missing: .forget
    case .notFoundNearby: .searchWider
    case .volumeUnavailable, .noSpace, .ioError, .systemFailure, .writerFailed, .nothingWritten:
      .retryLater
    case .hardLinked, .attributeCopyFailed, .ownerChanged, .documentExists, .readOnlyDocument:
      .useAnotherLocation
    case .unsupportedFilesystem, .readOnlyFilesystem, .immutable, .pathTooLong, .escrowUntrusted,
      .escrowDamaged, .portalRefusesAttributes, .portalHostPathUnknown:
      .useAnotherLocation
    }
  }

  /// The recommendation that goes with the code when a save failed: what to do about the
  /// save (the document itself is unchanged).
  public var saveRecommendation: Recommendation {
    switch self {
    case .notFound, .pathTooLong, .permissionDenied, .readOnlyFilesystem, .unsupportedFileType,
      .documentExists:
      .saveElsewhere
    case .hardLinked, .ownerChanged, .attributeCopyFailed, .readOnlyDocument: .confirmSave
    case .immutable: .clearFlags
    case .noSpace: .freeSpace
    case .unsupportedFilesystem, .portalRefusesAttributes: .useAnotherLocation
    case .keyMissing, .keyMismatch, .keyMalformed, .tampered, .corrupt, .unsupportedVersion, .missing,
      .notFoundNearby, .volumeUnavailable, .ioError, .systemFailure, .writerFailed, .nothingWritten,
      .escrowUntrusted,
      .escrowDamaged, .documentUnproven, .portalHostPathUnknown, .outsideSandbox:
      defaultRecommendation
    }
  }
}
