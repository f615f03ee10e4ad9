import DocbmSystem

/// The one rule for whether a file is a key's document: what repair, `watch --repair` and
/// ``AnchoredDocument/makeBookmark(to:)-(FilePath)`` ask before a key goes on a file
/// (docs/security.md, "Which file is a key's document", has it as a table with its tests).
///
/// A file is a key's document when the escrow records the file itself for the key (the same
/// filesystem and file handle, or inode where there are no handles): docbm made a bookmark
/// on it, saved it, repaired it, or followed it there. A file at a recorded path that is
/// another file is the document's **successor** (an editor's save: Vim, Emacs, GLib,
/// `sed -i` write a new file and rename it over the old) only with evidence:
///
/// - it was made (its birth time) after docbm last confirmed the recorded document, so it
///   is not an older file moved into the path;
/// - it is the user's, and readable by no more users than the recorded document was;
/// - and its folder, with every folder above it, is one nobody else can change
///   (``FolderChainTrust``), or the file holds bookmarks that name the key and verify with
///   it, or a watcher saw the document replaced at that path.
///
/// A record taken from another escrow's export (origin `transferred`)
/// counts only for a file whose bookmarks name the key and verify with it: an export may
/// come from anyone, and its records alone never put a key on a file.
///
/// Anything else is refused, with the reason. A file that carries a key is never judged
/// here: repair never replaces a key.
package struct EscrowRule {
  /// What speaks for a file at a recorded path beyond its own metadata.
  package struct Evidence: OptionSet, Sendable {
    package let rawValue: Int
    package init(rawValue: Int) { self.rawValue = rawValue }

    /// The file holds bookmarks that name the key and verify with it.
    package static let bookmarksNameKey = Evidence(rawValue: 1)
    /// A watcher saw the recorded document leave the path and this file take its place.
    package static let observedReplacement = Evidence(rawValue: 2)
  }

  /// The rule's answer.
  enum Decision: Equatable {
    /// The file is the one recorded.
    case document(EscrowEntry.Document)
    /// The file succeeds the document recorded at its path.
    case successor(EscrowEntry.Document)
    /// Neither; why, in a sentence that names the file.
    case refused(Refusal, String)

    /// The record the file is (or succeeds), when it is the document.
    var record: EscrowEntry.Document? {
      switch self {
      case .document(let record), .successor(let record): record
      case .refused: nil
      }
    }
  }

  /// Why a file is not the key's document.
  enum Refusal: Equatable {
    /// The escrow records the key neither at this path nor for this file.
    case notRecorded
    /// A file at a recorded path that the evidence does not show to be the document's save.
    case unprovenSuccessor
    /// Another user's file.
    case notOwned
  }

  /// Decides whether `file` (as it is now, owned by `owner`) is a document of the key
  /// `fingerprint`, among the key's `records`. `pathLeadsHere`: the file's real path leads
  /// to this very file (a path swapped meanwhile does not count for it).
  static func decide(
    _ file: EscrowEntry.Document, owner: UInt32, pathLeadsHere: Bool, fingerprint: KeyFingerprint,
    records: [EscrowEntry.Document], evidence: Evidence
  ) -> Decision {
    let user = ProcessCredentials.effectiveUser
    guard owner == user else {
      return .refused(
        .notOwned,
        "\(file.path) belongs to user \(owner), not to you (\(user)); a key never goes on another user's file, since whoever can read it could then forge bookmarks for your documents"
      )
    }
    let all = records
    let records =
      evidence.contains(.bookmarksNameKey) ? all : all.filter { $0.origin != .transferred }
    if let same = records.last(where: { $0.hasSameIdentity(as: file) }) { return .document(same) }
    guard pathLeadsHere, let recorded = records.last(where: { $0.path == file.path }) else {
      if all.contains(where: { $0.hasSameIdentity(as: file) || (pathLeadsHere && $0.path == file.path) }) {
        return .refused(
          .notRecorded,
          "the escrow's only record of \(file.path) for key \(fingerprint) came from another escrow's export (docbm escrow import), and the file holds no bookmark that names the key and verifies with it: an export's records alone never put a key on a file"
        )
      }
      return .refused(
        .notRecorded,
        "the escrow never recorded \(file.path) for key \(fingerprint), neither at this path nor as this file: it may be a file holding a pasted bookmark, or a copy made without the key"
      )
    }
    let why =
      "\(file.path) is not the file docbm recorded there for key \(fingerprint), and not shown to be its save"
    guard let born = file.birthTime else {
      return .refused(
        .unprovenSuccessor,
        "\(why): its filesystem does not say when it was made, so it cannot be told from an older file moved into the path"
      )
    }
    guard Self.madeAfter(born, confirmed: recorded.confirmed) else {
      return .refused(
        .unprovenSuccessor,
        "\(why): it was made \(born), before docbm last saw the document there (\(recorded.confirmed)), so it is an older file moved into the path"
      )
    }
    if let before = recorded.permissions, let now = file.permissions, now & 0o044 & ~before != 0 {
      return .refused(
        .unprovenSuccessor,
        "\(why): it is readable by more users (mode \(String(now & 0o777, radix: 8))) than the document was (\(String(before & 0o777, radix: 8)))"
      )
    }
    if evidence.isEmpty,
      let (folder, problem) = FolderChainTrust.problem(from: file.path.removingLastComponent)
    {
      return .refused(
        .unprovenSuccessor,
        "\(why): the folder \(folder) \(problem), so another user could have put it there, and it holds no bookmark of the key"
      )
    }
    return .successor(recorded)
  }

  /// Whether the path `record` names now holds another file, made after docbm last saw the
  /// recorded one there: the document's successor (an editor saved it). The recorded file,
  /// found at another path, is then the editor's backup, a copy: the record stays.
  static func successorHoldsPath(of record: EscrowEntry.Document) -> Bool {
    // A path that cannot be looked at shows no successor: the record follows its file.
    guard let status = try? FileStatus.of(record.path, followSymlinks: false), status.kind == .regular,
      status.inode != record.inode, let born = status.birthTime
    else { return false }
    return madeAfter(born, confirmed: record.confirmed)
  }

  /// Whether a file born at `born` was made after docbm confirmed a document at `confirmed`,
  /// as far as the file clock can tell. Confirmations are taken from the clock files are
  /// stamped with (``Timestamp/fileClockNow``), which advances once a tick: a file made in
  /// the tick of the confirmation is stamped with the same time whether it came just before
  /// or just after, and is taken to come after, so that a save made right after docbm's own
  /// is never taken for an older file. (An older file must then have been made in that
  /// same tick, by the user, to pass: docs/security.md.)
  static func madeAfter(_ born: Timestamp, confirmed: Timestamp) -> Bool {
    born >= confirmed
  }
}
