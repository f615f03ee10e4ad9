import DocbmSystem

/// Decides from evidence whether a document's bookmarks still work: its key, the bookmarks
/// found in its bytes (binary, text form, base64), and the escrow's record of it.
///
/// Checking reads; it never writes the document or its attributes.
public struct DocumentChecker: Sendable {
  /// The escrow consulted as evidence, if any.
  public let escrow: KeyEscrow?
  /// How far bookmarks' targets are searched for when checking that they resolve.
  public let searchBudget: SearchBudget
  /// What could not be used of the escrow when the checker opened it: its folder or
  /// database could not be trusted or read (reported, not fatal: the checks stand without
  /// it).
  public var escrowProblems: [EscrowProblem] { index.problem.map { [$0] } ?? [] }
  /// What opening the escrow imported from docbm 0.1.0's files, when it did.
  public var escrowMigration: EscrowMigration? { index.migration }
  private let index: EscrowIndex
  /// Whether a document without a key gets from its check what a repairer's prospect is
  /// decided from: its bookmarks counted against the escrowed keys they name
  /// (``DocumentCheck/escrowedKeyTally``) and, when it lost its key, the file as found
  /// (``DocumentCheck/sighting``).
  private let preparesProspects: Bool
  /// The walks of whole filesystems that the documents of one tree check share; `nil` for
  /// a checker whose every document check is a call of its own.
  private let filesystem: FilesystemSearch?

  /// Makes a checker with the user's escrow unless given another, or `nil` for none (a
  /// document that lost its key is then told only by its own bookmarks). With an escrow,
  /// its database is opened now (and a 0.1.0 escrow imported first), and each document's
  /// records are read when it is checked.
  public init(escrow: KeyEscrow? = .default, searchBudget: SearchBudget = .standard) {
    self.init(escrow: escrow, searchBudget: searchBudget, index: EscrowIndex(escrow))
  }

  private init(
    escrow: KeyEscrow?, searchBudget: SearchBudget, index: EscrowIndex, preparesProspects: Bool = false,
    filesystem: FilesystemSearch? = nil
  ) {
    self.escrow = escrow
    self.searchBudget = searchBudget
    self.index = index
    self.preparesProspects = preparesProspects
    self.filesystem = filesystem
  }

  /// A checker for one look at a document (`docbm inspect`): the escrow is opened only
  /// when a document's verdict depends on its record (``verdictDependsOnEscrow(_:)``), after
  /// the document's key and bytes are read, so that a document judged by its key and
  /// bookmarks alone costs no database.
  package init(deferringEscrow escrow: KeyEscrow?) {
    self.init(escrow: escrow, searchBudget: .standard, index: .deferred(escrow))
  }

  /// This checker with the escrow's records of every document inside `folders` (absolute
  /// and normalized) read at once, in one query, for checking the trees there; the keys
  /// its documents name are read once each. `preparingProspects`: a document without a
  /// key gets, from the check's own reading, what a repairer's prospect is decided from:
  /// its bookmarks counted against the escrowed keys they name
  /// (``DocumentCheck/escrowedKeyTally``) and, when it lost its key, the file as found
  /// (``DocumentCheck/sighting``). Its documents share the walks of whole filesystems (one
  /// per filesystem, the budget's time limit for them all). `sharingReads`: the escrow's
  /// reads share a read transaction for a while (``endSharedEscrowRead(ifOlderThan:)``),
  /// for a caller that writes nothing to the escrow until the check ends.
  package func loadingEscrow(
    inside folders: [FilePath], preparingProspects: Bool = false, sharingReads: Bool = false
  ) -> DocumentChecker {
    DocumentChecker(
      escrow: escrow, searchBudget: searchBudget,
      index: index.loading(inside: folders, sharingReads: sharingReads),
      preparesProspects: preparingProspects,
      filesystem: FilesystemSearch(timeLimit: searchBudget.filesystemTimeLimit, cancellation: nil))
  }

  /// The connection of a tree's index to the escrow's database (``loadingEscrow(inside:preparingProspects:sharingReads:)``).
  var treeConnection: EscrowConnection? { index.treeConnection }

