/// The escrow database's schema (docs/format.md §6), and its version.
///
/// A database is docbm's escrow when its `application_id` is ``applicationID``; its
/// `user_version` is the schema's version. Keys and document records are rows of their own,
/// so a record changes with one `UPDATE` and a lookup by path or inode uses an index.
enum EscrowSchema {
  /// `PRAGMA application_id`: the ASCII bytes `dcbm`.
  static let applicationID: Int64 = 0x6463_626d
  /// `PRAGMA user_version` of the schema below.
  static let version: Int64 = 1

  /// Makes the schema in an empty database (run in a write transaction).
  static let creation = """
    PRAGMA application_id = \(applicationID);
    PRAGMA user_version = \(version);
    CREATE TABLE keys (
      fingerprint TEXT PRIMARY KEY NOT NULL,
      key BLOB NOT NULL CHECK (length(key) = 32),
      created INTEGER NOT NULL
    ) STRICT;
    CREATE TABLE documents (
      id INTEGER PRIMARY KEY,
      fingerprint TEXT NOT NULL REFERENCES keys (fingerprint) ON DELETE CASCADE,
      path BLOB NOT NULL,
      filesystem INTEGER,
      inode INTEGER NOT NULL,
      handle_type INTEGER,
      handle BLOB,
      birth INTEGER,
      mode INTEGER,
      origin TEXT NOT NULL,
      recorded INTEGER NOT NULL,
      confirmed INTEGER NOT NULL
    ) STRICT;
    CREATE INDEX documents_by_path ON documents (path);
    CREATE INDEX documents_by_inode ON documents (inode);
    CREATE INDEX documents_by_key ON documents (fingerprint);
    CREATE TABLE imports (
      id INTEGER PRIMARY KEY,
      source TEXT NOT NULL,
      folder BLOB NOT NULL,
      keys INTEGER NOT NULL,
      documents INTEGER NOT NULL,
      imported INTEGER NOT NULL
    ) STRICT;
    """

  /// The columns of a document record, in the order ``EscrowDatabase`` reads them. A
  /// literal: a list joined at run time would make the runtime look types and conformances
  /// up at its first use, in every short-lived process that reads the escrow.
  static let documentColumns =
    "fingerprint, path, filesystem, inode, handle_type, handle, birth, mode, origin, recorded, confirmed"

  /// ``documentColumns``, each named with `table` in front (for a join).
  static func documentColumns(of table: String) -> String {
    documentColumns.split(separator: ", ").map { "\(table).\($0)" }.joined(separator: ", ")
  }
}

extension Timestamp {
  /// The time as nanoseconds since 1970 (UTC), as the escrow database stores it; clamped to
  /// what 64 bits hold (years 1678 to 2262).
  var nanosecondsSince1970: Int64 {
    let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
    if overflow { return seconds < 0 ? .min : .max }
    let (sum, overflowed) = scaled.addingReportingOverflow(Int64(nanoseconds))
    return overflowed ? .max : sum
  }

  /// The time `nanoseconds` after 1970 (UTC).
  init(nanosecondsSince1970 value: Int64) {
    let (quotient, remainder) = value.quotientAndRemainder(dividingBy: 1_000_000_000)
    if remainder < 0 {
      self.init(seconds: quotient - 1, nanoseconds: UInt32(remainder + 1_000_000_000))
    } else {
      self.init(seconds: quotient, nanoseconds: UInt32(remainder))
    }
  }
}
