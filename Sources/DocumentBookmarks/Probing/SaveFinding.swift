/// One thing a save broke, with what happened and how to fix it.
public struct SaveFinding: Hashable, Sendable, Codable, CustomStringConvertible {
  /// The kind of damage. Names are frozen: they appear in JSON output. New kinds may be
  /// added in later versions: a `switch` over them needs a `default`.
  public enum Kind: String, Hashable, Sendable, Codable, CaseIterable {
    /// The save threw, or exited with a failure.
    case saveFailed
    /// Nothing is at the document's path after the save, or what is there cannot be looked
    /// at or read (the message says which).
    case documentMissing
    /// A FIFO, socket, device or folder is at the document's path after the save.
    case documentNotAFile
    /// The document has no key any more: every bookmark anchored on it fails.
    case keyLost
    /// The document carries another key than before.
    case keyChanged
    /// Other extended attributes are gone or changed.
    case attributesLost
    /// The permission bits changed.
    case modeChanged
    /// The owner or group changed.
    case ownerChanged
    /// The document's names now lead to different files.
    case hardLinkSplit
    /// The symbolic link the save was given is now a regular file.
    case symbolicLinkReplaced
    /// The save left files behind in the document's folder.
    case temporaryFilesLeft
    /// The bookmark stored in the document no longer resolves against it.
    case bookmarkNoLongerResolves
  }

  public let kind: Kind
  /// What happened, with the facts (names, modes, error codes).
  public let message: String
  /// How to fix the save.
  public let fix: String

  public init(_ kind: Kind, _ message: String, fix: String? = nil) {
    self.kind = kind
    self.message = message
    self.fix = fix ?? kind.defaultFix
  }

  /// `kind: message. Fix: fix`
  public var description: String { "\(kind.rawValue): \(message). Fix: \(fix)" }
}

extension SaveFinding.Kind {
  /// Whether the finding lost something of the document (or the save failed); files left
  /// beside the document are reported but lose nothing.
  public var losesSomething: Bool { self != .temporaryFilesLeft }

  var defaultFix: String { fix(naming: .swift) }

  /// How to fix the save, naming the calls of `interface`: the language the app is written
  /// in, or the command line.
  package func fix(naming interface: SaveInterface) -> String {
    let save: String
    let splitting: String
    switch interface {
    case .swift:
      save = "AnchoredDocument.replaceDocument(with:) or replaceDocument { url in … }"
      splitting = "ReplaceOptions(hardLinks: .split)"
    case .c:
      save = "docbm_replace_document() or docbm_replace_document_with_writer()"
      splitting = "docbm_replace_document_allowing() with DOCBM_ALLOW_SPLIT_HARD_LINKS"
    case .commandLine:
      save = "docbm save (write the new contents to standard output and pipe them into docbm save FILE)"
      splitting = "docbm save --split-hard-links"
    }
    return switch self {
    case .saveFailed:
      "make the save succeed on an ordinary document; save with \(save), which reports each failure with its step"
    case .documentMissing, .documentNotAFile, .keyLost, .keyChanged, .attributesLost, .modeChanged,
      .ownerChanged:
      "save with \(save), which keeps the key, the other attributes, the mode and the owner"
    case .hardLinkSplit:
      "save with \(save), which refuses to split hard links unless told to (\(splitting))"
    case .symbolicLinkReplaced:
      "save with \(save), which replaces the file a link leads to and keeps the link"
    case .temporaryFilesLeft:
      "remove temporary and backup files, or save with \(save), which leaves none"
    case .bookmarkNoLongerResolves:
      "keep the document's key: save with \(save)"
    }
  }
}

extension SaveFinding {
  /// This finding with its fix naming the calls of `interface`; a fix given in its place
  /// stays as it is.
  package func naming(_ interface: SaveInterface) -> SaveFinding {
    guard fix == kind.defaultFix else { return self }
    return SaveFinding(kind, message, fix: kind.fix(naming: interface))
  }
}

/// Whose save call a fix names: the language of the app being linted, or the command line.
package enum SaveInterface: Sendable {
  case swift
  case c
  case commandLine
}