  /// Ends the read transaction a tree's escrow reads share, when one began more than `age`
  /// nanoseconds ago (0: whatever its age).
  func endSharedEscrowRead(ifOlderThan age: UInt64 = 0) {
    index.endSharedRead(ifOlderThan: age)
  }

  /// The escrow's key and records of `fingerprint`: through the database this checker
  /// opened (none when there was none, the problem when it could not be used), so that
  /// many look-ups (a repair of many documents) open it once; once per key for a checker
  /// of trees (``loadingEscrow(inside:preparingProspects:)``: the hints of a tree check
  /// come from the reading its verdicts come from).
  func escrowEntry(_ fingerprint: KeyFingerprint) -> Result<EscrowEntry?, EscrowProblem> {
    index.entry(fingerprint)
  }

  /// Whether `check` found a document the escrow records for the key it carries, by its
  /// identity, at a path the escrow does not know: it moved, or was renamed.
  /// ``recordMoves(_:)`` makes the record follow it, so that a later repair finds it there.
  /// A copy that carries the key is another file, and is not recorded.
  public func isUnrecordedMove(_ check: DocumentCheck) -> Bool {
    check.escrowMove != nil
  }

  /// Records in the escrow, in one transaction, where each of `checks` that
  /// ``isUnrecordedMove(_:)`` found its document.
  ///
  /// - Returns: the error when the records could not be written (a warning: the checks stand).
  public func recordMoves(_ checks: [DocumentCheck]) -> [DocbmError] {
    guard let escrow else { return [] }
    do {
      _ = try escrow.recordMoves(checks.compactMap(\.escrowMove))
      return []
    } catch {
      return [error]
    }
  }

  /// ``check(_:)`` of the document at `path` open as `fd` (a regular file, read from its
  /// current offset), for a caller that reads its key and attributes through the same
  /// descriptor; `fd` stays open.
  package func check(_ path: FilePath, descriptor fd: FileDescriptor) -> DocumentCheck {
    check(path, listed: nil, descriptor: fd, knownRegular: false, inode: nil, folder: nil)
  }

  /// Checks the document (a regular file) at `path`.
  public func check(_ path: FilePath) -> DocumentCheck {
    check(path, knownRegular: false, folder: nil) { () throws(DocbmError) in
      try BookmarkScanner.openForReading(path)
    }
  }

  /// ``check(_:)`` for a regular file that a tree walk listed in `folder` (open) as `name`:
  /// it is opened by name relative to the folder, never through a symbolic link (an entry
  /// replaced by a link since it was listed is reported unreadable, not followed).
  /// `path` is the folder's path with `name` appended, for reports and relative targets.
  /// `inode` is the one the folder's listing gave, which spares most documents the system calls that
  /// look them up in the escrow by identity. `listed`: what the walk knows of the path, so
  /// that the check does not ask the system again.
  package func check(
    _ path: FilePath, in folder: FileDescriptor?, named name: [UInt8], inode: UInt64? = nil,
    listed: ListedPaths? = nil
  ) -> DocumentCheck {
    check(path, listed: listed, knownRegular: true, inode: inode, folder: folder) {
      () throws(DocbmError) in
      // Without the folder (past the open-folder bound), by its whole path, still never
      // through a link in the last component.
      guard let folder else { return try BookmarkScanner.openForReading(path, named: path) }
      return try BookmarkScanner.openForReading(path, named: FilePath(uncheckedBytes: name), in: folder)
    }
  }

  /// ``check(_:in:named:inode:listed:)`` with the name given as a C string where a
  /// ``DirectoryListing`` holds it (no copy of it per document).
  package func check(
    _ path: FilePath, in folder: FileDescriptor, cName name: UnsafePointer<CChar>, inode: UInt64?,
    listed: ListedPaths? = nil
  ) -> DocumentCheck {
    check(path, listed: listed, knownRegular: true, inode: inode, folder: folder) {
      () throws(DocbmError) in
      try BookmarkScanner.openForReading(path, cName: name, in: folder)
    }
  }

