public import FoundationEssentials

extension AnchoredDocument {
  /// Saves a new version of the document safely: `write` creates the new version at the
  /// URL it is given (a fresh hidden name beside the document, on the same filesystem, with
  /// the document's extension); docbm gives that file the document's owner, extended
  /// attributes (its key among them), mode and ACLs, flushes it, and renames it over the
  /// document. For a folder document, `write` creates a folder at the URL.
  ///
  /// Create the file with mode 0600 when its contents are private: the document's mode is
  /// applied only after writing. A first save gets `0666` (folders `0777`) less the umask.
  ///
  /// - A crash at any instant leaves the complete old or the complete new version.
  /// - A failure at any step leaves the document byte for byte as it was, removes the
  ///   new version's temporary entry, and throws an error that names the step.
  /// - A document that does not exist yet is created (first save). A document reached
  ///   through a symbolic link: the link stays, its target is replaced. A folder document
  ///   (a package) is swapped whole with `renameat2(RENAME_EXCHANGE)`.
  /// - A document with several hard links is refused (`hardLinked`) unless
  ///   `options.hardLinks` is ``ReplaceOptions/HardLinks/split``.
  /// - Refused before `write` runs: a document whose owner or group the caller cannot keep
  ///   (`ownerChanged`: another user's document in a folder the caller may write) unless
  ///   `options.ownerChange` is ``ReplaceOptions/OwnerChange/allow``; an immutable or
  ///   append-only document or folder (`immutable`); for ``replaceDocument(with:options:)``,
  ///   a folder document (`unsupportedFileType`).
  /// - Works on documents without a key, too: it is the safe save.
  /// - A document whose path is not UTF-8 cannot be handed to `write` as a `URL` byte for
  ///   byte (on Linux, `URL` holds text): the save fails with `writerFailed` before `write`
  ///   runs, and nothing is left behind. Save such a document with
  ///   ``replaceDocument(with:options:)``.
  /// - A single file exported through the Documents portal (``PortalDocument``) is refused
  ///   before `write` runs (`portalRefusesAttributes`, at ``SaveStep/prepareTemporary``):
  ///   the portal refuses attributes on it, so a new version would lose the key. With
  ///   `options.portalFileDocuments` ``ReplaceOptions/PortalFileDocuments/writeInPlace``
  ///   it is saved in place instead, keeping the key; that save is not crash-safe.
  ///
  /// The call is synchronous and, once started, runs to completion: there is no point at
  /// which cancelling could leave a half state. ``AsyncAnchoredDocument/replaceDocument(options:_:)``
  /// is the same save for Swift concurrency, cancellable until the new version is renamed
  /// into place.
  ///
  /// - Throws: ``DocbmError`` with ``DocbmError/step`` set: `writerFailed` (your writer
  ///   threw; its error is in the message), `nothingWritten`, `hardLinked`, `ownerChanged`,
  ///   `immutable`, `attributeCopyFailed`, `noSpace`, `ioError`, `readOnlyFilesystem`,
  ///   `permissionDenied`, `unsupportedFileType`, `notFound`, `pathTooLong`,
  ///   `portalRefusesAttributes`. Its
  ///   ``DocbmError/recommendation`` says what to do about the save (see
  ///   ``DocbmError/Code/saveRecommendation``).
  public func replaceDocument(
    options: ReplaceOptions = ReplaceOptions(), _ write: (URL) throws -> Void
  ) throws(DocbmError) {
    try replaceDocument(options: options, cancellation: nil, write)
  }

  /// Saves `data` as the document's new contents; see ``replaceDocument(options:_:)``.
  public func replaceDocument(with data: Data, options: ReplaceOptions = ReplaceOptions()) throws(DocbmError)
  {
    try replaceDocument(with: data, options: options, cancellation: nil)
  }

  /// ``replaceDocument(options:_:)``, stopping before the rename when `cancellation` says so.
  func replaceDocument(
    options: ReplaceOptions, cancellation: SaveCancellation?, _ write: (URL) throws -> Void
  ) throws(DocbmError) {
    try replaceDocument(
      options: options, cancellation: cancellation, writingAt: { try write(try $0.exactURL()) })
  }

  /// ``replaceDocument(options:_:)`` with a writer handed the new version's path as bytes,
  /// exactly (a name that is not UTF-8 included): for the C library, whose writers take
  /// `const char *`.
  package func replaceDocumentByPath(
    options: ReplaceOptions = ReplaceOptions(), _ write: (FilePath) throws -> Void
  ) throws(DocbmError) {
    try replaceDocument(options: options, cancellation: nil, writingAt: write)
  }

  /// ``replaceDocumentByPath(options:_:)``, stopping before the rename when
  /// `cancellation` says so.
  func replaceDocument(
    options: ReplaceOptions, cancellation: SaveCancellation?, writingAt write: (FilePath) throws -> Void
  ) throws(DocbmError) {
    if options.portalFileDocuments == .writeInPlace, let portal = PortalDocument.of(path),
      portal.refusesAttributes
    {
      try InPlaceSave(destination: path, readOnlyDocument: options.readOnlyDocument).save(write)
      recordInEscrow(path)
      return
    }
    var replacer = DocumentReplacer(
      destination: path, metadataSource: nil, copiesOwner: true, key: .carry, options: options)
    replacer.cancellation = cancellation
    try replacer.replace(write)
    recordInEscrow(path)
  }

