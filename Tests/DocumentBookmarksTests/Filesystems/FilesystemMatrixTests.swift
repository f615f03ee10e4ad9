import DocbmSystem
import DocbmTestSupport
import Foundation
import Glibc
import Testing

@testable import DocumentBookmarks

/// The same cases on each filesystem, made for real in a private mount namespace: bookmark
/// a file and a folder, resolve after each kind of change, save, check and repair. Each
/// cell is recorded for docs/filesystems.md (``FilesystemTable``) and compared with what
/// docbm promises there.
@Suite("Filesystem matrix")
struct FilesystemMatrixTests {
  /// What every filesystem must give, operation by operation; ``exceptions`` lists the
  /// measured differences that are not failures of docbm.
  static let expected: [(operation: String, result: String)] = [
    ("bookmark a file", "made"),
    ("bookmark a folder", "made"),
    ("unmoved", "resolved"),
    ("renamed", "stale: targetMoved"),
    ("moved two folders away", "stale: targetMoved"),
    ("parent folder renamed", "stale: targetMoved"),
    ("folder renamed", "stale: targetMoved"),
    ("replaced by an atomic save", "stale: identityChanged"),
    ("deleted", "error: missing"),
    ("saved with replaceDocument", "key, attributes and mode kept; bookmark resolves"),
    ("folder document saved", "swapped whole (RENAME_EXCHANGE); key kept"),
    ("check", "ok"),
    ("check after the key was stripped", "keyLost"),
    ("repair", "restored; check: ok"),
    ("unmounted", "error: volumeUnavailable"),
    ("mounted again", "resolved"),
    ("mounted again, the renamed file's first bookmark", "stale: targetMoved"),
  ]

  /// Results that differ from ``expected`` on one filesystem, and why that is right.
  static let exceptions: [LabFilesystem: [String: String]] = [
    // FUSE has no RENAME_EXCHANGE for bindfs (the kernel answers EINVAL): a folder
    // document cannot be swapped atomically, and the save says so before changing anything.
    .bindfs: ["folder document saved": "error: unsupportedFilesystem; document intact"],
    // libfuse 2 has no rename flags at all: the same.
    .fusepy: ["folder document saved": "error: unsupportedFilesystem; document intact"],
    // A tmpfs keeps nothing once unmounted: the new one is empty.
    .tmpfs: [
      "mounted again": "error: missing",
      "mounted again, the renamed file's first bookmark": "error: notFound",
    ],
  ]

  @Test("each case on each filesystem", .timeLimit(.minutes(2)), arguments: LabFilesystem.allCases)
  func matrix(_ filesystem: LabFilesystem) async throws {
    let started = Date()
    guard
      let rows = try await FilesystemLab.inNamespace(
        "the \(filesystem.rawValue) matrix",
        { lab in
          try Self.measure(filesystem, in: lab)
        })
    else { return }
    print(
      "\(filesystem.rawValue) matrix: \(rows.count) cells in \(Int(Date().timeIntervalSince(started) * 1000)) ms"
    )
    for (operation, result) in rows {
      FilesystemTable.record("matrix", filesystem.rawValue, operation, result)
    }
    let measured = Dictionary(rows, uniquingKeysWith: { first, _ in first })
    for (operation, promised) in Self.expected {
      let wanted = Self.exceptions[filesystem]?[operation] ?? promised
      #expect(measured[operation] == wanted, "\(filesystem.rawValue): \(operation)")
    }
  }

