/// What a tree check keeps of an escrow record: the key recorded at a path, when the record
/// was last confirmed, and the file's inode number, which tells whether a document found at
/// a path the escrow does not know may be this one (its whole record is then read).
struct EscrowPathRecord: Sendable {
  /// The key recorded for the document.
  let fingerprint: KeyFingerprint
  /// The document's absolute path.
  let path: FilePath
  /// The document's inode number.
  let inode: UInt64
  /// When the record was last confirmed.
  let confirmed: Timestamp
  /// The order the record was made in, among those it is compared with: of two records of
  /// one path confirmed at the same time, the later made wins.
  let order: Int64

  /// Whether this record, rather than `other` of the same path, names the path's key.
  func supersedes(_ other: EscrowPathRecord) -> Bool {
    (confirmed, order) > (other.confirmed, other.order)
  }
}
