/// Decides from evidence whether a document's bookmarks still work: its key, the bookmarks
/// found in its bytes (binary, text form, base64), and the escrow's record of it.
///
/// Checking reads; it never writes the document or its attributes.
public struct DocumentChecker: Sendable {
  /// The escrow consulted as evidence, if any.
  public let escrow: KeyEscrow?
  /// How far bookmarks' targets are searched for when checking that they resolve.
  public let searchBudget: SearchBudget
  /// The escrow files that could not be read when the checker was made (reported, not
  /// fatal: the other entries are used).
  public let escrowProblems: [EscrowProblem]
  private let index: EscrowIndex

  public init(escrow: KeyEscrow? = nil, searchBudget: SearchBudget = .standard) {
    self.escrow = escrow
    self.searchBudget = searchBudget
    let (entries, problems) = escrow?.entries() ?? ([], [])
    self.index = EscrowIndex(entries)
    self.escrowProblems = problems
  }

  /// Checks the document (a regular file) at `path`.
  public func check(_ path: FilePath) -> DocumentCheck {
    check(path, knownRegular: false)
  }

  /// ``check(_:)`` for a path a tree walk already knows to be a regular file.
  package func check(_ path: FilePath, knownRegular: Bool) -> DocumentCheck {
    check(path, knownRegular: knownRegular) { () throws(DocbmError) in
      try BookmarkScanner.openForReading(path)
    }
  }

  /// ``check(_:)`` for a regular file that a tree walk listed in `folder` (open) as `name`:
  /// it is opened by name relative to the folder, never through a symbolic link (an entry
  /// replaced by a link since it was listed is reported unreadable, not followed).
  /// `path` is the folder's path with `name` appended, for reports and relative targets.
  package func check(_ path: FilePath, in folder: FileDescriptor?, named name: [UInt8]) -> DocumentCheck {
    guard let folder else { return check(path, knownRegular: true) }
    return check(path, knownRegular: true) { () throws(DocbmError) in
      try BookmarkScanner.openForReading(path, named: FilePath(uncheckedBytes: name), in: folder)
    }
  }

  private func check(
    _ path: FilePath, knownRegular: Bool, opening open: () throws(DocbmError) -> FileDescriptor
  ) -> DocumentCheck {
    func without(
      _ verdict: CheckVerdict, key: KeyFingerprint? = nil, escrowed: KeyFingerprint? = nil, _ message: String
    )
      -> DocumentCheck
    {
      DocumentCheck(
        document: path, verdict: verdict, keyFingerprint: key, escrowedFingerprint: escrowed, bookmarks: [],
        message: message)
    }

    // One descriptor for the key and the bytes: no second path lookup, no access-time update.
    let fd: FileDescriptor
    do {
      fd = try open()
    } catch {
      return without(.unreadable, error.message)
    }
    defer { fd.close() }
    let escrowed = index.fingerprint(for: path, descriptor: fd)

    let documentKey: DocumentKey?
    do throws(DocbmError) {
      documentKey = try KeyAttribute.read(from: fd, path: path).key(of: path)
    } catch {
      guard error.code == .unsupportedFilesystem else {
        return without(.unreadable, escrowed: escrowed, error.message)
      }
      return without(
        .unsupportedFilesystem, escrowed: escrowed,
        "the filesystem has no user extended attributes, so the document can hold no key")
    }

    let key = documentKey?.fingerprint
    var found: [FoundBookmark] = []
    do {
      var statistics = BookmarkScanStatistics()
      try BookmarkScanner().scan(
        descriptor: fd, path: path, knownRegular: knownRegular, statistics: &statistics
      ) {
        found.append($0)
      }
    } catch {
      return without(.unreadable, key: key, escrowed: escrowed, error.message)
    }

    // Made only when there are bookmarks to resolve: it computes the document's folder.
    let anchored =
      found.isEmpty ? nil : BookmarkService(searchBudget: searchBudget).documents(anchoredOn: path)
    let evidence = found.map { item -> DocumentCheck.FoundEvidence in
      // The recorded target, unverified: parsed here only when resolution did not.
      var recorded: FilePath? { try? item.bookmark.decodeUnverified().absolutePath }
      guard let anchored, let documentKey, let key, item.bookmark.keyFingerprint == key else {
        return DocumentCheck.FoundEvidence(
          offset: item.offset, form: item.form, fingerprint: item.bookmark.keyFingerprint,
          recordedTarget: recorded,
          verifies: false, resolves: false, problem: key == nil ? .keyMissing : .keyMismatch)
      }
      do throws(DocbmError) {
        let resolution = try anchored.resolve(item.bookmark, key: documentKey, refreshing: false)
        return DocumentCheck.FoundEvidence(
          offset: item.offset, form: item.form, fingerprint: key,
          recordedTarget: resolution.recorded.absolutePath, verifies: true, resolves: true, problem: nil)
      } catch {
        let verified = error.code != .tampered && error.code != .corrupt && error.code != .unsupportedVersion
        return DocumentCheck.FoundEvidence(
          offset: item.offset, form: item.form, fingerprint: key, recordedTarget: recorded,
          verifies: verified,
          resolves: false, problem: error.code)
      }
    }
    let (verdict, message) = DocumentChecker.verdict(key: key, escrowed: escrowed, evidence: evidence)
    return DocumentCheck(
      document: path, verdict: verdict, keyFingerprint: key, escrowedFingerprint: escrowed,
      bookmarks: evidence,
      message: message)
  }