  /// ``replaceDocument(with:options:)``, stopping before the rename when `cancellation` says so.
  func replaceDocument(
    with data: Data, options: ReplaceOptions, cancellation: SaveCancellation?
  ) throws(DocbmError) {
    if options.portalFileDocuments == .writeInPlace, let portal = PortalDocument.of(path),
      portal.refusesAttributes
    {
      try InPlaceSave(destination: path, readOnlyDocument: options.readOnlyDocument).save(writing: data)
      recordInEscrow(path)
      return
    }
    var replacer = DocumentReplacer(
      destination: path, metadataSource: nil, copiesOwner: true, key: .carry, options: options,
      writesFile: true)
    replacer.cancellation = cancellation
    try replacer.replace(writing: data)
    recordInEscrow(path)
  }

  /// Writes a copy of the document under a new name ("Save As"): `write` writes the copy's
  /// contents, and the copy gets this document's extended attributes and mode (not its
  /// owner: a copy belongs to whoever makes it). With ``CopyKey/carry`` it gets the key
  /// too, so the bookmarks inside keep resolving in the copy; with ``CopyKey/strip`` it
  /// gets no key ("save a copy for someone else"). An existing file at `destination` is
  /// replaced as safely as ``replaceDocument(options:_:)`` replaces a document.
  ///
  /// - Returns: the copy, ready to anchor and resolve bookmarks.
  /// - Throws: ``DocbmError`` as ``replaceDocument(options:_:)`` does.
  @discardableResult
  public func saveCopy(
    to destination: FilePath, key: CopyKey = .carry, options: ReplaceOptions = ReplaceOptions(),
    _ write: (URL) throws -> Void
  ) throws(DocbmError) -> AnchoredDocument {
    try saveCopyByPath(to: destination, key: key, options: options) { path in try write(try path.exactURL()) }
  }

  /// ``saveCopy(to:key:options:_:)`` with a writer handed the copy's new file's path as
  /// bytes, exactly (a name that is not UTF-8 included): for the C library, whose writers
  /// take `const char *`.
  @discardableResult
  package func saveCopyByPath(
    to destination: FilePath, key: CopyKey = .carry, options: ReplaceOptions = ReplaceOptions(),
    _ write: (FilePath) throws -> Void
  ) throws(DocbmError) -> AnchoredDocument {
    try DocumentReplacer(
      destination: destination, metadataSource: path, copiesOwner: false, key: key, options: options
    ).replace(write)
    if key == .carry { recordInEscrow(destination) }
    return AnchoredDocument(path: destination, searchBudget: searchBudget, escrow: escrow)
  }

  /// Writes `data` as a copy; see ``saveCopy(to:key:options:_:)``.
  @discardableResult
  public func saveCopy(
    to destination: FilePath, key: CopyKey = .carry, options: ReplaceOptions = ReplaceOptions(),
    data: Data
  ) throws(DocbmError) -> AnchoredDocument {
    try DocumentReplacer(
      destination: destination, metadataSource: path, copiesOwner: false, key: key, options: options,
      writesFile: true
    ).replace(writing: data)
    if key == .carry { recordInEscrow(destination) }
    return AnchoredDocument(path: destination, searchBudget: searchBudget, escrow: escrow)
  }

  /// ``saveCopy(to:key:options:data:)`` with the key, without flushing the copy: for a copy
  /// that is rewritten with every save and may be lost in a crash (whole or absent, never
  /// half written), such as a store's last good copy. Not recorded in the escrow.
  package func saveUnflushedCopy(to destination: FilePath, data: Data) throws(DocbmError) {
    var replacer = DocumentReplacer(
      destination: destination, metadataSource: path, copiesOwner: false, key: .carry,
      options: ReplaceOptions(), writesFile: true)
    replacer.flushes = false
    try replacer.replace(writing: data)
  }

  /// With an escrow: records the saved file as a document of the key it carries, when the
  /// escrow holds the key (docbm saved it, so it is the key's document: a later repair puts
  /// the key back on it). Best effort: the save has succeeded either way.
  func recordInEscrow(_ saved: FilePath) {
    // Best effort, as documented: the save has succeeded either way.
    guard let escrow, case .key(let key)? = try? KeyAttribute.read(atPath: saved) else { return }
    _ = try? escrow.recordSave(of: key.fingerprint, at: saved)  // as above
  }

}

/// A path that a `URL` cannot hold byte for byte (it is not UTF-8): a writer handed the URL
/// would write elsewhere. The save fails with it (`writerFailed`) before the writer runs.
struct PathNotRepresentableAsURL: Error, CustomStringConvertible {
  let path: FilePath

  var description: String {
    "the path \(path) is not UTF-8, so a URL cannot hold it exactly and a writer handed one would write elsewhere: save with replaceDocument(with:) (a Data), or through libdocbm, whose writers get the path's bytes"
  }
}

extension FilePath {
  /// The file URL of this path, when it holds the path byte for byte.
  ///
  /// - Throws: ``PathNotRepresentableAsURL`` when it cannot (a name that is not UTF-8).
  func exactURL() throws(PathNotRepresentableAsURL) -> URL {
    let url = self.url
    guard FilePath(url) == self else { throw PathNotRepresentableAsURL(path: self) }
    return url
  }
}