  /// Checks the document `open` opens. `folder`: the open folder the document was listed
  /// in, when there is one (targets inside it are then looked up from there); `listed`:
  /// what a tree walk knows of the path.
  private func check(
    _ path: FilePath, listed: ListedPaths? = nil, knownRegular: Bool, inode: UInt64? = nil,
    folder: FileDescriptor?, opening open: () throws(DocbmError) -> FileDescriptor
  ) -> DocumentCheck {
    // One descriptor for the key and the bytes: no second path lookup, no access-time update.
    let fd: FileDescriptor
    do {
      fd = try open()
    } catch {
      return DocumentChecker.without(.unreadable, path, error.message, portal: PortalDocument.of(path))
    }
    // Closed here, once the check is made.
    let result = check(
      path, listed: listed, descriptor: fd, knownRegular: knownRegular, inode: inode, folder: folder)
    fd.close()
    return result
  }

  /// A result without evidence.
  private static func without(
    _ verdict: CheckVerdict, _ path: FilePath, key: KeyFingerprint? = nil, escrowed: KeyFingerprint? = nil,
    _ message: String, portal: PortalDocument?
  ) -> DocumentCheck {
    DocumentCheck(
      document: path, verdict: verdict, keyFingerprint: key, escrowedFingerprint: escrowed, bookmarks: [],
      message: message, portalDocument: portal)
  }

  /// Checks the document open as `fd`.
  private func check(
    _ path: FilePath, listed: ListedPaths?, descriptor fd: FileDescriptor, knownRegular: Bool,
    inode: UInt64?, folder: FileDescriptor?
  ) -> DocumentCheck {
    // A deferred escrow is asked after the scan, and only when its record decides.
    var found =
      index.isDeferred ? nil : index.lookUp(path, absolute: listed?.absolute, descriptor: fd, inode: inode)
    var escrowed = found?.fingerprint
    // Whether it is reached through the Documents portal: asked once, of the descriptor.
    let portal = PortalDocument.of(path, descriptor: fd)

    // A filesystem without user extended attributes holds no key: that is a problem only
    // for a document with bookmarks (or one the escrow recorded a key for), so scan first.
    let documentKey: DocumentKeyCache.Entry?
    var keyUnsupported = false
    do throws(DocbmError) {
      documentKey = try KeyAttribute.cachedKey(from: fd, path: path)
    } catch {
      guard error.code == .unsupportedFilesystem else {
        return DocumentChecker.without(.unreadable, path, escrowed: escrowed, error.message, portal: portal)
      }
      documentKey = nil
      keyUnsupported = true
    }

    // Each bookmark becomes evidence as it is found; no record outlives its judgement. The
    // scan's closure captures the collector alone (by address).
    let key = documentKey?.key.fingerprint
    var escrowedKey: ((KeyFingerprint) -> DocumentKey?)?
    if preparesProspects { escrowedKey = index.escrowedKeys }
    var collector = EvidenceCollector(
      path: path, absolute: listed?.absolute, documentKey: documentKey, searchBudget: searchBudget,
      portal: portal, listedIn: folder, escrowedKey: escrowedKey, filesystem: filesystem)
    var statistics = BookmarkScanStatistics()
    do {
      try BookmarkScanner().scan(
        descriptor: fd, path: path, knownRegular: knownRegular, statistics: &statistics
      ) { collector.add($0) }
    } catch {
      return DocumentChecker.without(
        .unreadable, path, key: key, escrowed: escrowed, error.message, portal: portal)
    }
    let evidence = collector.evidence
    if index.isDeferred, DocumentChecker.verdictDependsOnEscrow(key: key, bookmarks: evidence) {
      found = index.lookUp(path, absolute: listed?.absolute, descriptor: fd, inode: inode)
      escrowed = found?.fingerprint
    }
    // Not recorded at its path nor by an identity in the tree: a tree's index looks among
    // the records of the keys the document names (one moved in from elsewhere).
    if found == nil, key != nil || !evidence.isEmpty {
      found = index.lookUp(
        listed?.absolute ?? path.absolute, descriptor: fd, inode: inode,
        namedBy: (key.map { [$0] } ?? []) + evidence.map(\.fingerprint))
      escrowed = found?.fingerprint
    }
    var (verdict, summary) = DocumentChecker.verdict(
      key: key, escrowed: escrowed, evidence: evidence, document: path)
    if keyUnsupported {
      if evidence.isEmpty && escrowed == nil && statistics.completion.isComplete {
        (verdict, summary) = (.noBookmarks, .text("no bookmark was found in the document"))
      } else {
        let evidenceSays = evidence.isEmpty ? "the escrow recorded a key for it" : "it holds bookmarks"
        (verdict, summary) = (
          .unsupportedFilesystem,
          .text(
            "the filesystem has no user extended attributes, so the document can hold no key, but \(evidenceSays)"
          )
        )
      }
    }
    if let incomplete = DocumentChecker.incompleteness(
      statistics.completion, overBudgetAt: collector.overBudgetAt)
    {
      (verdict, summary) = (
        .incomplete, .text("\(incomplete); of what was checked: \(verdict.rawValue): \(summary.text)")
      )
    }
    // The recorded file at a path the escrow does not know, carrying the recorded key: the
    // record follows it (recorded after the check, with the others). Best effort: a file
    // that cannot be looked at now is recorded by a later check.
    var move: EscrowRecord?
    if let key, let elsewhere = found?.elsewhere, elsewhere.fingerprint == key,
      let status = try? FileStatus.of(fd)
    {
      move = EscrowRecord(
        fingerprint: key, document: EscrowEntry.Document.of(fd, status: status, path: path, origin: .moved))
    }
    var tally = collector.tally
    tally?.isComplete = statistics.completion.isComplete && collector.overBudgetAt == nil
    // The file a prospect decides on: this one, as found; only when the escrow holds a key
    // the document's bookmarks or record name, and the file can be looked at (else the
    // prospect refuses without it).
    var sighting: DocumentSighting?
    if preparesProspects, verdict == .keyLost, escrowed != nil || tally?.counts.isEmpty == false,
      let status = try? FileStatus.of(fd)
    {
      let name = path.lastComponent
      sighting = DocumentSighting(
        status: status,
        record: EscrowEntry.Document.of(
          fd, status: status, path: path, real: listed?.realFolder.map { $0.appending(name) },
          origin: .repaired))
    }
    return DocumentCheck(
      document: path, verdict: verdict, keyFingerprint: key, escrowedFingerprint: escrowed,
      bookmarks: evidence, summary: summary, portalDocument: portal, escrowMove: move,
      escrowedKeyTally: tally, sighting: sighting)
  }

