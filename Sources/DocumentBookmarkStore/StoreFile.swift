import DocumentBookmarks
import Foundation

/// The store file on disk: read without a lock (saves replace it by rename, so a reader
/// sees one whole version), changed read-merge-write under an `flock` on a sibling lock
/// file, saved with `replaceDocument` (so it keeps its key), with a last good copy to
/// restore when it is found damaged.
///
/// Several processes (and threads) may use one store file: each change applies to what the
/// file holds at that moment, so no process's change is lost. A killed holder's lock goes
/// with its descriptors.
struct StoreFile<Key: Hashable & Sendable & Codable, Metadata: Sendable & Codable & Equatable>: Sendable {
  typealias Contents = StoreContents<Key, Metadata>
  typealias Failure = BookmarkStoreError<Key>
  typealias Format = StoreFormat<Key, Metadata>

  /// The store file, absolute.
  let path: FilePath
  let service: BookmarkService
  /// The version last read or written, and each record's JSON.
  let cache = StoreFileCache<Key, Metadata>()

  init(path: FilePath, service: BookmarkService) {
    self.path = path.absolute.lexicallyNormalized
    self.service = service
  }

  /// The store file as a document: what its bookmarks are anchored on.
  var document: AnchoredDocument { service.documents(anchoredOn: path) }
  /// `<store>.lock`: never the store file itself, which saves replace.
  var lockPath: FilePath { sibling(".lock") }
  /// `<store>.last-good`: a copy of the last version written, with the store's key.
  var lastGoodPath: FilePath { sibling(".last-good") }

  private func sibling(_ suffix: String) -> FilePath {
    FilePath(bytes: path.bytes + Array(suffix.utf8)) ?? path
  }

  /// Reads the file as it is; a file that does not exist reads as an empty store.
  ///
  /// - Throws: ``BookmarkStoreError`` `newerVersion`, `notAStore`, `corrupt` (damaged; see
  ///   ``readRepairing()``), `docbm` (`permissionDenied`, `ioError`, …).
  func read() throws(Failure) -> Contents {
    switch try readFile(path, cached: true) {
    case .absent: return Contents()
    case .cached(let contents): return contents
    case .bytes(let bytes, let signature):
      let contents = try decode(bytes, at: path)
      cache.remember(contents, signature: signature)
      return contents
    case .notRegular, .tooLarge, .untrusted: preconditionFailure("readFile throws for these")
    }
  }

  private func decode(_ bytes: [UInt8], at path: FilePath) throws(Failure) -> Contents {
    switch Format.decode(bytes) {
    case .success(let contents): return contents
    case .failure(.corrupt(let reason)): throw .corrupt(path: path, reason: reason)
    case .failure(.notAStore(let reason)): throw .notAStore(path: path, reason: reason)
    case .failure(.newerVersion(let version)): throw .newerVersion(schemaVersion: version, path: path)
    }
  }

  /// The bytes of the file at `path`, or `nil` when there is none. Opened without blocking
  /// (a FIFO is refused, not waited on), a regular file only, at most the size limit.
  private func readBytes(_ path: FilePath) throws(Failure) -> [UInt8]? {
    if case .bytes(let bytes, _) = try readFile(path, cached: false) { return bytes }
    return nil
  }

  /// Reads the file at `path`: its bytes and signature, or (with `cached`) the contents
  /// last seen when the file is still that version, without reading it.
  private func readFile(_ path: FilePath, cached: Bool) throws(Failure) -> FoundFile<Key, Metadata> {
    let cache = cached ? cache : nil
    let found: FoundFile<Key, Metadata>
    do {
      found = try mappingSystemErrors(.openDocument, path: path) {
        () throws(SystemCallError) -> FoundFile<Key, Metadata> in
        let fd: FileDescriptor
        do throws(SystemCallError) {
          fd = try FileDescriptor.open(path, [.readOnly, .nonBlocking])
        } catch {
          if error.errno == .noSuchFile { return .absent }
          throw error
        }
        defer { fd.close() }
        let status = try FileStatus.of(fd)
        guard status.kind == .regular else { return .notRegular }
        if let problem = Self.trustProblem(status) { return .untrusted(problem) }
        guard status.size <= UInt64(Format.sizeLimit) else { return .tooLarge }
        let signature = StoreFileCache<Key, Metadata>.Signature(status)
        if let contents = cache?.contents(for: signature) { return .cached(contents) }
        return .bytes(try fd.readWhole(limit: Format.sizeLimit), signature)
      }
    } catch {
      throw .docbm(error)
    }
    switch found {
    case .notRegular: throw .notAStore(path: path, reason: "not a regular file")
    case .tooLarge: throw .notAStore(path: path, reason: "larger than \(Format.sizeLimit >> 20) MiB")
    case .untrusted(let reason): throw .untrusted(path: path, reason: reason)
    default: return found
    }
  }

  /// Why a store file, last good copy or lock file is not to be trusted: it belongs to
  /// another user (root aside), or its group or others may write it. Records and a key
  /// someone else could have put there would lead the app to that person's choice of files.
  static func trustProblem(_ status: FileStatus) -> String? {
    let user = ProcessCredentials.effectiveUser
    if status.owner != user && status.owner != 0 { return "it belongs to user \(status.owner)" }
    if status.permissions & 0o022 != 0 {
      return "its group or others may write it (mode \(String(status.permissions & 0o7777, radix: 8)))"
    }
    return nil
  }

