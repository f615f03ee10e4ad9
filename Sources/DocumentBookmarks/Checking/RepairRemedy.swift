extension DocumentRepairer.Report {
  /// What the user can do about a document whose key was lost: one remedy, chosen from
  /// what the escrow records for the key the document's bookmarks name and whether those
  /// recorded documents still carry it. ``DocumentRepairer/Report/message`` says it in a
  /// sentence; ``DocumentRepairer/Report/recordedDocument`` names the document it is about.
  ///
  /// Names are frozen: they appear in JSON output. More may be added in later versions: a
  /// `switch` over them needs a `default`.
  public enum Remedy: String, Hashable, Sendable, Codable, CaseIterable {
    /// ``DocumentRepairer/repair(_:)`` puts the key back.
    case repair
    /// The key is in no escrow of this user: if the document came from another machine or
    /// account, import that escrow's export (``KeyEscrow/importKeys(from:)``,
    /// `docbm escrow import`) and check it again; if it is a copy to keep apart, adopt it.
    case importEscrow
    /// It is a copy of ``DocumentRepairer/Report/recordedDocument``, which still carries
    /// the key: adopting it (``AnchoredDocument/adopt(_:)``, `docbm adopt`) gives it a key of its
    /// own, and the original keeps its key.
    case adopt
    /// ``DocumentRepairer/Report/recordedDocument``, the document the escrow records for
    /// the key, no longer carries it: if this file is that document, moved or saved without
    /// its key, repair with ``DocumentRepairer/Policy/allowsUnrecordedDocuments``
    /// (`docbm repair --allow-unrecorded`) puts it back.
    case repairAllowingUnrecorded
    /// The document is on a filesystem without user extended attributes, and
    /// ``DocumentRepairer/Report/recordedDocument``, where the escrow records it, no
    /// longer carries the key: copied back there, repair puts the key back.
    case copyBack
    /// As ``adopt``, but the escrow records another key for this file's path (a document
    /// adopted or made here before, which this file took the place of): adoption is
    /// refused while that record stands, since a new key here would end the recorded
    /// key's bookmarks. If this file takes that document's place, forgetting the record
    /// (``KeyEscrow/forgetRecords(at:)``, `docbm escrow forget`) and then adopting it works.
    case forgetThenAdopt
  }
}

/// Decides the ``DocumentRepairer/Report/Remedy`` for a document that lost key `wanted`,
/// and says it: the one place where check's hints and repair's refusals get their advice.
struct RepairRemedy {
  let remedy: DocumentRepairer.Report.Remedy
  /// The recorded document the remedy names.
  let recordedDocument: FilePath?
  let sentence: String

