#!/usr/bin/env python3
"""Makes a hostile escrow export from a real one: the attacks an export from someone else
could carry (docs/security.md, "Exports"). The result keeps the export's application id and
version, is undamaged by SQLite's own check where it can be, and is mode 0600.

Usage: hostile-export.py EXPORT KIND OUT
KIND is one of the names in ATTACKS below.
"""
import os
import shutil
import sqlite3
import sys

DOCUMENT_COLUMNS = (
    "fingerprint, path, filesystem, inode, handle_type, handle, birth, mode, origin, recorded, confirmed"
)


def view(rows_sql):
    """`documents` replaced by a view of the rows `rows_sql` selects (n from r, a key k)."""
    return [
        "DROP TABLE documents",
        "CREATE VIEW documents (id, %s) AS %s" % (DOCUMENT_COLUMNS, rows_sql),
    ]


ROW = "SELECT n, k.fingerprint, x'2f64', NULL, n, NULL, NULL, NULL, NULL, 'bookmarked', 0, 0 FROM r, keys k"

ATTACKS = {
    # An endless recursive view: reading it never ends.
    "recursive-view": view("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) " + ROW),
    # A view of 3,000,000 rows from a few bytes.
    "large-view": view(
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3000000) " + ROW
    ),
    # A record's handle made a generated column of 100 MB per row.
    "generated-column": [
        "ALTER TABLE documents RENAME TO loaded",
        "CREATE TABLE documents (id INTEGER PRIMARY KEY, fingerprint TEXT NOT NULL, path BLOB NOT NULL, "
        "filesystem INTEGER, inode INTEGER NOT NULL, handle_type INTEGER, "
        "handle BLOB GENERATED ALWAYS AS (zeroblob(100000000)) VIRTUAL, birth INTEGER, mode INTEGER, "
        "origin TEXT NOT NULL, recorded INTEGER NOT NULL, confirmed INTEGER NOT NULL) STRICT",
        "INSERT INTO documents (fingerprint, path, filesystem, inode, handle_type, birth, mode, origin, "
        "recorded, confirmed) SELECT fingerprint, path, filesystem, inode, 1, birth, mode, origin, "
        "recorded, confirmed FROM loaded",
        "DROP TABLE loaded",
    ],
    # A trigger and an index docbm never makes.
    "trigger": [
        "CREATE TRIGGER spread AFTER INSERT ON documents BEGIN DELETE FROM keys; END",
    ],
    "extra-index": ["CREATE INDEX documents_by_origin ON documents (origin)"],
    # Values docbm never writes.
    "empty-path": ["UPDATE documents SET path = x''"],
    "nul-in-path": ["UPDATE documents SET path = x'2f746d702f6100626f617264'"],
    "long-handle": ["UPDATE documents SET handle_type = 1, handle = zeroblob(4096)"],
    "orphan-record": [
        "INSERT INTO documents (%s) SELECT '%s', x'2f78', NULL, 1, NULL, NULL, NULL, NULL, 'bookmarked', 0, 0"
        % (DOCUMENT_COLUMNS, "0" * 64),
    ],
    # Text where an integer goes: the table made loose, the row written, the schema's text
    # put back as docbm writes it.
    "text-inode": "loose",
    # Many records of one key, each valid: imported up to the per-key cap.
    "many-records": [
        "INSERT INTO documents (%s) WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r "
        "WHERE n < 1000) SELECT k.fingerprint, CAST('/many/' || n AS BLOB), NULL, 1000 + n, NULL, NULL, "
        "NULL, NULL, 'bookmarked', n, n FROM r, keys k" % DOCUMENT_COLUMNS,
    ],
}


def loosen(connection):
    """Writes a text inode into `documents`, whose schema text stays STRICT."""
    strict = connection.execute("SELECT sql FROM sqlite_schema WHERE name = 'documents'").fetchone()[0]
    connection.execute("PRAGMA writable_schema = ON")
    connection.execute(
        "UPDATE sqlite_schema SET sql = ? WHERE name = 'documents'", (strict.replace(") STRICT", ")"),)
    )
    connection.commit()
    connection.close()
    connection = sqlite3.connect(sys.argv[3])
    connection.execute("UPDATE documents SET inode = 'not a number'")
    connection.commit()
    connection.execute("PRAGMA writable_schema = ON")
    connection.execute("UPDATE sqlite_schema SET sql = ? WHERE name = 'documents'", (strict,))
    connection.commit()
    return connection


def main():
    source, kind, out = sys.argv[1:4]
    shutil.copyfile(source, out)
    os.chmod(out, 0o600)
    connection = sqlite3.connect(out)
    attack = ATTACKS[kind]
    if attack == "loose":
        connection = loosen(connection)
    else:
        for statement in attack:
            connection.execute(statement)
        connection.commit()
        connection.execute("VACUUM")
    connection.close()
    return 0


sys.exit(main())