  /// Runs every case on a fresh filesystem of `kind`; returns (operation, result) rows in
  /// order.
  static func measure(_ kind: LabFilesystem, in lab: FilesystemLab) throws -> [(String, String)] {
    let scratch = lab.scratch
    let m = try lab.mount(kind)
    var rows: [(String, String)] = []
    func row(_ operation: String, _ result: String) { rows.append((operation, result)) }

    let escrow = KeyEscrow(folder: scratch.path("state/docbm"))
    let service = BookmarkService(escrow: escrow)
    let root = m.description
    func path(_ relative: String) -> FilePath { FilePath(root + "/" + relative) }
    @discardableResult
    func file(_ relative: String, _ contents: String = "contents") throws -> FilePath {
      try scratch.file(bytes: path(relative), contents)
    }
    func folder(_ relative: String) throws -> FilePath {
      try scratch.makeFolder(path(relative))
      return path(relative)
    }

    let documentPath = try file("project/board.doc", "board")
    let document = service.documents(anchoredOn: documentPath)
    let cat = try file("project/images/cat.png", "cat")
    let dog = try file("project/images/dog.png", "dog")
    let bird = try file("project/drafts/bird.png", "bird")
    let fish = try file("project/images/fish.png", "fish")
    let mouse = try file("project/images/mouse.png", "mouse")
    let sources = try folder("project/sources")
    try file("project/sources/main.swift", "code")

    // Identity: what this filesystem lets a bookmark record.
    let first = Result { () throws(DocbmError) in try document.makeBookmark(to: cat) }
    row("bookmark a file", first.map { _ in "made" }.description(orError: true))
    let folderBookmark = Result { () throws(DocbmError) in try document.makeBookmark(to: sources) }
    row("bookmark a folder", folderBookmark.map { _ in "made" }.description(orError: true))
    guard case .success(let catBookmark) = first, case .success(let sourcesBookmark) = folderBookmark else {
      return rows
    }
    let dogBookmark = try document.makeBookmark(to: dog)
    let birdBookmark = try document.makeBookmark(to: bird)
    let fishBookmark = try document.makeBookmark(to: fish)
    let mouseBookmark = try document.makeBookmark(to: mouse)
    if case .success(let resolution) = document.outcome(catBookmark) {
      let identity = resolution.recorded.identity
      var facts: [String] = []
      if let handle = identity.fileHandle {
        let fuse = (try? FileSystemIdentity.of(path: cat))?.isFUSE == true
        facts.append(
          "file handle (\(handle.bytes.count) bytes\(fuse ? ", a FUSE node ID: not identity" : ""))")
      }
      if identity.birthTime != nil { facts.append("birth time") }
      if identity.generation != nil { facts.append("generation") }
      if resolution.recorded.volume.filesystemID.map({ $0 != 0 }) == true { facts.append("f_fsid") }
      row("identity recorded", (["inode"] + facts).joined(separator: ", "))
    }
    row("unmoved", describe(document.outcome(catBookmark), expecting: cat))

    let renamed = path("project/images/cat-renamed.png")
    try scratch.move(cat, renamed)
    row("renamed", describe(document.outcome(catBookmark), expecting: renamed))

    let away = path("project/archive/2024/dog.png")
    try scratch.move(dog, away)
    row("moved two folders away", describe(document.outcome(dogBookmark), expecting: away))

    let renamedParent = path("project/sketches")
    try scratch.move(path("project/drafts"), renamedParent)
    row(
      "parent folder renamed",
      describe(document.outcome(birdBookmark), expecting: path("project/sketches/bird.png")))

    let renamedSources = path("project/code")
    try scratch.move(sources, renamedSources)
    row("folder renamed", describe(document.outcome(sourcesBookmark), expecting: renamedSources))

    try scratch.replaceAtomically(fish, with: "another fish")
    row("replaced by an atomic save", describe(document.outcome(fishBookmark), expecting: fish))

    try scratch.remove(mouse)
    row("deleted", describe(document.outcome(mouseBookmark), expecting: mouse))

    // The safe save: key, another attribute and the mode survive, the bookmark resolves.
    try ExtendedAttributes.set(
      "user.color", to: Array("blue".utf8), on: .path(documentPath, followSymlinks: false))
    chmod(documentPath.description, 0o640)
    let fingerprint = try document.keyFingerprint()
    let saved = Result { () throws(DocbmError) in
      try document.replaceDocument(with: Data("board, saved".utf8))
    }
    if case .failure(let error) = saved {
      row("saved with replaceDocument", "error: \(error.code.rawValue)")
    } else {
      var lost: [String] = []
      if try document.keyFingerprint() != fingerprint { lost.append("key") }
      let color = try ExtendedAttributes.value("user.color", of: .path(documentPath, followSymlinks: false))
      if color != Array("blue".utf8) { lost.append("attributes") }
      if try FileStatus.of(documentPath, followSymlinks: false).permissions != 0o640 { lost.append("mode") }
      if try String(contentsOfFile: documentPath.description, encoding: .utf8) != "board, saved" {
        lost.append("contents")
      }
      let resolves = (try? document.resolve(catBookmark).path) == renamed
      row(
        "saved with replaceDocument",
        (lost.isEmpty ? "key, attributes and mode kept" : "lost: " + lost.joined(separator: ", "))
          + (resolves ? "; bookmark resolves" : "; bookmark does not resolve"))
    }

    // A folder document, swapped whole.
    let package = try folder("project/Board.pkg")
    try file("project/Board.pkg/old.txt", "old")
    let folderDocument = service.documents(anchoredOn: package)
    _ = try folderDocument.makeBookmark(to: try file("project/Board.pkg/assets/a.png", "png"))
    let packageFingerprint = try folderDocument.keyFingerprint()
    let folderSaved = Result { () throws(DocbmError) in
      try folderDocument.replaceDocument { url in
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        try Data("new".utf8).write(to: url.appendingPathComponent("new.txt"))
      }
    }
    if case .failure(let error) = folderSaved {
      let leftovers = try FileManager.default.contentsOfDirectory(atPath: path("project").description).filter
      {
        $0.contains(".docbm-save-")
      }
      var damage: [String] = []
      if !FileManager.default.fileExists(atPath: path("project/Board.pkg/old.txt").description) {
        damage.append("contents changed")
      }
      if (try? folderDocument.keyFingerprint()) != packageFingerprint { damage.append("key lost") }
      if !leftovers.isEmpty { damage.append("left: \(leftovers.joined(separator: ", "))") }
      row(
        "folder document saved",
        "error: \(error.code.rawValue); document "
          + (damage.isEmpty ? "intact" : damage.joined(separator: "; ")))
    } else {
      let swapped = FileManager.default.fileExists(atPath: path("project/Board.pkg/new.txt").description)
      let kept = try folderDocument.keyFingerprint() == packageFingerprint
      row(
        "folder document saved",
        (swapped ? "swapped whole (RENAME_EXCHANGE)" : "not swapped") + (kept ? "; key kept" : "; key lost"))
    }

    // Check, lose the key, check, repair.
    let checker = DocumentChecker(escrow: escrow)
    try document.replaceDocument(with: Data("board \(catBookmark.text)".utf8))
    row("check", checker.check(documentPath).verdict.rawValue)
    _ = try ExtendedAttributes.remove(KeyAttribute.name, from: .path(documentPath, followSymlinks: false))
    row("check after the key was stripped", checker.check(documentPath).verdict.rawValue)
    let report = DocumentRepairer(escrow: escrow).repair(documentPath)
    row("repair", "\(report.action.rawValue); check: \(checker.check(documentPath).verdict.rawValue)")

    // Unmounted: a document outside this filesystem, a target on it.
    let outside = try scratch.file("outside.doc", "outside")
    let outsideDocument = service.documents(anchoredOn: outside)
    let volumeTarget = try file("on-volume.png", "v")
    let volumeBookmark = try outsideDocument.makeBookmark(to: volumeTarget)
    try lab.unmount(m)
    row("unmounted", describe(outsideDocument.outcome(volumeBookmark), expecting: volumeTarget))
    // Mounted again: file handles and node IDs may be new (FUSE), the files are the same.
    try lab.remount(kind)
    row("mounted again", describe(outsideDocument.outcome(volumeBookmark), expecting: volumeTarget))
    row(
      "mounted again, the renamed file's first bookmark",
      describe(document.outcome(catBookmark), expecting: renamed))
    return rows
  }
}

extension Result where Success == String, Failure == DocbmError {
  /// The success's text, or `error: <code>`.
  func description(orError: Bool) -> String {
    switch self {
    case .success(let text): text
    case .failure(let error): "error: \(error.code.rawValue)"
    }
  }
}