  /// The remedy for the document at `path` whose bookmarks name key `wanted`; `entry` is
  /// the escrow's entry for it (`nil`: the escrow has none). `holdsNoKey`: the document
  /// is on a filesystem without user extended attributes. `recordedHere`: the key the
  /// escrow records for this file or its path, if any; when it is another key, adoption
  /// is refused until that record is forgotten (``AnchoredDocument/adopt(_:)``), and the
  /// advice says so.
  ///
  /// A recorded document that still carries the key makes this file a copy: adopting it
  /// works when its bookmarks' targets are beside it (``AnchoredDocument/adoptionCandidates()``
  /// finds one); otherwise its bookmarks lead to the original's targets, and only the same
  /// key makes them work. Without such a document, the file may be the document itself,
  /// moved or saved without its key. Reads the key attribute of each recorded document and
  /// lists the document's candidates; it is called only for a document that lost its key.
  static func decide(
    for path: FilePath, wanted: KeyFingerprint, entry: EscrowEntry?, holdsNoKey: Bool,
    recordedHere: KeyFingerprint? = nil
  ) -> RepairRemedy {
    let copyFirst = "copy it to a filesystem with user extended attributes"
    // Whether the document has bookmarks to adopt: asked by the remedies that offer
    // adoption, and by no other.
    // The document carries no key here (it lost it, or its filesystem holds none).
    var adoptable: Bool { AnchoredDocument.hasAdoptionTargets(keyless: path) }
    // Another key recorded at this path holds adoption back here (not on a copy made
    // elsewhere, on a filesystem with user extended attributes).
    let heldBack = holdsNoKey ? nil : recordedHere.flatMap { $0 == wanted ? nil : $0 }
    let adopting =
      heldBack.map {
        "the escrow records key \($0) for this path (a document kept here before): if this file takes its place, 'docbm escrow forget \(path)' and then 'docbm adopt' give it a key of its own"
      } ?? "'docbm adopt' gives this copy a key of its own"
    guard let entry else {
      var importing =
        "if it came from another machine or account, import that escrow ('docbm escrow export' there, 'docbm escrow import FILE' here) and check it again"
      if adoptable {
        importing +=
          heldBack == nil
          ? "; if it is a copy to keep apart, 'docbm adopt' gives it a key of its own"
          : "; if it is a copy to keep apart, \(adopting)"
      }
      return RepairRemedy(
        remedy: .importEscrow, recordedDocument: nil,
        sentence: holdsNoKey
          ? "key \(wanted) is in no escrow here: \(copyFirst); there, \(importing)"
          : "key \(wanted) is in no escrow here: \(importing)")
    }
    let here = path.absolute.lexicallyNormalized
    let documents = entry.documents.filter { $0.path != here }
    if let holder = documents.first(where: { carries($0.path, wanted) }) {
      guard adoptable else {
        return RepairRemedy(
          remedy: .repairAllowingUnrecorded, recordedDocument: holder.path,
          sentence:
            "it is a copy of \(holder.path), which still carries key \(wanted), and its bookmarks lead to that document's files, none of them beside it for 'docbm adopt' to take: if it is your copy, \(holdsNoKey ? "\(copyFirst) and " : "")'docbm repair --allow-unrecorded' gives it the same key"
        )
      }
      return RepairRemedy(
        remedy: heldBack == nil ? .adopt : .forgetThenAdopt, recordedDocument: holder.path,
        sentence: holdsNoKey
          ? "it is a copy of \(holder.path), which still carries key \(wanted): copy it, with the files beside it, to a filesystem with user extended attributes and 'docbm adopt' it there, which gives the copy a key of its own"
          : "it is a copy of \(holder.path), which still carries key \(wanted); \(adopting)"
      )
    }
    let recorded = entry.documents.max { $0.confirmed < $1.confirmed }?.path
    if holdsNoKey, let recorded, recorded != here {
      return RepairRemedy(
        remedy: .copyBack, recordedDocument: recorded,
        sentence:
          "copy it back to \(recorded), where the escrow records it and no file carries key \(wanted) now; 'docbm repair' then puts the key back"
      )
    }
    let which =
      recorded.map {
        $0 == here
          ? "the document recorded here for key \(wanted) was replaced without its key"
          : "\($0), the document recorded for key \(wanted), no longer carries it"
      } ?? "no document carries key \(wanted) now"
    return RepairRemedy(
      remedy: .repairAllowingUnrecorded, recordedDocument: recorded,
      sentence: holdsNoKey
        ? "\(which): \(copyFirst); there, if it is that document, 'docbm repair --allow-unrecorded' puts the key back"
        : "\(which): if this file is that document, moved or saved without its key, 'docbm repair --allow-unrecorded' puts the key back"
    )
  }

  /// Whether the file at `path` carries key `fingerprint` now.
  private static func carries(_ path: FilePath, _ fingerprint: KeyFingerprint) -> Bool {
    // A file this user cannot read, or that is gone, carries no key they can use.
    guard case .key(let key)? = try? KeyAttribute.read(atPath: path) else { return false }
    return key.fingerprint == fingerprint
  }
}
