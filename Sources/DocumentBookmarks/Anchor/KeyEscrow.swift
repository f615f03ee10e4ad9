import FoundationEssentials
import Glibc

/// The user's own store of the keys docbm made on this account, so that a key lost by a
/// careless save can be put back (``DocumentRepairer``).
///
/// One file per key, `<fingerprint>.json`, mode 0600, in a folder of mode 0700:
/// `$DOCBM_ESCROW_DIR` when set (for tests), else `$XDG_STATE_HOME/docbm`, else
/// `~/.local/state/docbm`. Files are written with ``AnchoredDocument/replaceDocument(with:options:)``
/// under an `flock` on the folder's `.lock` file, so concurrent writers never corrupt one;
/// a file that does not parse is reported as an ``EscrowProblem``. The format is in
/// docs/format.md.
public struct KeyEscrow: Hashable, Sendable {
  /// The escrow folder.
  public let folder: FilePath

  public init(folder: FilePath) {
    self.folder = folder
  }

  /// The user's escrow, at the folder the environment names.
  public static var `default`: KeyEscrow {
    if let folder = ProcessEnvironment.value("DOCBM_ESCROW_DIR"), !folder.isEmpty {
      return KeyEscrow(folder: FilePath(folder))
    }
    if let state = ProcessEnvironment.value("XDG_STATE_HOME"), state.hasPrefix("/") {
      return KeyEscrow(folder: FilePath(state).appending("docbm"))
    }
    let home = ProcessEnvironment.value("HOME") ?? "/"
    return KeyEscrow(folder: FilePath(home).appending(".local").appending("state").appending("docbm"))
  }

  /// The file format's name and version.
  static let format = "docbm-escrow"
  static let version = 1
  static let maximumFileSize = 1 << 20

  /// What an escrow file holds.
  struct File: Codable {
    var format: String
    var version: Int
    var fingerprint: KeyFingerprint
    /// The key, URL-safe base64.
    var key: String
    var created: Timestamp
    var documents: [EscrowEntry.Document]
  }

  func file(for fingerprint: KeyFingerprint) -> FilePath {
    folder.appending(fingerprint.description + ".json")
  }

  /// Whether the escrow has a readable entry for `fingerprint`.
  func contains(_ fingerprint: KeyFingerprint) -> Bool {
    entry(for: fingerprint) != nil
  }

  /// The most document records an entry keeps; the oldest go first. Records are evidence for
  /// repair, and a copy made many times over must not grow an entry without bound.
  static let maximumDocumentsPerEntry = 64

  /// Records `key` as made on (or seen on) the document at `document`.
  ///
  /// Only a document owned by the user is recorded: repair puts keys back only on the
  /// user's own files, so a record of anyone else's would never be used. Nothing is written
  /// when the entry already records the document as it is (same path, inode and handle).
  ///
  /// - Throws: ``DocbmError`` when the folder or the file cannot be written, and
  ///   `escrowUntrusted` when the folder or the entry could be changed by someone else.
  package func deposit(_ key: DocumentKey, document: FilePath) throws(DocbmError) {
    guard let record = try documentRecord(document) else { return }
    try deposit(key, record: record)
  }

  /// ``deposit(_:document:)`` for a document already opened and checked.
  func deposit(_ key: DocumentKey, record: EscrowEntry.Document) throws(DocbmError) {
    let folder = try prepareFolder()
    defer { folder.close() }
    try deposit(key, record: record, in: folder)
  }

  /// ``deposit(_:record:)`` in the escrow folder, already opened and checked.
  private func deposit(_ key: DocumentKey, record: EscrowEntry.Document, in folder: EscrowFolder)
    throws(DocbmError)
  {
    let name = Array((key.fingerprint.description + ".json").utf8)
    // The common case, a document already recorded, reads one file and takes no lock.
    if case .success(let existing?) = readFile(name, in: folder), existing.fingerprint == key.fingerprint,
      existing.documents.contains(where: { $0.describesSameDocument(as: record) })
    {
      return
    }
    try locked(folder) { () throws(DocbmError) in
      var contents: File
      switch readFile(name, in: folder) {
      case .success(let existing?) where existing.fingerprint == key.fingerprint:
        if existing.documents.contains(where: { $0.describesSameDocument(as: record) }) {
          return  // recorded meanwhile
        }
        contents = existing
        contents.key = Base64URL.encode(key.bytes)  // never keep a damaged copy
        contents.documents.removeAll {
          $0.path == record.path || ($0.inode == record.inode && $0.filesystemID == record.filesystemID)
        }
      case .failure(let problem) where problem.isUntrusted:
        throw DocbmError(
          .escrowUntrusted, path: problem.file,
          message: "the escrow entry \(problem); remove it and bookmark the document again")
      default:
        contents = File(
          format: KeyEscrow.format, version: KeyEscrow.version, fingerprint: key.fingerprint,
          key: Base64URL.encode(key.bytes), created: .now, documents: [])
      }
      contents.documents.append(record)
      if contents.documents.count > KeyEscrow.maximumDocumentsPerEntry {
        contents.documents.sort { $0.recorded < $1.recorded }
        contents.documents.removeFirst(contents.documents.count - KeyEscrow.maximumDocumentsPerEntry)
      }
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
      let data: Data
      do { data = try encoder.encode(contents) } catch {
        throw DocbmError(
          .systemFailure, path: folder.path.appending(name),
          message: "cannot encode the escrow entry: \(error)")
      }
      try writePrivateFile(name, contents: Array(data), in: folder)
    }
  }

