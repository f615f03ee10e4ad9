import DocbmSystem

/// Puts an escrowed key back on a document that lost it.
///
/// A key is a secret: whoever can read a file that carries it can forge bookmarks for every
/// document that carries it. So repair puts a key back only when all of these hold:
///
/// - the document has no key (repair never replaces one);
/// - its own bookmarks name exactly that key and verify with it, or it holds none and the
///   escrow recorded that key for it;
/// - the file is the key's document by the escrow's rule (docs/security.md, "Which file is a
///   key's document"): the file the escrow records for the key, or the proven successor of
///   the one it records at this path (an editor's save).
///   Bookmarks found in a file are evidence of which key it lost, never a licence to give it
///   one: a file with a pasted bookmark, a copy saved without its key, or a file swapped
///   into the path is refused, unless the caller passes ``Policy/allowsUnrecordedDocuments``
///   for a copy it knows to be the user's own;
/// - the document is owned by the user who repairs (never a stranger's file, whatever the
///   policy).
///
/// A document whose check was ``CheckVerdict/incomplete`` is refused: not all its bookmarks
/// could be verified. Refusals carry a ``Report/Refusal`` that says what the document is not.
public struct DocumentRepairer: Sendable {
  /// What repair did to one document.
  public struct Report: Hashable, Sendable, Codable {
    /// What happened, in one word. Names are frozen: they appear in JSON output. New actions
    /// may be added in later versions: a `switch` over them needs a `default`.
    public enum Action: String, Hashable, Sendable, Codable, CaseIterable {
      /// The escrowed key was put back.
      case restored
      /// Nothing needed repair.
      case nothingToDo
      /// Repair was possible in principle but not done; ``Report/message`` says why.
      case refused
    }

    /// Why a repair was refused. Names are frozen: they appear in JSON output. New refusals may be added in later
    /// versions: a `switch` over them needs a `default`.
    public enum Refusal: String, Hashable, Sendable, Codable {
      /// The document carries a key (another one, or bookmarks that do not match it).
      case carriesKey
      /// The document cannot be read.
      case unreadable
      /// The document is on a filesystem without user extended attributes: it can hold
      /// no key (a FAT stick, ramfs). ``Report/remedy`` says what works: where to copy it,
      /// and what then gives it its key.
      case unsupportedFilesystem
      /// The document holds more bookmarks than a check examines (``CheckVerdict/incomplete``),
      /// so not all of them could be verified.
      case incomplete
      /// Its bookmarks name several keys, and the escrow records none of them for it.
      case severalKeys
      /// The escrow has no key for it (made on another account, or before the escrow).
      case notEscrowed
      /// The escrow's entry for the key, or its folder, cannot be read or trusted.
      case escrowDamaged
      /// Bookmarks in it name the key but do not verify with it (forged or damaged).
      case forgedBookmarks
      /// The escrow never recorded this document (its path or identity) for the key: a
      /// file with a pasted bookmark, or a copy saved without its key.
      case notRecorded
      /// The file is at a path the escrow recorded for the key, but is another file, and is
      /// not shown to be the document's save (the escrow's rule, docs/security.md): made before docbm last saw the
      /// document, readable by more users, or in a folder others can change without a
      /// bookmark of the key in it. A file swapped into the path is refused so.
      case unprovenSuccessor
      /// The document belongs to another user.
      case notOwned
      /// Putting the key back failed (see the message).
      case writeFailed
    }

    public let document: FilePath
    public let action: Action
    /// The key put back (or that would have been).
    public let fingerprint: KeyFingerprint?
    public let message: String
    /// Why repair was refused, for ``Action/refused``.
    public let refusal: Refusal?
    /// The check before.
    public let before: DocumentCheck
    /// The check after, when a key was put back.
    public let after: DocumentCheck?
    /// What the user can do: for a document whose key was lost, the one remedy that fits
    /// (``Remedy/repair`` when repair puts the key back); `nil` when there is nothing to
    /// do, or nothing docbm can do (a key carried, an unreadable file, forged bookmarks).
    public var remedy: Remedy? = nil
    /// The recorded document ``remedy`` is about: the one that still carries the key
    /// (``Remedy/adopt``), or where the key's document was recorded and no longer is
    /// (``Remedy/copyBack``, ``Remedy/repairAllowingUnrecorded``).
    public var recordedDocument: FilePath? = nil
    /// ``remedy`` in a sentence, as ``message`` ends with it and check's hints say it.
    public var advice: String? = nil
  }

  /// What repair may do beyond its rules.
  public struct Policy: Hashable, Sendable {
    /// Also put the key on a document the escrow never recorded for it, when the document's
    /// own bookmarks name the key and verify with it, and the document is the user's (for a
    /// copy the user made without its key, such as `cp` or a stripped Save As).
    ///
    /// This gives the key to everyone who can read that file: they can then forge
    /// bookmarks for every document that carries the key. Off by default.
    public var allowsUnrecordedDocuments: Bool

