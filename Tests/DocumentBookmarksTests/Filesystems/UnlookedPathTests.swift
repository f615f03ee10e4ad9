import DocbmSystem
import DocbmTestSupport
import Foundation
import Testing

@testable import DocumentBookmarks
@testable import DocumentWatching

/// A path that cannot be looked at (a real EIO from the faulty passthrough) is never taken
/// for one where nothing is: each answer below once came out as "nothing there".
@Suite("A path that cannot be looked at is not taken for nothing there")
struct UnlookedPathTests {
  @Test("relink, forced removal, check, escrow export and a watcher's rescan say they could not look")
  func unlooked() async throws {
    guard
      let rows = try await FilesystemLab.inNamespace(
        "the unlooked-path test",
        { lab in
          try Self.measure(in: lab)
        })
    else { return }
    let measured = Dictionary(rows, uniquingKeysWith: { first, _ in first })
    #expect(measured["relink, the candidate unreadable (getattr EIO)"] == "failed: ioError", "\(rows)")
    #expect(measured["relink, no fault"] == "relinked", "\(rows)")
    #expect(
      measured["forced removal, the file unreadable (getattr EIO)"] == "left: 1, still there", "\(rows)")
    #expect(measured["forced removal, no fault"] == "nothing left, gone", "\(rows)")
    #expect(measured["check a renamed copy, its target unreadable (getattr EIO)"] == "keyLost", "\(rows)")
    #expect(measured["check a quotation, no fault"] == "quotesBookmarks", "\(rows)")
    #expect(measured["export over a file that cannot be looked at (getattr EIO)"] == "ioError", "\(rows)")
    #expect(measured["the file export would have replaced"] == "kept", "\(rows)")
    #expect(measured["rescan, the folder unreadable (readdir EIO)"] == "notWatched", "\(rows)")
    #expect(measured["rescan, no fault"] == "", "\(rows)")
    #expect(
      measured["probe, the attributes unreadable (getxattr EIO)"]?.hasPrefix(
        "other extended attributes cannot be read after the save: user.docbm-probe.color (EIO)") == true,
      "\(rows)")
    #expect(
      measured["probe, the document unreadable (read EIO)"]?.contains("cannot be read after the save")
        == true, "\(rows)")
    #expect(measured["probe, no fault"] == "", "\(rows)")
  }

  static func measure(in lab: FilesystemLab) throws -> [(String, String)] {
    let faulty = try FaultyFilesystemTests.mountFaulty(in: lab)
    var rows: [(String, String)] = []

    // A project relinked from a folder of the scratch to a copy on the faulty mount.
    let documentPath = try lab.scratch.file("project/board.doc", "board")
    let document = BookmarkService(escrow: nil).documents(anchoredOn: documentPath)
    // A copy on another filesystem is taken with the recorded size and modification time
    // (a whole second, which the passthrough keeps).
    let cat = try lab.scratch.file("project/images/cat.png", "cat")
    let copied = try lab.scratch.file(bytes: faulty.path("images/cat.png"), "cat")
    try lab.sh("touch -d @1700000000 '\(cat)' '\(copied)'")
    let bookmark = try document.makeBookmark(to: cat)
    func relink(_ name: String) {
      let outcome = document.relink(
        [bookmark], from: lab.scratch.path("project/images"), to: faulty.path("images"))
      let described: String
      switch outcome.first?.outcome {
      case .relinked: described = "relinked"
      case .nothingThere: described = "nothingThere"
      case .notUnderSource: described = "notUnderSource"
      case .notTheTarget(let why): described = "notTheTarget: \(why)"
      case .failed(let error): described = "failed: \(error.code.rawValue)"
      case nil: described = "no outcome"
      }
      rows.append((name, described))
    }
    try faulty.fail("getattr", "EIO", in: "cat.png")
    relink("relink, the candidate unreadable (getattr EIO)")
    try faulty.heal()
    relink("relink, no fault")

    // A forced removal (a probe's or a fault test's clean-up) of a file it cannot look at.
    let doomed = try lab.scratch.file(bytes: faulty.path("doomed.txt"), "doomed")
    func remove(_ name: String, failing: Bool) throws {
      if failing { try faulty.fail("getattr", "EIO", in: "doomed.txt") }
      let left = FileDescriptor.currentWorkingDirectory.removeTreeForcibly(doomed)
      if failing { try faulty.heal() }
      let there = FileManager.default.fileExists(atPath: doomed.description)
      rows.append(
        (name, (left.isEmpty ? "nothing left" : "left: \(left.count)") + (there ? ", still there" : ", gone"))
      )
    }
    try remove("forced removal, the file unreadable (getattr EIO)", failing: true)
    try remove("forced removal, no fault", failing: false)

    // A copy of a document renamed beside it, whose bookmark's target cannot be looked at:
    // the target may be there, so the copy is not a mere quotation of the bookmark.
    let board = try lab.scratch.file(bytes: faulty.path("desk/board.doc"), "board")
    let fox = try lab.scratch.file(bytes: faulty.path("desk/images/fox.png"), "fox")
    let foxBookmark = try BookmarkService(escrow: nil).documents(anchoredOn: board).makeBookmark(to: fox)
    try lab.scratch.write("board \(foxBookmark.text)", to: board)
    let renamed = try lab.scratch.file(bytes: faulty.path("desk/board-v2.doc"), "board \(foxBookmark.text)")
    let checker = DocumentChecker(escrow: nil)
    try faulty.fail("getattr", "EIO", in: "fox.png")
    rows.append(
      ("check a renamed copy, its target unreadable (getattr EIO)", checker.check(renamed).verdict.rawValue))
    try faulty.heal()
    // The same bytes where the target's relative path leads nowhere: a quotation.
    let history = try lab.scratch.file(bytes: faulty.path("home/history.txt"), "board \(foxBookmark.text)")
    rows.append(("check a quotation, no fault", checker.check(history).verdict.rawValue))

    // An export asked not to replace a file it cannot look at.
    let escrow = KeyEscrow(folder: lab.scratch.path("state/docbm"))
    let notes = try lab.scratch.file("notes.doc", "notes")
    _ = try BookmarkService(escrow: escrow).documents(anchoredOn: notes).makeBookmark(to: cat)
    let export = try lab.scratch.file(bytes: faulty.path("keys.docbm"), "an earlier export")
    try faulty.fail("getattr", "EIO", in: "keys.docbm")
    do {
      _ = try escrow.exportKeys(to: export)
      rows.append(("export over a file that cannot be looked at (getattr EIO)", "exported"))
    } catch {
      rows.append(("export over a file that cannot be looked at (getattr EIO)", error.code.rawValue))
    }
    try faulty.heal()
    let kept = (try? String(contentsOfFile: export.description, encoding: .utf8)) == "an earlier export"
    rows.append(("the file export would have replaced", kept ? "kept" : "replaced"))

    // A watcher's rescan (after the kernel dropped events) that cannot list a folder: its
    // documents are not reported deleted.
    let paper = try lab.scratch.file(bytes: faulty.path("watched/paper.doc"), "paper")
    _ = try BookmarkService(escrow: nil).documents(anchoredOn: paper).makeBookmark(to: cat)
    let engine = WatchEngine(inotify: try Inotify(), options: WatchOptions(escrow: nil), mode: .folders)
    _ = try engine.addRoot(faulty.path("watched"))
    func rescan(_ name: String) {
      var events: [DocumentEvent] = []
      engine.rescan(&events)
      rows.append((name, events.filter { $0.kind != .rescanned }.map(\.kind.rawValue).joined(separator: " ")))
    }
    try faulty.fail("readdir", "EIO", in: "watched")
    rescan("rescan, the folder unreadable (readdir EIO)")
    try faulty.heal()
    rescan("rescan, no fault")

    // A save probe that cannot read the document's attributes, or its bytes, afterwards.
    _ = try lab.scratch.file(bytes: faulty.path("probe/.keep"), "")
    let probe = try ScratchDocument.make(in: faulty.path("probe"))
    let name = String(decoding: probe.savePath.lastComponent, as: UTF8.self)
    func examine(_ label: String, _ kind: SaveFinding.Kind) {
      let messages = SaveProbe.examine(probe, failure: nil).findings.filter { $0.kind == kind }.map(\.message)
      rows.append((label, messages.joined(separator: "; ")))
    }
    try faulty.fail("getxattr", "EIO", in: name)
    examine("probe, the attributes unreadable (getxattr EIO)", .attributesLost)
    try faulty.fail("read", "EIO", in: name)
    examine("probe, the document unreadable (read EIO)", .documentMissing)
    try faulty.heal()
    examine("probe, no fault", .attributesLost)
    return rows
  }
}
