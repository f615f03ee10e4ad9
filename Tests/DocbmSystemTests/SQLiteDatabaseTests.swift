import DocbmTestSupport
import Testing

@testable import DocbmSystem

@Suite("SQLite connections")
struct SQLiteDatabaseTests {
  /// A database file with a table of `rows` numbers.
  private func database(rows: Int) throws -> (Scratch, FilePath) {
    let scratch = try Scratch()
    let path = try scratch.file("numbers.sqlite", "")
    let database = try SQLiteDatabase(path)
    try database.execute("CREATE TABLE numbers (n INTEGER NOT NULL)")
    try database.writeTransaction { () throws(SQLiteError) in
      for number in 0..<rows {
        try database.prepare("INSERT INTO numbers (n) VALUES (?)").bind(.integer(Int64(number))).run()
      }
    }
    return (scratch, path)
  }

  @Test("a statement given back is reused with fresh bindings; two in use at once are two")
  func reuse() throws {
    let (scratch, path) = try database(rows: 10)
    _ = scratch
    let database = try SQLiteDatabase(path)
    let sql = "SELECT n FROM numbers WHERE n >= ? ORDER BY n"
    for start in [3, 7, 0] {
      let statement = try database.prepare(sql).bind(.integer(Int64(start)))
      var seen: [Int64] = []
      while try statement.step() { seen.append(statement.int64(0)) }
      #expect(seen == (Int64(start)..<10).map { $0 })
    }
    // The same text twice at once: each runs on its own.
    let outer = try database.prepare(sql).bind(.integer(8))
    #expect(try outer.step())
    let inner = try database.prepare(sql).bind(.integer(1))
    #expect(try inner.step())
    #expect(inner.int64(0) == 1)
    #expect(outer.int64(0) == 8)
    #expect(try outer.step())
    #expect(outer.int64(0) == 9)
  }

  @Test("a statement released in the middle of its rows holds no lock: another connection writes")
  func releasedMidwayUnlocks() throws {
    let (scratch, path) = try database(rows: 100)
    _ = scratch
    let reader = try SQLiteDatabase(path)
    do {
      let statement = try reader.prepare("SELECT n FROM numbers ORDER BY n")
      #expect(try statement.step())
      // Given back here with 99 rows unread.
    }
    // Had the reader kept its read lock, this write would wait out the busy timeout and fail.
    let writer = try SQLiteDatabase(path)
    try writer.execute("PRAGMA busy_timeout = 0")
    try writer.writeTransaction { () throws(SQLiteError) in
      try writer.prepare("DELETE FROM numbers WHERE n < 50").run()
    }
    let count = try reader.prepare("SELECT count(*) FROM numbers")
    #expect(try count.step())
    #expect(count.int64(0) == 50)
  }

  @Test("a compacted image holds the database's rows and no bytes of rows deleted before")
  func compactedImage() throws {
    let scratch = try Scratch()
    let path = try scratch.file("secrets.sqlite", "")
    let database = try SQLiteDatabase(path)
    // Debian builds SQLite to overwrite deleted rows; a build that does not leaves them.
    try database.execute("PRAGMA secure_delete = OFF")
    try database.execute("CREATE TABLE secrets (text TEXT NOT NULL)")
    let gone = "a secret that was forgotten"
    try database.prepare("INSERT INTO secrets (text) VALUES (?)").bind(.text(gone)).run()
    try database.prepare("INSERT INTO secrets (text) VALUES (?)").bind(.text("kept")).run()
    try database.execute("DELETE FROM secrets WHERE text LIKE 'a secret%'")
    // The file itself still holds the deleted row's bytes in a free slot.
    let file = try FileDescriptor.open(path, [.readOnly]).closeAfter { fd throws(SystemCallError) in
      try fd.readWhole(limit: 1 << 20)
    }
    #expect(
      file.firstRange(of: Array(gone.utf8)) != nil, "the file no longer holds the deleted row: proves nothing"
    )

    let image = try database.compactedImage()
    #expect(image.firstRange(of: Array(gone.utf8)) == nil)
    let copy = try SQLiteDatabase(deserializing: image, path: FilePath("copy"))
    let statement = try copy.prepare("SELECT text FROM secrets")
    var rows: [String] = []
    while try statement.step() { rows.append(statement.text(0)) }
    #expect(rows == ["kept"])
  }
}