    public init(allowsUnrecordedDocuments: Bool = false) {
      self.allowsUnrecordedDocuments = allowsUnrecordedDocuments
    }
  }

  public let escrow: KeyEscrow
  public let policy: Policy
  /// The checker whose verdicts repair acts on, holding the escrow's database open.
  package let checker: DocumentChecker
  /// The escrow database's version SQLite's check last found intact before this
  /// repairer wrote to it (shared by the repairers made from this one).
  private let checkedVersion: CheckedEscrowVersion

  /// Makes a repairer with the user's escrow unless given another; the escrow's database
  /// is opened now and serves every check and repair this repairer makes (keys and records
  /// another process escrows meanwhile are read from it; an escrow that had no database
  /// yet stays without one for this repairer: make a new one to see it).
  public init(escrow: KeyEscrow = .default, searchBudget: SearchBudget = .standard, policy: Policy = Policy())
  {
    self.escrow = escrow
    self.policy = policy
    self.checker = DocumentChecker(escrow: escrow, searchBudget: searchBudget)
    checkedVersion = CheckedEscrowVersion()
  }

  private init(
    escrow: KeyEscrow, policy: Policy, checker: DocumentChecker, checkedVersion: CheckedEscrowVersion
  ) {
    (self.escrow, self.policy, self.checker, self.checkedVersion) = (escrow, policy, checker, checkedVersion)
  }

  /// This repairer with the escrow's records of the documents inside `folders` read at
  /// once (``DocumentChecker/loadingEscrow(inside:preparingProspects:)``), for the checks
  /// and prospects of trees: its prospects come from the reading its checks' verdicts come
  /// from, and from the same reading of each document.
  package func loadingEscrow(inside folders: [FilePath], sharingReads: Bool = false) -> DocumentRepairer {
    DocumentRepairer(
      escrow: escrow, policy: policy,
      checker: checker.loadingEscrow(inside: folders, preparingProspects: true, sharingReads: sharingReads),
      checkedVersion: checkedVersion)
  }

  /// Checks the document and, when its key was lost and the rules above allow it, puts the
  /// escrowed key back (and records the document in the escrow as it is now).
  public func repair(_ path: FilePath) -> Report {
    repair(path, evidence: [])
  }

  /// What ``repair(_:)`` would do to the document checked as `check`, decided by the same
  /// code, without writing anything: ``Report/Action/restored`` means that it would put the
  /// key back (``Report/after`` is then `nil`). A check's hint says this, so that the hint
  /// and the repair cannot disagree.
  package func prospect(_ check: DocumentCheck) -> Report {
    repair(check.document, evidence: [], before: check, writes: false)
  }

  /// The key a document that lost its key had: the one its bookmarks name; or, when they
  /// name none, the one the escrow records for it (`escrowed`); or, when they name several,
  /// the one of them the escrow records for it (an adoption that left bookmarks whose
  /// targets were not there to take, signed with the original's key). `nil` when that does
  /// not tell one key.
  static func documentKey(named: Set<KeyFingerprint>, escrowed: KeyFingerprint?) -> KeyFingerprint? {
    if named.count == 1 { return named.first }
    if named.isEmpty { return escrowed }
    return escrowed.flatMap { named.contains($0) ? $0 : nil }
  }

