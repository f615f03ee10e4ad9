import DocbmSystem
import DocbmTestSupport
import DocumentBookmarks
import Foundation
import Glibc
import Testing

@testable import DocbmCLI

/// `docbm escrow list|export|import`, with the built binary: keys moved to a second escrow
/// (standing for a second machine) repair a copy there; exports that cannot be trusted are
/// refused and import nothing.
@Suite("docbm escrow: list, export, import")
struct EscrowTransferTests {
  let docbm = Capabilities.docbmExecutable

  /// A project with a board holding a bookmark to an image, escrowed in `escrow`.
  private func project(in scratch: Scratch, escrow: FilePath) throws -> (board: FilePath, bookmark: String) {
    let board = try scratch.file("project/board.json", "{}")
    let image = try scratch.file("project/images/cat.png", "PNG")
    let made = run(
      docbm, ["bookmark", board.description, image.description],
      environment: ["DOCBM_ESCROW_DIR": escrow.description])
    try #require(made.status == 0, "\(made.error)")
    let text = made.output.trimmingCharacters(in: .whitespacesAndNewlines)
    try scratch.write("{\"image\": \"\(text)\"}", to: board)
    return (board, text)
  }

  /// The 32 key bytes in the document's key attribute.
  private func keyBytes(of document: FilePath) throws -> [UInt8] {
    let value = try #require(
      try ExtendedAttributes.value(KeyAttribute.name, of: .path(document, followSymlinks: false)))
    return Array(value[6..<38])
  }

  @Test(
    "an export imported into a second escrow puts a copy's key back at the same path; its bookmarks resolve")
  func secondMachine() throws {
    let scratch = try Scratch()
    let first = ["DOCBM_ESCROW_DIR": scratch.path("first").description]
    let second = ["DOCBM_ESCROW_DIR": scratch.path("second").description]
    let (board, bookmark) = try project(in: scratch, escrow: scratch.path("first"))
    let key = try keyBytes(of: board)
    let export = scratch.path("keys.docbm")
    let exported = run(docbm, ["escrow", "export", export.description], environment: first)
    #expect(exported.status == 0, "\(exported.error)")
    #expect(exported.output.contains("Exported 1 key and 1 document record"), "\(exported.output)")
    let status = try FileStatus.of(export, followSymlinks: false)
    #expect(status.permissions & 0o777 == 0o600)
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: scratch.root.description).sorted() == [
        "first", "keys.docbm", "project",
      ])

    // The second machine: the project arrives without its key (`cp -r` keeps no attribute),
    // at the same path; its escrow has never seen the key.
    #expect(rename(scratch.path("project").description, scratch.path("project.first").description) == 0)
    #expect(
      run("/bin/cp", ["-r", scratch.path("project.first").description, scratch.path("project").description])
        .status == 0)
    // The first machine's files are not on the second.
    #expect(run("/bin/rm", ["-rf", scratch.path("project.first").description]).status == 0)
    #expect(try BookmarkService(escrow: nil).documents(anchoredOn: board).keyFingerprint() == nil)
    let refused = run(docbm, ["repair", board.description], environment: second)
    #expect(refused.status == 2, "\(refused.output) \(refused.error)")

    let imported = run(docbm, ["escrow", "import", export.description], environment: second)
    #expect(imported.status == 0, "\(imported.error)")
    #expect(imported.output.contains("Imported 1 key and 1 document record"), "\(imported.output)")
    let repaired = run(docbm, ["repair", board.description], environment: second)
    #expect(repaired.status == 0, "\(repaired.output) \(repaired.error)")
    #expect(try keyBytes(of: board) == key)
    let resolved = run(docbm, ["resolve", board.description, bookmark], environment: second)
    #expect(resolved.status == 0, "\(resolved.error)")
    #expect(
      resolved.output.trimmingCharacters(in: .whitespacesAndNewlines)
        == scratch.path("project/images/cat.png").description)

    // Imported again: nothing new, the key said to be there already.
    let again = run(docbm, ["escrow", "import", "--json", export.description], environment: second)
    #expect(again.status == 0, "\(again.error)")
    let report = try #require(
      try JSONSerialization.jsonObject(with: Data(again.output.utf8)) as? [String: Any])
    #expect(report["keys"] as? Int == 0)
    #expect(report["keysAlreadyHeld"] as? Int == 1)
    // In words: nothing new, and no promise that something can now be repaired.
    let words = run(docbm, ["escrow", "import", export.description], environment: second)
    #expect(words.status == 0, "\(words.error)")
    #expect(words.output.hasPrefix("Nothing new in"), "\(words.output)")
    #expect(!words.output.contains("can now be repaired"), "\(words.output)")

    // The list names the key and its document, never the key itself.
    for arguments in [["escrow", "list"], ["escrow", "list", "--json"]] {
      let listed = run(docbm, arguments, environment: second)
      #expect(listed.status == 0, "\(listed.error)")
      let fingerprint = try #require(
        try BookmarkService(escrow: nil).documents(anchoredOn: board).keyFingerprint())
      #expect(listed.output.contains(fingerprint.description), "\(listed.output)")
      #expect(listed.output.contains(board.description), "\(listed.output)")
      if arguments.count == 2 {
        // Times to the second, and a document still at its recorded path is not said gone.
        #expect(listed.output.contains(" UTC"), "\(listed.output)")
        #expect(!listed.output.contains("nothing there now"), "\(listed.output)")
      }
      let hex = key.map { String(format: "%02x", $0) }.joined()
      for secret in [
        hex, hex.uppercased(), Data(key).base64EncodedString(),
        String(Data(key).base64EncodedString().dropLast()),
      ] {
        #expect(!listed.output.contains(secret), "\(arguments)")
      }
    }
    // A recorded document that is no longer there is listed as such.
    #expect(rename(board.description, scratch.path("project/moved.json").description) == 0)
    let gone = run(docbm, ["escrow", "list"], environment: second)
    #expect(
      gone.output.contains("\(board.description)  (") && gone.output.contains("nothing there now"),
      "\(gone.output)")
  }

  @Test("escrow list is sorted by path: each key's documents, and the keys by their first document")
  func listSortedByPath() throws {
    let scratch = try Scratch()
    let mine = ["DOCBM_ESCROW_DIR": scratch.path("escrow").description]
    let target = try scratch.file("t.png")
    // Made in an order that is not the paths' order.
    for name in ["m/board.json", "z/board.json", "a/board.json", "m/another.json"] {
      let document = try scratch.file(name, "{}")
      #expect(
        run(docbm, ["bookmark", document.description, target.description], environment: mine).status == 0)
    }
    let listed = run(docbm, ["escrow", "list"], environment: mine)
    #expect(listed.status == 0, "\(listed.error)")
    let paths = listed.output.split(separator: "\n").filter { $0.hasPrefix("    ") }.map {
      String($0.dropFirst(4).prefix { $0 != " " })
    }
    let expected = ["a/board.json", "m/another.json", "m/board.json", "z/board.json"].map {
      scratch.path($0).description
    }
    #expect(paths == expected, "\(listed.output)")
    let json = run(docbm, ["escrow", "list", "--json"], environment: mine)
    let report = try #require(
      try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
    let keys = try #require(report["keys"] as? [[String: Any]])
    let jsonPaths = keys.flatMap {
      ($0["documents"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
    }
    #expect(jsonPaths == expected, "\(json.output)")
  }

  @Test("export writes only a new regular file: an existing one needs --force, a device or link never")
  func exportRefusals() throws {
    let scratch = try Scratch()
    let empty = ["DOCBM_ESCROW_DIR": scratch.path("empty").description]
    let nothing = run(
      docbm, ["escrow", "export", scratch.path("none.docbm").description], environment: empty)
    #expect(nothing.status == 1)
    #expect(nothing.error.contains("notFound"), "\(nothing.error)")
    #expect(!FileManager.default.fileExists(atPath: scratch.path("none.docbm").description))

    let escrow = ["DOCBM_ESCROW_DIR": scratch.path("escrow").description]
    _ = try project(in: scratch, escrow: scratch.path("escrow"))
    let existing = try scratch.file("keys.docbm", "keep me")
    chmod(existing.description, 0o644)
    let refused = run(docbm, ["escrow", "export", existing.description], environment: escrow)
    #expect(refused.status == 1)
    #expect(refused.error.contains("documentExists"), "\(refused.error)")
    #expect(try String(contentsOfFile: existing.description, encoding: .utf8) == "keep me")
    let forced = run(docbm, ["escrow", "export", "--force", existing.description], environment: escrow)
    #expect(forced.status == 0, "\(forced.error)")
    #expect(try FileStatus.of(existing, followSymlinks: false).permissions & 0o777 == 0o600)

    let link = scratch.path("link.docbm")
    #expect(symlink(scratch.path("elsewhere.docbm").description, link.description) == 0)
    for target in [FilePath("/dev/null"), link] {
      let written = run(docbm, ["escrow", "export", "--force", target.description], environment: escrow)
      #expect(written.status == 1, "\(target)")
      #expect(written.error.contains("unsupportedFileType"), "\(target): \(written.error)")
    }
    #expect(!FileManager.default.fileExists(atPath: scratch.path("elsewhere.docbm").description))
    // No temporary left beside the exports.
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: scratch.root.description).sorted() == [
        "escrow", "keys.docbm", "link.docbm", "project",
      ])
  }

  @Test(
    "an export others could read, not yours, a link, foreign, truncated, garbage or with a changed key imports nothing"
  )
  func importRefusals() throws {
    let scratch = try Scratch()
    let escrow = ["DOCBM_ESCROW_DIR": scratch.path("escrow").description]
    let (board, _) = try project(in: scratch, escrow: scratch.path("escrow"))
    let key = try keyBytes(of: board)
    let export = scratch.path("keys.docbm")
    try #require(run(docbm, ["escrow", "export", export.description], environment: escrow).status == 0)
    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: export.description)))

    func variant(_ name: String, _ contents: [UInt8], mode: mode_t = 0o600) throws -> FilePath {
      let path = scratch.path(name)
      try Data(contents).write(to: URL(fileURLWithPath: path.description))
      chmod(path.description, mode)
      return path
    }
    var cases: [(FilePath, String)] = [
      (try variant("readable.docbm", bytes, mode: 0o644), "escrowUntrusted"),
      (try variant("truncated.docbm", Array(bytes.prefix(bytes.count / 2))), "escrowDamaged"),
      (
        try variant("garbage.docbm", (0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }),
        "escrowDamaged"
      ),
    ]
    // The key's bytes changed in place: the fingerprint no longer matches.
    let at = try #require(
      (0...(bytes.count - key.count)).first { bytes[$0..<($0 + key.count)].elementsEqual(key) })
    var changed = bytes
    changed[at + 3] ^= 0x40
    cases.append((try variant("changed.docbm", changed), "escrowDamaged"))
    let link = scratch.path("link.docbm")
    #expect(symlink(export.description, link.description) == 0)
    cases.append((link, "escrowUntrusted"))
    if FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") {
      let foreign = scratch.path("foreign.docbm")
      let made = run(
        "/usr/bin/python3",
        [
          "-c",
          "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('create table keys(x)'); c.commit()",
          foreign.description,
        ])
      try #require(made.status == 0, "\(made.error)")
      chmod(foreign.description, 0o600)
      cases.append((foreign, "escrowDamaged"))
    } else {
      print("skipped the foreign database: python3 is needed to make one")
    }
    if Capabilities.isRoot {
      let theirs = try variant("theirs.docbm", bytes)
      #expect(chown(theirs.description, 65534, 65534) == 0)
      cases.append((theirs, "escrowUntrusted"))
    } else {
      print("skipped another user's export: chown needs root")
    }
    let second = ["DOCBM_ESCROW_DIR": scratch.path("second").description]
    for (file, code) in cases {
      let imported = run(docbm, ["escrow", "import", file.description], environment: second)
      #expect(imported.status == 1, "\(file)")
      #expect(imported.error.contains(code), "\(file): \(imported.error)")
    }
    #expect(KeyEscrow(folder: scratch.path("second")).entries().entries.isEmpty)
  }

  @Test(
    "a stranger's export naming the user's never-keyed document: check, bookmark and repair ignore its record"
  )
  func plantedRecord() throws {
    let scratch = try Scratch()
    let mine = ["DOCBM_ESCROW_DIR": scratch.path("mine").description]
    let theirs = ["DOCBM_ESCROW_DIR": scratch.path("theirs").description]
    let notes = scratch.path("notes.json")
    let image = try scratch.file("img.png")
    // The stranger: a key of his own, recorded for the path of the user's document (by
    // making a file there, bookmarking it, and exporting), the file gone again.
    _ = try scratch.file("notes.json", "{}")
    let planted = run(docbm, ["bookmark", notes.description, image.description], environment: theirs)
    try #require(planted.status == 0, "\(planted.error)")
    let strangerKey = try keyBytes(of: notes)
    let export = scratch.path("gift.docbm")
    try #require(run(docbm, ["escrow", "export", export.description], environment: theirs).status == 0)
    try scratch.remove(notes)
    // The user's own document at that path, never keyed; she imports the gift.
    _ = try scratch.file("notes.json", "{\"title\": \"mine\"}")
    let imported = run(docbm, ["escrow", "import", export.description], environment: mine)
    try #require(imported.status == 0, "\(imported.error)")
    let listed = run(docbm, ["escrow", "list"], environment: mine)
    #expect(listed.output.contains("transferred"), "\(listed.output)")

    let check = run(docbm, ["check", "--json", notes.description], environment: mine)
    #expect(check.output.contains("\"noBookmarks\""), "\(check.output)")
    #expect(!check.output.contains("keyLost"), "\(check.output)")
    let repair = run(docbm, ["repair", notes.description], environment: mine)
    #expect(
      try BookmarkService(escrow: nil).documents(anchoredOn: notes).keyFingerprint() == nil,
      "\(repair.output)")
    let made = run(docbm, ["bookmark", notes.description, image.description], environment: mine)
    #expect(made.status == 0, "\(made.error)")
    #expect(try keyBytes(of: notes) != strangerKey)
  }

  @Test(
    "an imported record puts its key back on a copy only when the copy's own bookmarks name the key")
  func transferredNeedsBookmarks() throws {
    let scratch = try Scratch()
    let first = ["DOCBM_ESCROW_DIR": scratch.path("first").description]
    let second = ["DOCBM_ESCROW_DIR": scratch.path("second").description]
    let (board, bookmark) = try project(in: scratch, escrow: scratch.path("first"))
    let key = try keyBytes(of: board)
    let export = scratch.path("keys.docbm")
    try #require(run(docbm, ["escrow", "export", export.description], environment: first).status == 0)
    try #require(run(docbm, ["escrow", "import", export.description], environment: second).status == 0)
    // A plain save dropped the key, and the bookmarks too: nothing in the file names the key.
    try scratch.replaceAtomically(board, with: "{}")
    let refused = run(docbm, ["repair", board.description], environment: second)
    #expect(
      try BookmarkService(escrow: nil).documents(anchoredOn: board).keyFingerprint() == nil,
      "\(refused.output)")
    // Saved again with its bookmark, still without the key: the bookmark is the proof.
    try scratch.replaceAtomically(board, with: "{\"image\": \"\(bookmark)\"}")
    let repaired = run(docbm, ["repair", board.description], environment: second)
    #expect(repaired.status == 0, "\(repaired.output) \(repaired.error)")
    #expect(try keyBytes(of: board) == key)
  }

  @Test("a document made again at a recorded name in a shared folder: refused, then forgotten and keyed anew")
  func forgetRecordedName() throws {
    let scratch = try Scratch()
    let escrow = ["DOCBM_ESCROW_DIR": scratch.path("escrow").description]
    let shared = try scratch.folder("shared")
    chmod(shared.description, 0o777)
    let notes = try scratch.file("shared/notes.json", "{}")
    let image = try scratch.file("img.png")
    try #require(
      run(docbm, ["bookmark", notes.description, image.description], environment: escrow).status == 0)
    let oldKey = try keyBytes(of: notes)
    // Deleted, and made again at its name: not the recorded document, and no proof.
    try scratch.remove(notes)
    _ = try scratch.file("shared/notes.json", "{\"new\": true}")
    let refused = run(docbm, ["bookmark", notes.description, image.description], environment: escrow)
    #expect(refused.status != 0)
    #expect(refused.error.contains("documentUnproven"), "\(refused.error)")
    #expect(refused.error.contains("docbm escrow forget"), "\(refused.error)")

    let forgot = run(docbm, ["escrow", "forget", "--json", notes.description], environment: escrow)
    #expect(forgot.status == 0, "\(forgot.error)")
    let report = try #require(
      try JSONSerialization.jsonObject(with: Data(forgot.output.utf8)) as? [String: Any])
    #expect((report["keys"] as? [String])?.count == 1)
    let again = run(docbm, ["escrow", "forget", notes.description], environment: escrow)
    #expect(again.status == 1)
    #expect(again.output.contains("nothing to forget"), "\(again.output)")

    let made = run(docbm, ["bookmark", notes.description, image.description], environment: escrow)
    #expect(made.status == 0, "\(made.error)")
    #expect(try keyBytes(of: notes) != oldKey)
  }

  @Test("an escrow that holds other bytes under an export's fingerprint imports nothing from it")
  func fingerprintConflict() throws {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else {
      print("skipped: python3 is needed to write the conflicting key into a database")
      return
    }
    let scratch = try Scratch()
    let first = ["DOCBM_ESCROW_DIR": scratch.path("first").description]
    let (board, _) = try project(in: scratch, escrow: scratch.path("first"))
    let fingerprint = try #require(
      try BookmarkService(escrow: nil).documents(anchoredOn: board).keyFingerprint())
    let export = scratch.path("keys.docbm")
    try #require(run(docbm, ["escrow", "export", export.description], environment: first).status == 0)
    // The second escrow, made by docbm, then given 32 other bytes under that fingerprint.
    let second = ["DOCBM_ESCROW_DIR": scratch.path("second").description]
    let other = try scratch.file("other.json", "{}")
    try #require(
      run(docbm, ["bookmark", other.description, board.description], environment: second).status == 0)
    let written = run(
      "/usr/bin/python3",
      [
        "-c",
        "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('insert into keys values (?, zeroblob(32), 0)', (sys.argv[2],)); c.commit()",
        scratch.path("second/escrow.sqlite").description, fingerprint.description,
      ])
    try #require(written.status == 0, "\(written.error)")
    let imported = run(docbm, ["escrow", "import", export.description], environment: second)
    #expect(imported.status == 1)
    #expect(imported.error.contains("escrowDamaged"), "\(imported.error)")
    #expect(imported.error.contains("another key under fingerprint \(fingerprint)"), "\(imported.error)")
    // Nothing of the export came in: no record of the board, and the one import logged is
    // none.
    let counted = run(
      "/usr/bin/python3",
      [
        "-c",
        "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print(c.execute('select count(*) from documents where path = ?', (sys.argv[2].encode(),)).fetchone()[0], c.execute('select count(*) from imports').fetchone()[0])",
        scratch.path("second/escrow.sqlite").description, board.description,
      ])
    #expect(
      counted.output.trimmingCharacters(in: .whitespacesAndNewlines) == "0 0",
      "\(counted.output) \(counted.error)")
  }

  @Test("the actions and their operands are checked before anything runs")
  func parsing() throws {
    func parse(_ words: String...) throws -> ParsedCommand {
      try ParsedCommand.parse(words.map { Array($0.utf8) })
    }
    #expect(try parse("escrow", "list") == .escrow(EscrowSettings(action: .list, file: nil)))
    #expect(
      try parse("escrow", "export", "--force", "k")
        == .escrow(EscrowSettings(action: .export, file: Array("k".utf8), force: true)))
    #expect(
      try parse("--json", "escrow", "import", "k")
        == .escrow(EscrowSettings(action: .import, file: Array("k".utf8), json: true)))
    for words in [
      ["escrow"], ["escrow", "show"], ["escrow", "list", "x"], ["escrow", "export"],
      ["escrow", "import", "a", "b"], ["escrow", "import", "--force", "k"],
    ] {
      #expect(throws: UsageError.self, "\(words)") { try ParsedCommand.parse(words.map { Array($0.utf8) }) }
    }
  }
}
