import DocbmTestSupport
import Foundation
import Glibc
import Testing

@testable import DocumentBookmarks

/// The upgrade from docbm 0.1.0's escrow (one JSON file per key) to the database, run on an
/// escrow that 0.1.0 wrote (Tests/Fixtures/escrow-0.1.0).
@Suite("Escrow: the 0.1.0 escrow is imported", .serialized)
struct EscrowMigrationTests {
  /// The fixture, and where 0.1.0 recorded its project.
  static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures/escrow-0.1.0").path
  static let recordedRoot = "/tmp/docbm-escrow-fixture-0.1.0"
  static let documents = ["board.json", "report.txt", "images/notes.md", "outline.json"]

  let scratch: Scratch
  let escrow: KeyEscrow

  /// The fixture's escrow copied into a scratch folder (with the modes Git does not keep),
  /// and its project put back where 0.1.0 recorded it, its documents without their keys.
  init() throws {
    scratch = try Scratch()
    escrow = KeyEscrow(folder: scratch.path("escrow"))
    #expect(run("/bin/cp", ["-r", "\(Self.fixture)/escrow", escrow.folder.description]).status == 0)
    chmod(escrow.folder.description, 0o700)
    for name in try FileManager.default.contentsOfDirectory(atPath: escrow.folder.description) {
      chmod(escrow.folder.appending(name).description, 0o600)
    }
    #expect(run("/bin/rm", ["-rf", Self.recordedRoot]).status == 0)
    #expect(run("/bin/mkdir", ["-m", "0755", Self.recordedRoot]).status == 0)
    #expect(run("/bin/cp", ["-r", "\(Self.fixture)/project", "\(Self.recordedRoot)/project"]).status == 0)
  }

  private func project(_ relative: String) -> FilePath {
    FilePath("\(Self.recordedRoot)/project/\(relative)")
  }

  @Test("every key and record is imported, the old files kept aside, and every document repaired")
  func importsAndRepairs() throws {
    let migration = try #require(try escrow.upgrade())
    #expect(migration.keys == 4)
    #expect(migration.documents == 4)
    #expect(migration.problems.isEmpty)
    #expect(migration.keptIn == escrow.folder.appending("0.1.0-files"))
    #expect(migration.summary.contains("4 keys and 4 document records imported"), "\(migration.summary)")
    let left = try FileManager.default.contentsOfDirectory(atPath: escrow.folder.description).sorted()
    #expect(left == ["0.1.0-files", "escrow.sqlite"])
    let aside = try FileManager.default.contentsOfDirectory(atPath: migration.keptIn.description)
    #expect(aside.filter { $0.hasSuffix(".json") }.count == 4)
    #expect(aside.contains(".catalog") && aside.contains(".lock"))
    #expect(try escrow.upgrade() == nil, "a second upgrade finds nothing to import")

    let entries = escrow.entries()
    #expect(entries.problems.isEmpty)
    #expect(entries.entries.count == 4)
    #expect(entries.entries.allSatisfy { $0.documents.allSatisfy { $0.origin == .imported } })
    for document in Self.documents {
      let path = project(document)
      let before = DocumentChecker(escrow: escrow).check(path)
      #expect(before.verdict == .keyLost, "\(document): \(before.message)")
      let repair = DocumentRepairer(escrow: escrow).repair(path)
      #expect(repair.action == .restored, "\(document): \(repair.message)")
      #expect(repair.after?.verdict == .ok || repair.after?.verdict == .noBookmarks, "\(document)")
    }
    // The restored board's bookmarks resolve.
    let board = try String(contentsOfFile: project("board.json").description, encoding: .utf8)
    for text in board.split(separator: "\"").filter({ $0.hasPrefix("docbmRec") }) {
      let bookmark = try Bookmark(text: String(text))
      #expect(throws: Never.self) {
        try BookmarkService(escrow: nil).documents(anchoredOn: project("board.json")).resolve(bookmark)
      }
    }
  }

  @Test("a damaged entry is kept aside and reported, and the others are imported")
  func damagedEntry() throws {
    try scratch.write("{ not json", to: escrow.folder.appending("0000000000000000.json"))
    chmod(escrow.folder.appending("0000000000000000.json").description, 0o600)
    let migration = try #require(try escrow.upgrade())
    #expect(migration.keys == 4)
    #expect(migration.problems.count == 1)
    #expect(migration.problems.first?.reason.contains("malformed") == true)
    #expect(
      FileManager.default.fileExists(atPath: migration.keptIn.appending("0000000000000000.json").description))
    #expect(escrow.entries().entries.count == 4)
  }

  @Test("an entry a 0.1.0 docbm writes after the upgrade is imported too, and kept beside the first")
  func laterEntry() throws {
    let first = try #require(try escrow.upgrade())
    let name = try #require(
      try FileManager.default.contentsOfDirectory(atPath: first.keptIn.description).first {
        $0.hasSuffix(".json")
      })
    // The same file again, as a 0.1.0 docbm still running would write it.
    #expect(
      run("/bin/cp", [first.keptIn.appending(name).description, escrow.folder.appending(name).description])
        .status == 0)
    let second = try #require(try escrow.upgrade())
    #expect(second.keys == 0, "the key was imported already")
    #expect(FileManager.default.fileExists(atPath: first.keptIn.appending(name + ".1").description))
    #expect(escrow.entries().entries.count == 4)
  }

  @Test("a check reads a 0.1.0 escrow as the upgrade leaves it, and says so once")
  func checkUpgrades() throws {
    let checker = DocumentChecker(escrow: escrow)
    #expect(checker.escrowMigration?.keys == 4)
    #expect(checker.check(project("outline.json")).verdict == .keyLost)
    #expect(DocumentChecker(escrow: escrow).escrowMigration == nil)
  }
}
