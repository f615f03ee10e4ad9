import DocbmSystem
import DocbmTestSupport
import Foundation
import Glibc
import Testing

@testable import DocumentBookmarks

/// overlayfs as containers use it: files of a lower layer (an image) seen through a merged
/// folder, copied up to the upper layer by their first write.
@Suite("overlayfs copy-up")
struct OverlayCopyUpTests {
  @Test("documents and targets of a lower layer, before and after copy-up", .timeLimit(.minutes(2)))
  func copyUp() async throws {
    guard
      let rows = try await FilesystemLab.inNamespace(
        "the overlayfs copy-up test",
        { lab in
          try Self.measure(in: lab)
        })
    else { return }
    for (operation, result) in rows { FilesystemTable.record("overlayfs", "overlayfs", operation, result) }
    let measured = Dictionary(rows, uniquingKeysWith: { first, _ in first })
    #expect(
      measured["lower-layer document saved (copy-up)"] == "key, attributes and mode kept; bookmark resolves")
    #expect(
      measured["document written in place first, then saved"]
        == "key, attributes and mode kept; bookmark resolves")
    #expect(measured["lower-layer target, not copied up"] == "resolved")
    #expect(measured["lower-layer target after copy-up"] == "resolved")
    #expect(measured["lower-layer target copied up, then renamed"] == "stale: targetMoved")
    #expect(measured["lower-layer target deleted in the container"] == "error: missing")
    #expect(measured["lower-layer folder document saved"] == "error: unsupportedFilesystem; document intact")
  }

  static func measure(in lab: FilesystemLab) throws -> [(String, String)] {
    let scratch = lab.scratch
    let layers = try scratch.folder("layers-copy-up")
    let lower = FilePath(layers.description + "/lower")
    try lab.sh("mkdir -p '\(layers)/lower' '\(layers)/upper' '\(layers)/work'")
    // The image: two documents with keys and a colour, a target, a folder document.
    let service = BookmarkService(escrow: nil)
    var fingerprints: [String: KeyFingerprint?] = [:]
    for name in ["board.doc", "notes.doc"] {
      let path = try scratch.file(bytes: FilePath(lower.description + "/" + name), "original \(name)")
      let document = service.documents(anchoredOn: path)
      _ = try document.makeBookmark(to: path)
      fingerprints[name] = try document.keyFingerprint()
      try ExtendedAttributes.set("user.color", to: Array("blue".utf8), on: .path(path, followSymlinks: false))
      chmod(path.description, 0o640)
    }
    try scratch.file(bytes: FilePath(lower.description + "/images/cat.png"), "cat")
    try scratch.file(bytes: FilePath(lower.description + "/images/dog.png"), "dog")
    try scratch.file(bytes: FilePath(lower.description + "/images/owl.png"), "owl")
    let lowerPackage = FilePath(lower.description + "/Board.pkg")
    try scratch.file(bytes: FilePath(lowerPackage.description + "/old.txt"), "old")
    _ = try service.documents(anchoredOn: lowerPackage).makeBookmark(to: lowerPackage)
    let packageFingerprint = try service.documents(anchoredOn: lowerPackage).keyFingerprint()

    let m = try scratch.folder("merged")
    try lab.mountOverlay(layers: layers, at: m)
    func path(_ relative: String) -> FilePath { FilePath(m.description + "/" + relative) }
    var rows: [(String, String)] = []

    let cat = path("images/cat.png")
    let dog = path("images/dog.png")
    let board = service.documents(anchoredOn: path("board.doc"))
    let catBookmark = try board.makeBookmark(to: cat)
    let dogBookmark = try board.makeBookmark(to: dog)
    let owl = path("images/owl.png")
    let owlBookmark = try board.makeBookmark(to: owl)

    func saved(_ name: String, _ document: AnchoredDocument) -> String {
      let result = Result { () throws(DocbmError) in try document.replaceDocument(with: Data("saved".utf8)) }
      if case .failure(let error) = result { return "error: \(error.code.rawValue)" }
      var lost: [String] = []
      if (try? document.keyFingerprint()) != fingerprints[name] { lost.append("key") }
      let color = try? ExtendedAttributes.value("user.color", of: .path(document.path, followSymlinks: false))
      if color != Array("blue".utf8) { lost.append("attributes") }
      if (try? FileStatus.of(document.path, followSymlinks: false).permissions) != 0o640 {
        lost.append("mode")
      }
      let resolves = (try? document.resolve(catBookmark).path) == cat || name != "board.doc"
      return (lost.isEmpty ? "key, attributes and mode kept" : "lost: " + lost.joined(separator: ", "))
        + (resolves ? "; bookmark resolves" : "; bookmark does not resolve")
    }
    rows.append(("lower-layer document saved (copy-up)", saved("board.doc", board)))

    // Copied up by an in-place write first (an editor that writes in place), then saved.
    let notesPath = path("notes.doc")
    let fd = open(notesPath.description, O_WRONLY | O_APPEND)
    _ = write(fd, "more", 4)
    close(fd)
    rows.append(
      (
        "document written in place first, then saved",
        saved("notes.doc", service.documents(anchoredOn: notesPath))
      ))

    rows.append(("lower-layer target, not copied up", describe(board.outcome(catBookmark), expecting: cat)))
    // The first write copies the file up: a new inode in the upper layer.
    let catFD = open(cat.description, O_WRONLY | O_APPEND)
    _ = write(catFD, "!", 1)
    close(catFD)
    rows.append(("lower-layer target after copy-up", describe(board.outcome(catBookmark), expecting: cat)))

    let dogFD = open(dog.description, O_WRONLY | O_APPEND)
    _ = write(dogFD, "!", 1)
    close(dogFD)
    let renamedDog = path("images/dog-renamed.png")
    try scratch.move(dog, renamedDog)
    rows.append(
      (
        "lower-layer target copied up, then renamed",
        describe(board.outcome(dogBookmark), expecting: renamedDog)
      ))

    // Deleted in the container (a whiteout): the lower layer still holds the file, with the
    // same inode and birth time, but outside the overlay: it is not the target any more.
    try scratch.remove(owl)
    rows.append(
      ("lower-layer target deleted in the container", describe(board.outcome(owlBookmark), expecting: owl)))

    // A folder document of the lower layer: overlayfs cannot exchange it.
    let package = service.documents(anchoredOn: path("Board.pkg"))
    let result = Result { () throws(DocbmError) in
      try package.replaceDocument { url in
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        try Data("new".utf8).write(to: url.appendingPathComponent("new.txt"))
      }
    }
    switch result {
    case .success:
      let kept = (try? package.keyFingerprint()) == packageFingerprint
      rows.append(
        (
          "lower-layer folder document saved",
          "swapped whole (RENAME_EXCHANGE)" + (kept ? "; key kept" : "; key lost")
        ))
    case .failure(let error):
      let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: m.description))?.filter {
        $0.contains(".docbm-save-")
      }
      let intact =
        FileManager.default.fileExists(atPath: path("Board.pkg/old.txt").description)
        && (try? package.keyFingerprint()) == packageFingerprint && leftovers == []
      rows.append(
        (
          "lower-layer folder document saved",
          "error: \(error.code.rawValue); document \(intact ? "intact" : "damaged")"
        ))
    }
    return rows
  }
}
