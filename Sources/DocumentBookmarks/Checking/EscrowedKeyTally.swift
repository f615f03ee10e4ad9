/// How the bookmarks of a document without a key fared against the escrow's keys they
/// name, counted as a check found them: for each key the escrow holds, how many bookmarks
/// naming it verify with it and how many do not.
///
/// A tree check that read the whole escrow counts them in its one reading of the document,
/// so that the hint it gives (what repair would do, ``DocumentRepairer/prospect(_:)``) comes
/// from the bytes its verdict came from. A repair counts again, in the document as it is
/// when it writes.
struct EscrowedKeyTally: Hashable, Sendable {
  /// The bookmarks naming one key: how many verify with it, how many do not.
  struct Count: Hashable, Sendable {
    var verified = 0
    var forged = 0
  }

  /// The counts, by the key the bookmarks name; a key the escrow does not hold is absent.
  private(set) var counts: [KeyFingerprint: Count] = [:]
  /// Whether every bookmark in the document was counted: not when the scan stopped at one
  /// of its limits or the check's evidence passed its budget.
  var isComplete = true

  /// Counts one bookmark naming `fingerprint`, which `verifies` with the escrow's key or not.
  mutating func count(_ fingerprint: KeyFingerprint, verifies: Bool) {
    if verifies {
      counts[fingerprint, default: Count()].verified += 1
    } else {
      counts[fingerprint, default: Count()].forged += 1
    }
  }
}