  /// The verdict from the evidence.
  static func verdict(
    key: KeyFingerprint?, escrowed: KeyFingerprint?, evidence: [DocumentCheck.FoundEvidence]
  ) -> (CheckVerdict, String) {
    if evidence.isEmpty {
      if let escrowed, key != escrowed {
        let now = key.map { "carries key \($0)" } ?? "has no key"
        return (.keyLost, "the escrow recorded key \(escrowed) for this document, which now \(now)")
      }
      return (.noBookmarks, "no bookmark was found in the document")
    }
    let named = Set(evidence.map(\.fingerprint)).map(\.description).sorted().joined(separator: ", ")
    guard let key else {
      return (.keyLost, "the document has no key, but \(evidence.count) bookmark(s) in it name key \(named)")
    }
    let verifying = evidence.filter(\.verifies).count
    if verifying == evidence.count {
      let unresolved = evidence.filter { !$0.resolves }.count
      let tail =
        unresolved == 0
        ? "and resolves" : "(\(unresolved) no longer resolve: their targets moved out of reach or are gone)"
      return (.ok, "the document has key \(key); every bookmark in it verifies \(tail)")
    }
    if verifying == 0 && evidence.allSatisfy({ $0.fingerprint != key }) {
      return (.keyMismatch, "the document carries key \(key), but its bookmarks name key \(named)")
    }
    return (.mixed, "\(verifying) of \(evidence.count) bookmarks verify with the document's key \(key)")
  }
}

/// The escrow's records by document path and by identity (filesystem and file handle, or
/// inode where there is no handle: inode numbers alone are reused), for quick lookups.
struct EscrowIndex: Sendable {
  private var byPath: [FilePath: KeyFingerprint] = [:]
  private var byIdentity: [String: KeyFingerprint] = [:]

  init(_ entries: [EscrowEntry]) {
    for entry in entries.sorted(by: { $0.created < $1.created }) {
      for document in entry.documents {
        byPath[document.path] = entry.fingerprint
        byIdentity[EscrowIndex.identity(document.filesystemID, document.fileHandle, document.inode)] =
          entry.fingerprint
      }
    }
  }

  static func identity(_ filesystem: UInt64?, _ handle: KernelFileHandle?, _ inode: UInt64) -> String {
    if let handle { return "\(filesystem ?? 0):h\(handle.type):\(handle.bytes)" }
    return "\(filesystem ?? 0):i\(inode)"
  }

  var isEmpty: Bool { byPath.isEmpty }

  /// The key recorded for the document at `path`, open as `fd`: by its path, else by its
  /// identity (which also finds it after a move, or through a link).
  func fingerprint(for path: FilePath, descriptor fd: FileDescriptor) -> KeyFingerprint? {
    guard !isEmpty else { return nil }
    if let fingerprint = byPath[path.absolute] { return fingerprint }
    guard let status = try? FileStatus.of(fd), let filesystem = try? FileSystemIdentity.of(fd) else {
      return nil
    }
    let handle = try? KernelFileHandle.of(fd)
    return byIdentity[EscrowIndex.identity(filesystem.fsid, handle ?? nil, status.inode)]
  }
}