  /// ``repair(_:)`` with what a caller saw as evidence for the rule (a watcher that saw the
  /// document replaced at its path). `before`: the document's check, when the caller has
  /// made it; `writes`: false for ``prospect(_:)``. `formerKey`: the key the caller saw
  /// this very file's document carry before it lost it (a watcher that followed it); any
  /// other key is refused, since the file is that document, wherever it went: a file
  /// renamed to another document's recorded path is not that document's save.
  package func repair(
    _ path: FilePath, evidence: EscrowRule.Evidence, before check: DocumentCheck? = nil, writes: Bool = true,
    formerKey: KeyFingerprint? = nil
  ) -> Report {
    let before = check ?? checker.check(path)
    func report(
      _ action: Report.Action, _ fingerprint: KeyFingerprint?, _ message: String,
      refusal: Report.Refusal? = nil, after: DocumentCheck? = nil, remedy: RepairRemedy? = nil
    ) -> Report {
      Report(
        document: path, action: action, fingerprint: fingerprint,
        message: remedy.map { action == .refused ? "\(message); \($0.sentence)" : message } ?? message,
        refusal: refusal,
        before: before, after: after, remedy: remedy?.remedy, recordedDocument: remedy?.recordedDocument,
        advice: remedy?.sentence)
    }
    let named = Set(before.bookmarks.map(\.fingerprint))
    switch before.verdict {
    case .ok, .noBookmarks, .quotesBookmarks:
      return report(.nothingToDo, before.keyFingerprint, "nothing to repair: \(before.message)")
    case .keyMismatch, .mixed:
      return report(
        .refused, nil,
        "refused: \(before.message); repair never replaces a key a document carries (bookmarks from another document stay invalid)",
        refusal: .carriesKey)
    case .unsupportedFilesystem:
      // What works is decided as for the copy it would be on another filesystem.
      guard let wanted = Self.documentKey(named: named, escrowed: before.escrowedFingerprint),
        case .success(let entry) = checker.escrowEntry(wanted)
      else {
        return report(
          .refused, nil,
          "refused: \(before.message); copy it to a filesystem with user extended attributes and check it there",
          refusal: .unsupportedFilesystem)
      }
      return report(
        .refused, wanted, "refused: \(before.message)", refusal: .unsupportedFilesystem,
        remedy: RepairRemedy.decide(
          for: path, wanted: wanted, entry: entry, holdsNoKey: true, recordedHere: before.escrowedFingerprint)
      )
    case .unreadable:
      return report(.refused, nil, "refused: \(before.message)", refusal: .unreadable)
    case .incomplete:
      return report(.refused, nil, "refused: \(before.message)", refusal: .incomplete)
    case .keyLost:
      break
    }
    guard before.keyFingerprint == nil else {
      return report(
        .refused, nil,
        "refused: \(before.message); the document carries another key now, and repair never replaces one",
        refusal: .carriesKey)
    }
    let wanted: KeyFingerprint
    if let documentKey = Self.documentKey(named: named, escrowed: before.escrowedFingerprint) {
      wanted = documentKey
    } else {
      let list = named.map(\.description).sorted().joined(separator: ", ")
      return report(
        .refused, nil, "refused: the bookmarks in the document name several keys (\(list))",
        refusal: .severalKeys)
    }
    if let formerKey, formerKey != wanted {
      return report(
        .refused, wanted,
        "refused: this file is the document that carried key \(formerKey), followed here; key \(wanted), recorded for \(path), is another document's",
        refusal: .notRecorded)
    }
    let entry: EscrowEntry
    switch checker.escrowEntry(wanted) {
    case .success(let found?): entry = found
    case .success(nil):
      return report(
        .refused, wanted,
        "refused: the escrow has no key \(wanted) (it was made on another machine or account, or before the escrow was used)",
        refusal: .notEscrowed,
        remedy: RepairRemedy.decide(
          for: path, wanted: wanted, entry: nil, holdsNoKey: false, recordedHere: before.escrowedFingerprint))
    case .failure(let problem):
      return report(
        .refused, wanted, "refused: the escrow's entry for key \(wanted) cannot be used: \(problem)",
        refusal: .escrowDamaged)
    }
    // Fingerprints are public: a forged header could name any key. Every bookmark that
    // names the key must verify with it before the key goes on the document.
    // Each record is verified as it is found (none is kept), within the scanner's limits:
    // a scan that stopped early has not seen every bookmark, so it is no licence.
    // A prospect of a check that counted the bookmarks against the escrowed keys in its own
    // reading (a tree check) is decided from those counts, as the verdict was; a repair
    // counts again, in the document it writes.
    if !named.isEmpty {
      var forged = 0
      var verified = 0
      let complete: Bool
      if !writes, let tally = before.escrowedKeyTally, let count = tally.counts[wanted] {
        (verified, forged) = (count.verified, count.forged)
        complete = tally.isComplete
      } else {
        do {
          complete = try BookmarkScanner().scan(fileAt: path) { found in
            guard found.bookmark.keyFingerprint == wanted else { return }
            if BookmarkRecord.verify(found.bookmark.bytes, key: entry.key) {
              verified += 1
            } else {
              forged += 1
            }
          }.isComplete
        } catch {
          return report(.refused, wanted, "refused: \(error.message)", refusal: .unreadable)
        }
      }
      guard complete else {
        return report(
          .refused, wanted,
          "refused: the document holds more bookmarks than a check examines, so not all could be verified",
          refusal: .incomplete)
      }
      guard forged == 0, verified > 0 else {
        return report(
          .refused, wanted,
          "refused: \(forged == 1 ? "a bookmark" : "\(forged) bookmarks") in the document \(forged == 1 ? "names" : "name") key \(wanted) but \(forged == 1 ? "does" : "do") not verify with it (forged or damaged)",
          refusal: .forgedBookmarks)
      }
    }
    var evidence = evidence
    if !named.isEmpty { evidence.insert(.bookmarksNameKey) }  // every one verified above
    let outcome: Outcome
    if !writes, let sighting = before.sighting {
      // The file the check read, as it found it.
      outcome =
        DocumentRepairer.refusal(
          entry, for: sighting.record, status: sighting.status, policy: policy, evidence: evidence)
        ?? .restored(sighting.record)
    } else {
      outcome = DocumentRepairer.restore(entry, on: path, policy: policy, evidence: evidence, writes: writes)
    }
    switch outcome {
    case .refused(let refusal, let message) where refusal == .notRecorded || refusal == .unprovenSuccessor:
      return report(
        .refused, wanted, "refused: \(message)", refusal: refusal,
        remedy: RepairRemedy.decide(
          for: path, wanted: wanted, entry: entry, holdsNoKey: false, recordedHere: before.escrowedFingerprint
        ))
    case .refused(let refusal, let message):
      return report(.refused, wanted, "refused: \(message)", refusal: refusal)
    case .restored where !writes:
      return report(
        .restored, wanted, "would put key \(wanted) back from \(entry.file)",
        remedy: RepairRemedy(remedy: .repair, recordedDocument: nil, sentence: "'docbm repair' puts it back"))
    case .restored(let record):
      // The document is recorded as it is now (a save that dropped the key gave it a new
      // inode), so that the next repair knows it by identity too; never into a database
      // SQLite's check finds damaged, which docbm does not change.
      var unrecorded = ""
      do {
        try escrow.deposit(entry.key, record: record, checked: checkedVersion)
      } catch  where error.code == .escrowDamaged {
        unrecorded = "; the document was not recorded in the escrow: \(error.message)"
      } catch {}
      let after = checker.check(path)
      return report(
        .restored, wanted,
        "put key \(wanted) back from \(entry.file); now: \(after.verdict.rawValue)\(unrecorded)", after: after
      )
    }
  }

