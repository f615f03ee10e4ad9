public import FoundationEssentials

/// A document that is about to be saved for the first time: bookmarks can be made for it
/// before it exists, and its first save creates it with the key that signed them.
///
/// ```swift
/// let draft = BookmarkService().newDocument(at: boardURL)
/// let cat = try draft.makeBookmark(to: catImageURL)
/// let document = try draft.createDocument(with: try JSONEncoder().encode([cat]))
/// ```
///
/// The value holds a fresh key in memory, made when the value was made; it is never
/// printed, logged, nor put in an error (``description`` and the value's mirror show only
/// its ``keyFingerprint``). ``createDocument(options:_:)`` is the safe save of
/// ``AnchoredDocument/replaceDocument(options:_:)`` for a path where nothing is: the first
/// version is written beside the path, given the key with `XATTR_CREATE`, flushed, and
/// renamed into place only while nothing is there. If a file or folder appeared at the path
/// meanwhile, the save fails with `documentExists` and leaves that file, and its key, as
/// they are.
///
/// With an escrow (``BookmarkService/escrow``) the key is escrowed during the first save,
/// before the document appears at its path, as ``AnchoredDocument/makeBookmark(to:)-(FilePath)``
/// escrows a key it creates; a failure to escrow fails the save, and nothing is created.
///
/// Make bookmarks from one value and save it once: another `NewDocument` for the same path
/// has another key, and its bookmarks do not resolve in a document created by this one.
public struct NewDocument: Sendable, CustomStringConvertible, CustomReflectable {
  /// The document's path, where nothing is yet.
  public var path: FilePath { anchor.path }
  /// How far resolution searches for moved targets, once the document exists.
  public var searchBudget: SearchBudget { anchor.searchBudget }
  /// Where the key is escrowed, if anywhere.
  public var escrow: KeyEscrow? { anchor.escrow }

  /// The same path as a document, which signs and saves.
  private let anchor: AnchoredDocument
  private let key: DocumentKey

  init(path: FilePath, searchBudget: SearchBudget, escrow: KeyEscrow?) {
    anchor = AnchoredDocument(path: path, searchBudget: searchBudget, escrow: escrow)
    key = DocumentKey.random()
  }

  /// The fingerprint of the key the document will carry: what its bookmarks name.
  public var keyFingerprint: KeyFingerprint { key.fingerprint }

  /// Makes a bookmark to `target` (a regular file or a folder), signed with the key the
  /// document will be created with, relative to the document's folder.
  ///
  /// It resolves once ``createDocument(options:_:)`` has created the document.
  ///
  /// - Throws: ``DocbmError``: `notFound` (the target), `unsupportedFileType`,
  ///   `permissionDenied`.
  public func makeBookmark(to target: FilePath) throws(DocbmError) -> Bookmark {
    try anchor.sign(TargetSnapshot.read(target), key: key)
  }

  /// Makes a bookmark to the file or folder at a file URL.
  public func makeBookmark(to target: URL) throws(DocbmError) -> Bookmark {
    try makeBookmark(to: FilePath(target))
  }

  /// Creates the document: `write` creates its first version at the URL it is given (a
  /// fresh hidden name beside the path), which docbm gives the key with `XATTR_CREATE`,
  /// the usual mode (`0666`, folders `0777`, less the umask), flushes, and renames into
  /// place without replacing anything.
  ///
  /// - Returns: the document, whose bookmarks made by this value now resolve.
  /// - Throws: ``DocbmError`` with ``DocbmError/step`` set: `documentExists` (a file,
  ///   folder or symbolic link is at the path, there before the save or made while it ran;
  ///   it is left as it is), `keyMismatch` (the writer's file carries a key of its own), and
  ///   the failures of ``AnchoredDocument/replaceDocument(options:_:)``; and the escrow's
  ///   own errors when it cannot be written. Nothing is created then.
  @discardableResult
  public func createDocument(
    options: ReplaceOptions = ReplaceOptions(), _ write: (URL) throws -> Void
  ) throws(DocbmError) -> AnchoredDocument {
    try replacer(options: options, writesFile: false).replace { path in try write(try path.exactURL()) }
    return created()
  }

  /// ``createDocument(options:_:)`` with the first version's path as a `FilePath`: its
  /// bytes exactly, for callers in other languages.
  @discardableResult
  package func createDocumentByPath(
    options: ReplaceOptions = ReplaceOptions(), _ write: (FilePath) throws -> Void
  ) throws(DocbmError) -> AnchoredDocument {
    try replacer(options: options, writesFile: false).replace(write)
    return created()
  }

  /// Creates the document with `data` as its contents; see ``createDocument(options:_:)``.
  @discardableResult
  public func createDocument(
    with data: Data, options: ReplaceOptions = ReplaceOptions()
  ) throws(DocbmError) -> AnchoredDocument {
    try replacer(options: options, writesFile: true).replace(writing: data)
    return created()
  }

  /// The first save: a replace that creates, with this value's key.
  private func replacer(options: ReplaceOptions, writesFile: Bool) -> DocumentReplacer {
    var replacer = DocumentReplacer(
      destination: path, metadataSource: nil, copiesOwner: true, key: .carry, options: options,
      writesFile: writesFile)
    replacer.newKey = key
    if let escrow {
      let key = key
      replacer.beforeSwap = { (temporary) throws(DocbmError) in
        try escrow.deposit(key, document: temporary, origin: .saved)
      }
    }
    return replacer
  }

  /// After the first save: the escrow records the document where it is now (its entry so
  /// far names the first version's temporary path, with the same identity).
  private func created() -> AnchoredDocument {
    // Best effort: the key is escrowed already (with the temporary path); the next sighting
    // records the document's own path.
    if let escrow { _ = try? escrow.deposit(key, document: path, origin: .saved) }
    AnchoredDocumentRecorder.note(path, key.fingerprint)
    return anchor
  }

  /// The path and the key's fingerprint; never the key.
  public var description: String { "NewDocument(\(path), key \(key.fingerprint))" }

  /// The path and the key's fingerprint; never the key.
  public var customMirror: Mirror {
    Mirror(self, children: ["path": path, "keyFingerprint": key.fingerprint], displayStyle: .struct)
  }
}
