import DocbmTestSupport
import DocumentBookmarks
import Foundation
import Glibc
import Testing

/// `docbm escrow import` of exports crafted to run without bound or to carry values docbm
/// never writes (`Tests/Fixtures/hostile-export.py`): each is refused at once, and nothing
/// is imported (docs/security.md, "Exports").
@Suite("docbm escrow import of crafted exports")
struct HostileExportTests {
  let docbm = Capabilities.docbmExecutable
  static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Fixtures/hostile-export.py").path

  /// A real export of an escrow holding one key and its record, and the scratch it is in.
  private func realExport() throws -> (Scratch, FilePath) {
    let scratch = try Scratch()
    let escrow = ["DOCBM_ESCROW_DIR": scratch.path("escrow").description]
    let board = try scratch.file("board.json", "{}")
    let image = try scratch.file("img.png")
    try #require(
      run(docbm, ["bookmark", board.description, image.description], environment: escrow).status == 0)
    let export = scratch.path("keys.docbm")
    try #require(run(docbm, ["escrow", "export", export.description], environment: escrow).status == 0)
    return (scratch, export)
  }

  /// The export turned into the attack `kind`.
  private func hostile(_ kind: String, from export: FilePath, in scratch: Scratch) throws -> FilePath {
    let out = scratch.path("\(kind).docbm")
    let made = run("/usr/bin/python3", [Self.script, export.description, kind, out.description])
    try #require(made.status == 0, "\(kind): \(made.error)")
    return out
  }

  static var canCraft: Bool {
    FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")
      && run("/usr/bin/python3", ["-c", "import sqlite3"]).status == 0
  }

  @Test(
    "a view, a generated column, a trigger, an index or a value docbm never writes: refused, nothing imported",
    .timeLimit(.minutes(2)),
    arguments: [
      ("recursive-view", "schema"), ("large-view", "schema"), ("generated-column", "schema"),
      ("trigger", "schema"), ("extra-index", "schema"), ("empty-path", "values"), ("nul-in-path", "values"),
      ("long-handle", "values"), ("orphan-record", "values"), ("text-inode", "values"),
    ])
  func refused(kind: String, because reason: String) throws {
    guard Self.canCraft else {
      print("skipped: python3 with sqlite3 is needed to craft an export")
      return
    }
    let (scratch, export) = try realExport()
    let file = try hostile(kind, from: export, in: scratch)
    let second = scratch.path("second")
    let imported = run(
      docbm, ["escrow", "import", file.description], environment: ["DOCBM_ESCROW_DIR": second.description])
    #expect(imported.status == 1, "\(kind): \(imported.output)")
    #expect(imported.error.contains("escrowDamaged"), "\(kind): \(imported.error)")
    let said = reason == "schema" ? "its schema is not the one docbm writes" : "values docbm never writes"
    #expect(
      imported.error.contains(said) || imported.error.contains("is damaged"), "\(kind): \(imported.error)")
    #expect(KeyEscrow(folder: second).entries().entries.isEmpty)
  }

  @Test("an export with a thousand records of one key imports the key with as many as a key keeps")
  func recordCap() throws {
    guard Self.canCraft else {
      print("skipped: python3 with sqlite3 is needed to craft an export")
      return
    }
    let (scratch, export) = try realExport()
    let file = try hostile("many-records", from: export, in: scratch)
    let second = scratch.path("second")
    let imported = run(
      docbm, ["escrow", "import", file.description], environment: ["DOCBM_ESCROW_DIR": second.description])
    #expect(imported.status == 0, "\(imported.error)")
    let entries = KeyEscrow(folder: second).entries().entries
    #expect(entries.count == 1)
    #expect(entries.first?.documents.count == KeyEscrow.maximumDocumentsPerEntry)
    // The ones kept are those confirmed last.
    let confirmed = entries.first?.documents.map(\.confirmed.nanosecondsSince1970Value) ?? []
    #expect(confirmed.min() ?? 0 > 1000 - Int64(KeyEscrow.maximumDocumentsPerEntry))
  }
}

extension Timestamp {
  /// The time in nanoseconds since 1970, as the escrow stores it.
  fileprivate var nanosecondsSince1970Value: Int64 { seconds * 1_000_000_000 + Int64(nanoseconds) }
}