  /// The document the bookmarks were made on, when `document` only quotes them: every
  /// bookmark records the document it was made on (bookmarks made before that field do
  /// not), and that document is not this file nor a copy of it. A copy keeps the
  /// document's name, or stands where the bookmark's path relative to the document leads
  /// to its target (a copy renamed beside the original); a store's journal
  /// (`<store>.journal`) quotes its store's bookmarks. `nil` otherwise: a file that may be
  /// the document is never called a quotation.
  static func quotedDocument(_ evidence: [DocumentCheck.FoundEvidence], in document: FilePath) -> FilePath? {
    let name = document.lastComponent
    let folder = document.absolute.removingLastComponent
    var quoted: FilePath?
    for item in evidence {
      guard let recorded = item.recordedDocument, let target = item.recordedTarget,
        recorded.lastComponent != name
      else { return nil }
      let isJournal = name == recorded.lastComponent + Array(".journal".utf8)
      if !isJournal {
        let relative = target.relative(from: recorded.removingLastComponent)
        let here = folder.appending(relative.bytes).lexicallyNormalized
        // A target there, or one that cannot be looked at (it may be there): this file may
        // be a copy of the document.
        do {
          _ = try FileStatus.of(here, followSymlinks: false)
          return nil
        } catch  where error.errno == .noSuchFile || error.errno == .notDirectory {
        } catch {
          return nil
        }
      }
      quoted = quoted ?? recorded
    }
    return quoted
  }

