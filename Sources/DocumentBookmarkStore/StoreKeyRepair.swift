public import DocumentBookmarks

/// What a store did when it found its file without its key, as ``BookmarkStore/keyRepairs()``
/// reports it: another program saved the store file without the key (an app's `.atomic`
/// write, a copy, a backup restored), and the store put the escrowed key back before it went
/// on, so that its records' bookmarks verify again.
public struct StoreKeyRepair: Hashable, Sendable, CustomStringConvertible {
  /// The repair: the key put back (its `fingerprint`), and the store
  /// file's check before and after.
  public let report: DocumentRepairer.Report
  /// The file's permission bits before the store narrowed them to its owner, when the save
  /// that dropped the key also let others read the file (a key goes only on a file nobody
  /// else can read); `nil` when they were left as they were.
  public let widenedMode: UInt32?

  /// The repair in a sentence, for a log.
  public var description: String {
    var sentence = "the store file \(report.document) had lost its key (saved without it by another program)"
    if let widenedMode {
      sentence +=
        "; its mode \(String(widenedMode, radix: 8)) was narrowed to \(String(widenedMode & 0o700, radix: 8))"
    }
    return sentence + "; \(report.message)"
  }
}
