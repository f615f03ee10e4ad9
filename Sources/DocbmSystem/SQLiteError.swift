import CSQLite

/// A failure reported by SQLite: its extended result code and message.
///
/// Only the System layer creates these; the escrow turns them into ``DocbmError`` values.
package struct SQLiteError: Error, Hashable, Sendable, CustomStringConvertible {
  /// SQLite's extended result code (`SQLITE_BUSY`, `SQLITE_IOERR_FSYNC`, …).
  package let code: Int32
  /// SQLite's message for it (`sqlite3_errmsg` when there was a connection).
  package let message: String

  package init(code: Int32, message: String) {
    self.code = code
    self.message = message
  }

  /// The primary result code (the low byte of the extended one).
  package var primaryCode: Int32 { code & 0xff }

  /// The database is locked by another connection for longer than the busy timeout.
  package var isBusy: Bool { primaryCode == SQLITE_BUSY || primaryCode == SQLITE_LOCKED }
  /// The disk (or the quota) is full.
  package var isFull: Bool { primaryCode == SQLITE_FULL }
  /// The file is not a database, or is a damaged one.
  package var isDamaged: Bool { primaryCode == SQLITE_CORRUPT || primaryCode == SQLITE_NOTADB }
  /// Reading or writing the file failed (EIO and the like).
  package var isInputOutput: Bool { primaryCode == SQLITE_IOERR }
  /// The file, its folder or the filesystem cannot be written.
  package var isReadOnly: Bool { primaryCode == SQLITE_READONLY || primaryCode == SQLITE_PERM }
  /// A constraint failed (a row that would break the schema's rules, or the caller's).
  package var isConstraint: Bool { primaryCode == SQLITE_CONSTRAINT }
  /// The file cannot be opened (missing, a link refused, permission denied).
  package var cannotOpen: Bool { primaryCode == SQLITE_CANTOPEN }

  package var description: String {
    let name = String(cString: sqlite3_errstr(code))
    return message.isEmpty || message == name ? name : "\(name): \(message)"
  }
}