  /// Why checking stopped before the end of the document, when it did.
  static func incompleteness(_ completion: BookmarkScanCompletion, overBudgetAt: UInt64?) -> String? {
    let limits = BookmarkScanLimits.standard
    switch completion {
    case .stoppedAtBookmarkLimit(let offset):
      return "checking stopped at byte \(offset): the document holds more than \(limits.bookmarks) bookmarks"
    case .stoppedAtCandidateLimit(let offset):
      return
        "checking stopped at byte \(offset): the document holds more than \(limits.candidates) places that look like bookmarks"
    case .complete:
      guard let overBudgetAt else { return nil }
      return
        "checking stopped at byte \(overBudgetAt): the bookmarks' evidence passed \(EvidenceCollector.evidenceBudget >> 20) MiB"
    }
  }

  /// Whether the escrow's record of the document can change the verdict on it: only for a
  /// document without a key (did it lose one, or does it only quote another document's
  /// bookmarks?) or without bookmarks (did it lose a key the escrow recorded?). A document
  /// that has its key and bookmarks is judged by them alone, so a check of it made
  /// without the escrow gives the verdict a check with the escrow gives.
  public static func verdictDependsOnEscrow(_ check: DocumentCheck) -> Bool {
    verdictDependsOnEscrow(key: check.keyFingerprint, bookmarks: check.bookmarks)
  }

  /// ``verdictDependsOnEscrow(_:)`` of a document with key `key` and bookmarks `bookmarks`.
  static func verdictDependsOnEscrow(key: KeyFingerprint?, bookmarks: [DocumentCheck.FoundEvidence]) -> Bool {
    key == nil || bookmarks.isEmpty
  }

  /// The verdict from the evidence, and its sentence. `escrowed` is read only where
  /// ``verdictDependsOnEscrow(_:)`` says.
  static func verdict(
    key: KeyFingerprint?, escrowed: KeyFingerprint?, evidence: [DocumentCheck.FoundEvidence],
    document: FilePath
  ) -> (CheckVerdict, DocumentCheck.Summary) {
    if evidence.isEmpty {
      if let escrowed, key != escrowed {
        let now = key.map { "carries key \($0)" } ?? "has no key"
        return (.keyLost, .text("the escrow recorded key \(escrowed) for this document, which now \(now)"))
      }
      return (.noBookmarks, .text("no bookmark was found in the document"))
    }
    // The keys the bookmarks name, as text: only the problem verdicts' messages need it.
    // Most documents' bookmarks all name one key: no set, no sort, for those.
    var named: String {
      let first = evidence[0].fingerprint
      guard evidence.contains(where: { $0.fingerprint != first }) else { return first.description }
      return Set(evidence.map(\.fingerprint)).map(\.description).sorted().joined(separator: ", ")
    }
    guard let key else {
      if escrowed == nil, let quoted = quotedDocument(evidence, in: document) {
        return (
          .quotesBookmarks,
          .text(
            "the file has no key and quotes \(evidence.count == 1 ? "a bookmark" : "\(evidence.count) bookmarks") made on another document (\(quoted)); no key belongs on it"
          )
        )
      }
      return (
        .keyLost,
        .text(
          "the document has no key, but \(evidence.count == 1 ? "a bookmark" : "\(evidence.count) bookmarks") in it \(evidence.count == 1 ? "names" : "name") key \(named)"
        )
      )
    }
    let verifying = evidence.count(where: \.verifies)
    if verifying == evidence.count {
      return (
        .ok,
        .verified(
          key: key, unresolved: evidence.count(where: { !$0.resolves }),
          notFoundNearby: evidence.count(where: { $0.problem == .notFoundNearby }))
      )
    }
    if verifying == 0 && evidence.allSatisfy({ $0.fingerprint != key }) {
      return (.keyMismatch, .text("the document carries key \(key), but its bookmarks name key \(named)"))
    }
    return (
      .mixed, .text("\(verifying) of \(evidence.count) bookmarks verify with the document's key \(key)")
    )
  }
}
