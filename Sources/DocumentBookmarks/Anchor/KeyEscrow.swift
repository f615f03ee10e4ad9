import Foundation
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
    let environment = ProcessInfo.processInfo.environment
    if let folder = environment["DOCBM_ESCROW_DIR"], !folder.isEmpty {
      return KeyEscrow(folder: FilePath(folder))
    }
    if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
      return KeyEscrow(folder: FilePath(state).appending("docbm"))
    }
    let home = environment["HOME"] ?? "/"
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

  /// Records `key` as made on (or seen on) the document at `document`.
  ///
  /// - Throws: ``DocbmError`` when the folder or the file cannot be written.
  func deposit(_ key: DocumentKey, document: FilePath) throws(DocbmError) {
    try prepareFolder()
    let record = try documentRecord(document)
    try locked { () throws(DocbmError) in
      let path = file(for: key.fingerprint)
      var contents: File
      switch readFile(path) {
      case .success(let existing?) where existing.fingerprint == key.fingerprint:
        if existing.documents.contains(where: {
          $0.path == record.path && $0.inode == record.inode && $0.fileHandle == record.fileHandle
        }) {
          return  // already recorded as it is
        }
        contents = existing
        contents.key = Base64URL.encode(key.bytes)  // never keep a damaged copy
        contents.documents.removeAll {
          $0.path == record.path || ($0.inode == record.inode && $0.filesystemID == record.filesystemID)
        }
      default:
        contents = File(
          format: KeyEscrow.format, version: KeyEscrow.version, fingerprint: key.fingerprint,
          key: Base64URL.encode(key.bytes), created: .now, documents: [])
        try createPrivateFile(path)
      }
      contents.documents.append(record)
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
      let data: Data
      do { data = try encoder.encode(contents) } catch {
        throw DocbmError(.systemFailure, path: path, message: "cannot encode the escrow entry: \(error)")
      }
      try BookmarkService().documents(anchoredOn: path).replaceDocument(with: data)
    }
  }

  /// Escrows the key the document at `document` carries (recording the document with it).
  ///
  /// - Returns: the key's fingerprint, or `nil` when the document has no key.
  /// - Throws: ``DocbmError`` when the key cannot be read or the escrow cannot be written.
  @discardableResult
  public func escrowKey(of document: FilePath) throws(DocbmError) -> KeyFingerprint? {
    guard let key = try KeyAttribute.read(atPath: document).key(of: document) else { return nil }
    try deposit(key, document: document)
    return key.fingerprint
  }

  /// Every entry, and the files that could not be read.
  public func entries() -> (entries: [EscrowEntry], problems: [EscrowProblem]) {
    guard let fd = try? FileDescriptor.open(folder, [.directory]) else { return ([], []) }
    defer { fd.close() }
    guard let names = try? DirectoryStream.entries(of: fd) else { return ([], []) }
    var entries: [EscrowEntry] = []
    var problems: [EscrowProblem] = []
    for name in names.map(\.name).sorted(by: { $0.lexicographicallyPrecedes($1) })
    where KeyEscrow.isEntryFileName(name) {
      let path = folder.appending(name)
      switch readEntry(path) {
      case .success(let entry?): entries.append(entry)
      case .success(nil): continue
      case .failure(let problem): problems.append(problem)
      }
    }
    return (entries, problems)
  }

  /// The entry for `fingerprint`, if the escrow has one that reads.
  public func entry(for fingerprint: KeyFingerprint) -> EscrowEntry? {
    try? readEntry(file(for: fingerprint)).get()
  }

  /// Whether a name in the escrow folder is an entry file's: `*.json`, not hidden (the
  /// lock, the catalog and unfinished saves are).
  static func isEntryFileName(_ name: [UInt8]) -> Bool {
    name.count > 5 && name.suffix(5).elementsEqual(".json".utf8) && name.first != UInt8(ascii: ".")
  }

  /// The entry in the file at `path`: `nil` when there is no such file.
  func readEntry(_ path: FilePath) -> Result<EscrowEntry?, EscrowProblem> {
    switch readFile(path) {
    case .failure(let problem): return .failure(problem)
    case .success(nil): return .success(nil)
    case .success(let contents?):
      guard let bytes = Base64URL.decode(Array(contents.key.utf8)), let key = DocumentKey(bytes: bytes) else {
        return .failure(EscrowProblem(file: path, reason: "the key is not 32 bytes of URL-safe base64"))
      }
      guard key.fingerprint == contents.fingerprint else {
        return .failure(
          EscrowProblem(file: path, reason: "the key does not match the recorded fingerprint (damaged entry)")
        )
      }
      return .success(
        EscrowEntry(
          fingerprint: contents.fingerprint, created: contents.created, documents: contents.documents,
          file: path,
          key: key))
    }
  }

  private func readFile(_ path: FilePath) -> Result<File?, EscrowProblem> {
    let bytes: [UInt8]
    do {
      bytes = try readWholeFile(path, limit: KeyEscrow.maximumFileSize + 1)
    } catch {
      if error.errno == .noSuchFile { return .success(nil) }
      return .failure(EscrowProblem(file: path, reason: "cannot be read: \(error.errno)"))
    }
    guard bytes.count <= KeyEscrow.maximumFileSize else {
      return .failure(EscrowProblem(file: path, reason: "larger than \(KeyEscrow.maximumFileSize) bytes"))
    }
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

  private func documentRecord(_ document: FilePath) throws(DocbmError) -> EscrowEntry.Document {
    try mappingSystemErrors(.inspectTarget, path: document) { () throws(SystemCallError) in
      let fd = try FileDescriptor.open(document, [.path])
      defer { fd.close() }
      let status = try FileStatus.of(fd)
      let real = (try? TargetSnapshot.canonicalPath(document)) ?? document.absolute
      return EscrowEntry.Document(
        path: real, inode: status.inode, fileHandle: try KernelFileHandle.of(fd),
        filesystemID: (try? FileSystemIdentity.of(fd))?.fsid, recorded: .now)
    }
  }

  /// Makes the folder (and its parents) and gives it mode 0700.
  private func prepareFolder() throws(DocbmError) {
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
      let fd = try FileDescriptor.open(folder, [.directory])
      defer { fd.close() }
      if try FileStatus.of(fd).permissions != 0o700 { try fd.changeMode(0o700) }
    }
  }

  /// Writes `contents` to the file `name` in the escrow folder, mode 0600, holding the
  /// folder's lock, through a safe save (never half written).
  func writePrivateFile(_ name: String, contents: [UInt8]) throws(DocbmError) {
    let path = folder.appending(name)
    try locked { () throws(DocbmError) in
      try createPrivateFile(path)
      try BookmarkService().documents(anchoredOn: path).replaceDocument(with: Data(contents))
    }
  }

  private func createPrivateFile(_ path: FilePath) throws(DocbmError) {
    try mappingSystemErrors(.writeKey, path: path) { () throws(SystemCallError) in
      do throws(SystemCallError) {
        let fd = try FileDescriptor.open(path, [.writeOnly, .create, .exclusive], permissions: 0o600)
        fd.close()
      } catch  where error.errno == .fileExists {
        return
      }
    }
  }

  /// Runs `body` holding the escrow folder's lock.
  private func locked<Value>(_ body: () throws(DocbmError) -> Value) throws(DocbmError) -> Value {
    let lockPath = folder.appending(".lock")
    let lock = try mappingSystemErrors(.writeKey, path: lockPath) { () throws(SystemCallError) in
      let fd = try FileDescriptor.open(lockPath, [.readWrite, .create], permissions: 0o600)
      do throws(SystemCallError) {
        _ = try fd.lockExclusively(wait: true)
      } catch {
        fd.close()
        throw error
      }
      return fd
    }
    defer { lock.close() }
    return try body()
  }
}