  private enum Outcome {
    case restored(EscrowEntry.Document)
    case refused(Report.Refusal, String)
  }

  /// Opens the document once and decides on that very file (no swapping it between the
  /// checks and the write): the key's document by ``EscrowRule`` (or allowed by `policy`),
  /// then, when `writes`, the key goes on with `XATTR_CREATE`.
  private static func restore(
    _ entry: EscrowEntry, on path: FilePath, policy: Policy, evidence: EscrowRule.Evidence, writes: Bool
  ) -> Outcome {
    let opened: (FileDescriptor, FileStatus)
    do {
      opened = try mappingSystemErrors(.writeKey, path: path) { () throws(SystemCallError) in
        let fd = try FileDescriptor.open(path, [.readOnly, .nonBlocking])
        do throws(SystemCallError) {
          return (fd, try FileStatus.of(fd))
        } catch {
          fd.close()
          throw error
        }
      }
    } catch {
      return .refused(.writeFailed, "could not open \(path): \(error)")
    }
    let (fd, status) = opened
    defer { fd.close() }
    guard status.kind == .regular || status.kind == .directory else {
      return .refused(.unreadable, "\(path) is neither a regular file nor a folder")
    }
    let now = EscrowEntry.Document.of(fd, status: status, path: path, origin: .repaired)
    if let refusal = refusal(entry, for: now, status: status, policy: policy, evidence: evidence) {
      return refusal
    }
    guard writes else { return .restored(now) }
    do {
      try KeyAttribute.restore(entry.key, on: fd, path: path)
    } catch {
      return .refused(.writeFailed, "could not put key \(entry.fingerprint) back: \(error)")
    }
    return .restored(now)
  }

  /// Why the key of `entry` must not go on the file recorded as `now` (its status
  /// `status`), or `nil` when it may: it is the key's document by ``EscrowRule`` (or
  /// `policy` allows it), and its real path still leads to it.
  private static func refusal(
    _ entry: EscrowEntry, for now: EscrowEntry.Document, status: FileStatus, policy: Policy,
    evidence: EscrowRule.Evidence
  ) -> Outcome? {
    // The real path must still lead to the file opened (a link swapped meanwhile fails, and
    // so does a path that cannot be looked at).
    let pathLeadsHere =
      (try? FileStatus.of(now.path, followSymlinks: false)).map {
        $0.inode == status.inode && $0.device == status.device
      } ?? false
    let decision = EscrowRule.decide(
      now, owner: status.owner, pathLeadsHere: pathLeadsHere, fingerprint: entry.fingerprint,
      records: entry.documents, evidence: evidence)
    switch decision {
    case .document, .successor:
      return nil
    case .refused(.notOwned, let message):
      return .refused(.notOwned, message)
    case .refused(let refusal, let message):
      guard policy.allowsUnrecordedDocuments else {
        return .refused(refusal == .notRecorded ? .notRecorded : .unprovenSuccessor, message)
      }
      return nil
    }
  }
}