  /// Escrows the key the document at `document` carries (recording the document with it).
  ///
  /// - Returns: the key's fingerprint, or `nil` when the document has no key.
  /// - Throws: ``DocbmError`` when the key cannot be read or the escrow cannot be written
  ///   (`escrowUntrusted` for a folder someone else could change).
  @discardableResult
  public func escrowKey(of document: FilePath) throws(DocbmError) -> KeyFingerprint? {
    guard let key = try KeyAttribute.read(atPath: document).key(of: document) else { return nil }
    try deposit(key, document: document)
    return key.fingerprint
  }

  /// Records that the document at `document` carries the escrowed key `fingerprint`, when
  /// the escrow has that key but no record of the document as it is now (it moved, or is a
  /// copy of the user's own that kept its key). The key is read from the escrow, never
  /// from the document: a document cannot add a key to the escrow this way.
  ///
  /// - Returns: whether a record was written.
  /// - Throws: ``DocbmError`` when the escrow cannot be written.
  @discardableResult
  public func recordSighting(of fingerprint: KeyFingerprint, on document: FilePath) throws(DocbmError) -> Bool
  {
    // No escrow folder yet, or one that cannot be trusted: nothing holds the key.
    guard let folder = try? EscrowFolder.open(self.folder) else { return false }
    defer { folder.close() }
    guard case .success(let entry?) = readEntry(Array((fingerprint.description + ".json").utf8), in: folder),
      let record = try documentRecord(document, requiring: fingerprint)
    else { return false }
    if entry.documents.contains(where: { $0.describesSameDocument(as: record) }) { return false }
    try deposit(entry.key, record: record, in: folder)
    return true
  }

  /// Every entry, and the files that could not be read (or the folder, when it cannot be
  /// trusted: then there are no entries).
  public func entries() -> (entries: [EscrowEntry], problems: [EscrowProblem]) {
    let folder: EscrowFolder
    do {
      guard let opened = try EscrowFolder.open(self.folder) else { return ([], []) }
      folder = opened
    } catch {
      return ([], [EscrowProblem(file: self.folder, reason: error.message)])
    }
    defer { folder.close() }
    guard let names = try? DirectoryStream.entries(of: folder.descriptor) else { return ([], []) }
    var entries: [EscrowEntry] = []
    var problems: [EscrowProblem] = []
    for name in names.map(\.name).sorted(by: { $0.lexicographicallyPrecedes($1) })
    where KeyEscrow.isEntryFileName(name) {
      switch readEntry(name, in: folder) {
      case .success(let entry?): entries.append(entry)
      case .success(nil): continue
      case .failure(let problem): problems.append(problem)
      }
    }
    return (entries, problems)
  }

  /// The entry for `fingerprint`, if the escrow has one that reads.
  public func entry(for fingerprint: KeyFingerprint) -> EscrowEntry? {
    try? lookup(fingerprint).get()
  }

  /// The entry for `fingerprint`: `nil` when there is none, a problem when its file (or
  /// the folder) cannot be trusted or read.
  func lookup(_ fingerprint: KeyFingerprint) -> Result<EscrowEntry?, EscrowProblem> {
    let folder: EscrowFolder
    do {
      guard let opened = try EscrowFolder.open(self.folder) else { return .success(nil) }
      folder = opened
    } catch {
      return .failure(EscrowProblem(file: self.folder, reason: error.message))
    }
    defer { folder.close() }
    return readEntry(Array((fingerprint.description + ".json").utf8), in: folder)
  }

