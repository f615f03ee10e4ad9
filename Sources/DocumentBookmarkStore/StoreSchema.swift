/// The store file's SQLite schema (docs/format.md, "Store files").
///
/// A database is a docbm store when its `application_id` is ``applicationID``; its
/// `user_version` is the store's schema version (3: the first kept as a database; versions 1
/// and 2 were JSON files, which are migrated when first opened).
///
/// - `records`: one row per record, in `position` order: the app's key as canonical JSON
///   (sorted members), the inode and path that find a target again, the version that last
///   changed it, and the record itself as JSON (members this version does not know are kept
///   in it), and whether that JSON may hold such members (`others`: 0 when it holds only
///   the members this version writes, which a reader then does not search for others). A
///   row this version cannot decode is left as it is.
/// - `removed`: the keys removed at recent versions, so that a process that saw an older
///   version reads only what changed since.
/// - `meta`: the store's name (random, made with it), its version (one more at every
///   change), the oldest version a reader may catch up from (`horizon`), the version the
///   last good copy holds, and members of a migrated JSON file this version does not know
///   (`member:` and the name).
enum StoreSchema {
  static let applicationID: Int64 = 0x6463_7374
  static let version: Int64 = 3

  /// How many versions back the removals are kept: a process that last saw an older
  /// version reads the store whole.
  static let removalsKept: Int64 = 1024

  static let creation = """
    PRAGMA application_id = \(applicationID);
    PRAGMA user_version = \(version);
    CREATE TABLE records (
      key TEXT PRIMARY KEY NOT NULL,
      position INTEGER NOT NULL,
      inode INTEGER,
      path BLOB NOT NULL,
      changed INTEGER NOT NULL,
      record TEXT NOT NULL,
      others INTEGER NOT NULL DEFAULT 1
    ) STRICT;
    CREATE INDEX records_by_position ON records(position);
    CREATE INDEX records_by_inode ON records(inode) WHERE inode IS NOT NULL;
    CREATE INDEX records_by_path ON records(path);
    CREATE INDEX records_by_change ON records(changed);
    CREATE TABLE removed (
      key TEXT PRIMARY KEY NOT NULL,
      changed INTEGER NOT NULL
    ) STRICT;
    CREATE INDEX removed_by_change ON removed(changed);
    CREATE TABLE meta (
      name TEXT PRIMARY KEY NOT NULL,
      value ANY
    ) STRICT;
    """
}
