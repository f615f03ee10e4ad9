import DocbmTestSupport
import DocumentBookmarks
import Foundation
import Glibc
import Testing

/// `docbm save` racing `docbm bookmark` on a document without a key, in two processes: the
/// bookmark printed must verify afterwards, and its key must be the one escrowed.
@Suite("docbm save racing docbm bookmark")
struct KeyRaceEndToEndTests {
  let docbm = Capabilities.docbmExecutable

  /// Starts `docbm` with `arguments` without waiting for it.
  private func start(_ arguments: [String], escrow: String) throws -> (Process, Pipe) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: docbm)
    process.arguments = arguments
    process.environment = childEnvironment(["DOCBM_ESCROW_DIR": escrow])
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    return (process, output)
  }

  @Test("racing rounds lose no key (DOCBM_RACE_ROUNDS sets how many; 150 by default)")
  func racingRounds() throws {
    let scratch = try Scratch()
    let escrowPath = scratch.path("escrow")
    let escrow = KeyEscrow(folder: escrowPath)
    let source = try scratch.file("new.json", String(repeating: "x", count: 4 << 20))
    let target = try scratch.file("t.png")
    let rounds = Int(ProcessInfo.processInfo.environment["DOCBM_RACE_ROUNDS"] ?? "") ?? 150
    var lost = 0
    var notEscrowed = 0
    for round in 0..<rounds {
      let document = try scratch.file("doc\(round).json", "{}")
      let (save, _) = try start(
        ["save", "--from", source.description, document.description], escrow: escrowPath.description)
      let (bookmark, output) = try start(
        ["bookmark", document.description, target.description], escrow: escrowPath.description)
      let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      save.waitUntilExit()
      bookmark.waitUntilExit()
      try #require(save.terminationStatus == 0 && bookmark.terminationStatus == 0, "round \(round)")
      let made = try Bookmark(text: text)
      do {
        _ = try BookmarkService(escrow: nil).documents(anchoredOn: document).resolve(made)
      } catch {
        lost += 1
      }
      if escrow.entry(for: made.keyFingerprint)?.documents.contains(where: { $0.path == document }) != true {
        notEscrowed += 1
      }
      try scratch.remove(document)
    }
    #expect(lost == 0, "\(lost) of \(rounds) printed bookmarks never verified")
    #expect(
      notEscrowed == 0, "\(notEscrowed) of \(rounds) signing keys were not escrowed with their document")
  }
}