  /// Whether a name in the escrow folder is an entry file's: `*.json`, not hidden (the
  /// lock, the catalog and unfinished saves are).
  static func isEntryFileName(_ name: UnsafeRawBufferPointer) -> Bool {
    let count = name.count
    return count > 5 && name[0] != UInt8(ascii: ".") && name[count - 5] == UInt8(ascii: ".")
      && name[count - 4] == UInt8(ascii: "j") && name[count - 3] == UInt8(ascii: "s")
      && name[count - 2] == UInt8(ascii: "o") && name[count - 1] == UInt8(ascii: "n")
  }

  /// The same test of a name held in an array.
  static func isEntryFileName(_ name: [UInt8]) -> Bool {
    name.withUnsafeBytes { isEntryFileName($0) }
  }

  /// The entry in the file `name` of the open folder: `nil` when there is no such file.
  func readEntry(_ name: [UInt8], in folder: EscrowFolder) -> Result<EscrowEntry?, EscrowProblem> {
    switch folder.read(name, limit: KeyEscrow.maximumFileSize) {
    case .failure(let problem): return .failure(problem)
    case .success(nil): return .success(nil)
    case .success(let bytes?): return entry(decoding: bytes, name: name, in: folder).map { $0 }
    }
  }

  /// The entry that `bytes`, the contents of the file `name` in the open folder, hold.
  ///
  /// - Returns: a problem when they are not an entry of this format and version, or when
  ///   the key does not match the recorded fingerprint or the file's name.
  func entry(decoding bytes: [UInt8], name: [UInt8], in folder: EscrowFolder) -> Result<
    EscrowEntry, EscrowProblem
  > {
    let path = folder.path.appending(name)
    let contents: File
    switch decodeFile(bytes, path: path) {
    case .failure(let problem): return .failure(problem)
    case .success(let decoded): contents = decoded
    }
    guard let keyBytes = Base64URL.decode(Array(contents.key.utf8)), let key = DocumentKey(bytes: keyBytes)
    else {
      return .failure(EscrowProblem(file: path, reason: "the key is not 32 bytes of URL-safe base64"))
    }
    guard key.fingerprint == contents.fingerprint else {
      return .failure(
        EscrowProblem(file: path, reason: "the key does not match the recorded fingerprint (damaged entry)"))
    }
    guard Array((contents.fingerprint.description + ".json").utf8) == name else {
      return .failure(
        EscrowProblem(
          file: path, reason: "the file name does not match the key's fingerprint (damaged entry)"))
    }
    return .success(
      EscrowEntry(
        fingerprint: contents.fingerprint, created: contents.created, documents: contents.documents,
        file: path,
        key: key))
  }

  private func readFile(_ name: [UInt8], in folder: EscrowFolder) -> Result<File?, EscrowProblem> {
    switch folder.read(name, limit: KeyEscrow.maximumFileSize) {
    case .failure(let problem): return .failure(problem)
    case .success(nil): return .success(nil)
    case .success(let bytes?): return decodeFile(bytes, path: folder.path.appending(name)).map { $0 }
    }
  }

  /// The escrow file in `bytes` (read from `path`), when it is one of this format and version.
  private func decodeFile(_ bytes: [UInt8], path: FilePath) -> Result<File, EscrowProblem> {
    guard let contents = try? JSONDecoder().decode(File.self, from: Data(bytes)) else {
      return .failure(EscrowProblem(file: path, reason: "not a docbm escrow entry (malformed JSON)"))
    }
    guard contents.format == KeyEscrow.format else {
      return .failure(
        EscrowProblem(file: path, reason: "not a docbm escrow entry (format \(contents.format))"))
    }
    guard contents.version == KeyEscrow.version else {
      return .failure(
        EscrowProblem(file: path, reason: "escrow format version \(contents.version) is not supported"))
    }
    return .success(contents)
  }

  /// The record of the document at `document` as it is now, or `nil` when it is not the
  /// user's own (not recorded: see ``deposit(_:document:)``), or when `fingerprint` is given
  /// and the document does not carry that key.
  private func documentRecord(
    _ document: FilePath, requiring fingerprint: KeyFingerprint? = nil, mayBePortal: Bool = true
  ) throws(DocbmError) -> EscrowEntry.Document? {
    // A path through the Documents portal means nothing once the portal stops: the document
    // is recorded at its host path, when the portal says it and this process sees the same
    // document (with the same key) there, and not at all otherwise.
    if mayBePortal, let portal = PortalDocument.of(document) {
      guard let host = portal.hostPath, host != document,
        case .key(let key)? = try? KeyAttribute.read(atPath: document),
        fingerprint == nil || fingerprint == key.fingerprint
      else { return nil }
      // In a sandbox the host path is usually not there (or is another file): no record.
      guard (try? FileStatus.of(host, followSymlinks: true)) != nil, PortalDocument.of(host) == nil else {
        return nil
      }
      return try documentRecord(host, requiring: key.fingerprint, mayBePortal: false)
    }
    return try mappingSystemErrors(.inspectTarget, path: document) { () throws(SystemCallError) in
      let fd = try FileDescriptor.open(document, [.readOnly, .nonBlocking])
      defer { fd.close() }
      let status = try FileStatus.of(fd)
      guard status.owner == ProcessCredentials.effectiveUser,
        status.kind == .regular || status.kind == .directory
      else { return nil }
      if let fingerprint {
        guard case .key(let key)? = try? KeyAttribute.read(from: fd, path: document),
          key.fingerprint == fingerprint
        else { return nil }
      }
      let real = (try? TargetSnapshot.canonicalPath(document)) ?? document.absolute
      return EscrowEntry.Document(
        path: real, inode: status.inode, fileHandle: try? KernelFileHandle.of(fd),
        filesystemID: (try? FileSystemIdentity.of(fd))?.fsid, recorded: .now)
    }
  }