  /// Reads the file, and when it is damaged, quarantines it and restores the last good copy
  /// (under the lock, so that only one process does it).
  func readRepairing() throws(Failure) -> Contents {
    do {
      return try read()
    } catch .corrupt {
      return try locked { () throws(Failure) in try readRepairingLocked().contents }
    }
  }

  /// Under the lock: reads, repairing damage. `repaired` says whether the file was restored.
  private func readRepairingLocked() throws(Failure) -> (contents: Contents, repaired: Bool) {
    do {
      return (try read(), false)
    } catch .corrupt(_, let reason) {
      return (try restoreLastGood(reason: reason), true)
    }
  }

  /// The file is damaged: if the last good copy reads, the damaged file is kept under
  /// `<store>.corrupt-<seconds>[-n]` (a hard link to it, so nothing is copied) and the last
  /// good version is saved over it with the last good copy's attributes (the key among
  /// them, even when whatever damaged the file also dropped its key).
  private func restoreLastGood(reason: String) throws(Failure) -> Contents {
    guard let bytes = try? readBytes(lastGoodPath), let good = try? decode(bytes, at: lastGoodPath) else {
      throw .corrupt(path: path, reason: reason + "; there is no readable last good copy (\(lastGoodPath))")
    }
    let stamp = Int(Date().timeIntervalSince1970)
    var quarantine = FilePath(bytes: path.bytes + Array(".corrupt-\(stamp)".utf8)) ?? path
    var attempt = 1
    while (try? FileManager.default.linkItem(atPath: path.description, toPath: quarantine.description)) == nil
    {
      attempt += 1
      guard attempt < 100 else {
        throw .corrupt(path: path, reason: reason + "; it could not be quarantined")
      }
      quarantine = FilePath(bytes: path.bytes + Array(".corrupt-\(stamp)-\(attempt)".utf8)) ?? path
    }
    do {
      try service.documents(anchoredOn: lastGoodPath).saveCopy(
        to: path, key: .carry, options: ReplaceOptions(hardLinks: .split), data: Data(bytes))
    } catch {
      throw .docbm(error)
    }
    return good
  }

  /// Runs `body` holding the store's lock.
  func locked<Value>(_ body: () throws(Failure) -> Value) throws(Failure) -> Value {
    makeFolder()
    let lock: FileDescriptor
    do {
      lock = try mappingSystemErrors(.openDocument, path: lockPath) { () throws(SystemCallError) in
        try FileDescriptor.openLocked(lockPath, reportedAs: lockPath) { Self.trustProblem($0) == nil }
      }
    } catch {
      throw .docbm(error)
    }
    defer { lock.close() }
    return try body()
  }

  /// Applies `change` to what the file holds now, under the lock, and saves the result when
  /// it differs; `publish` runs, still under the lock, with the contents before and after
  /// (so that whoever keeps them in memory sees versions in the order they were saved).
  ///
  /// - Returns: whether the file was written.
  @discardableResult
  func update(
    _ change: (inout Contents) throws(Failure) -> Void,
    publish: (_ before: Contents, _ after: Contents) -> Void = { _, _ in }
  ) throws(Failure) -> Bool {
    try locked { () throws(Failure) -> Bool in
      let before = try readRepairingLocked().contents
      var after = before
      try change(&after)
      guard after != before else {
        publish(before, before)
        return false
      }
      try write(after)
      publish(before, after)
      return true
    }
  }

  /// Makes the store file (an empty store) when there is none, so that bookmarks can be
  /// anchored on it. Under the lock.
  func createIfMissing() throws(Failure) {
    if FileManager.default.fileExists(atPath: path.description) { return }
    try locked { () throws(Failure) in
      if FileManager.default.fileExists(atPath: path.description) { return }
      try write(Contents())
    }
  }

  /// Makes the store's folder (and those above it) when missing, private (0700).
  private func makeFolder() {
    let folder = path.removingLastComponent.description
    if FileManager.default.fileExists(atPath: folder) { return }
    try? FileManager.default.createDirectory(
      atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
  }

  /// Saves `contents` with `replaceDocument`, then refreshes the last good copy. A new
  /// store file is made private (0600): it lists the user's files.
  private func write(_ contents: Contents) throws(Failure) {
    let data: Data
    do {
      data = try Format.encode(contents, cache: cache)
    } catch {
      throw .corrupt(path: path, reason: "its records cannot be encoded: \(error)")
    }
    let isNew = !FileManager.default.fileExists(atPath: path.description)
    do {
      cache.remember(contents, signature: nil)
      try document.replaceDocument(with: data)
      if isNew {
        try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path.description)
      }
      // The last good copy is rewritten with every save; it is not flushed (it is whole
      // or absent after a crash, and the store itself was flushed).
      try document.saveUnflushedCopy(to: lastGoodPath, data: data)
      // The version just written is known: the next change under the lock need not
      // decode it again (another writer's save gives the file a new inode).
      if let status = try? FileStatus.of(path, followSymlinks: true) {
        cache.remember(contents, signature: StoreFileCache<Key, Metadata>.Signature(status))
      }
    } catch {
      throw .docbm(error)
    }
  }
}

/// What reading a store file's path found.
private enum FoundFile<Key: Hashable & Sendable & Codable, Metadata: Sendable & Codable & Equatable> {
  case absent
  case bytes([UInt8], StoreFileCache<Key, Metadata>.Signature)
  case cached(StoreContents<Key, Metadata>)
  case notRegular
  case tooLarge
  case untrusted(String)
}
