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
}