  /// The escrow folder, opened and checked (``EscrowFolder``), made first (with its parents)
  /// when it is missing, mode 0700; an own folder's wider mode is narrowed to 0700.
  ///
  /// - Throws: `escrowUntrusted` for a folder someone else could change; the `writeKey`
  ///   codes when it cannot be made.
  private func prepareFolder() throws(DocbmError) -> EscrowFolder {
    if let existing = try EscrowFolder.open(folder) {
      do throws(DocbmError) {
        try mappingSystemErrors(.writeKey, path: folder) { () throws(SystemCallError) in
          if existing.permissions != 0o700 { try existing.descriptor.changeMode(0o700) }
        }
      } catch {
        existing.close()
        throw error
      }
      return existing
    }
    try mappingSystemErrors(.writeKey, path: folder) { () throws(SystemCallError) in
      var current = FilePath("/")
      for component in folder.absolute.components {
        current = current.appending(component)
        do throws(SystemCallError) {
          try FileDescriptor.currentWorkingDirectory.makeDirectory(current, permissions: 0o700)
        } catch  where error.errno == .fileExists {
          continue
        }
      }
    }
    guard let made = try EscrowFolder.open(folder) else {
      throw DocbmError(
        .notFound, path: folder, message: "the escrow folder \(folder) vanished as it was made")
    }
    return made
  }

  /// Writes `contents` to the file `name` in the escrow folder, mode 0600, holding the
  /// folder's lock, through a safe save (never half written).
  func writePrivateFile(_ name: String, contents: [UInt8]) throws(DocbmError) {
    let folder = try prepareFolder()
    defer { folder.close() }
    try locked(folder) { () throws(DocbmError) in
      try writePrivateFile(Array(name.utf8), contents: contents, in: folder)
    }
  }

  /// ``writePrivateFile(_:contents:)`` with the lock held: the file is made (or found)
  /// without following a link, must be a regular file of the user's, and is given mode
  /// 0600 before the new version (which takes its mode) is written.
  private func writePrivateFile(_ name: [UInt8], contents: [UInt8], in folder: EscrowFolder)
    throws(DocbmError)
  {
    let path = folder.path.appending(name)
    try mappingSystemErrors(.writeKey, path: path) { () throws(SystemCallError) in
      let fd = try FileDescriptor.open(
        FilePath(uncheckedBytes: name), [.writeOnly, .create, .noFollow, .nonBlocking], permissions: 0o600,
        relativeTo: folder.descriptor)
      defer { fd.close() }
      let status = try FileStatus.of(fd)
      guard status.kind == .regular, EscrowFolder.ownershipProblem(status, what: "file") == nil else {
        throw SystemCallError("open", .permissionDenied, path: path)
      }
      if status.permissions & 0o7777 != 0o600 { try fd.changeMode(0o600) }
    }
    try BookmarkService().documents(anchoredOn: path).replaceDocument(with: Data(contents))
  }

  /// Runs `body` holding the escrow folder's lock (`.lock`, a regular file of the user's,
  /// opened without following a link and without blocking on a FIFO).
  private func locked<Value>(
    _ folder: EscrowFolder, _ body: () throws(DocbmError) -> Value
  ) throws(DocbmError) -> Value {
    let lockPath = folder.path.appending(".lock")
    let lock = try mappingSystemErrors(.writeKey, path: lockPath) { () throws(SystemCallError) in
      try FileDescriptor.openLocked(FilePath(".lock"), relativeTo: folder.descriptor, reportedAs: lockPath) {
        EscrowFolder.ownershipProblem($0, what: "file") == nil
      }
    }
    defer { lock.close() }
    return try body()
  }
}
