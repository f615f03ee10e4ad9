import DocbmSystem
import DocbmTestSupport
import Foundation
import Glibc
import Testing

@testable import DocumentBookmarks

/// Saves in a folder where someone else may write (a shared, sticky folder): entries planted
/// at the names a save uses must neither stop the save nor be written through.
@Suite("Saves beside planted entries")
struct PlantedTemporaryTests {
  let scratch: Scratch
  let documentPath: FilePath
  let document: AnchoredDocument

  init() throws {
    scratch = try Scratch()
    documentPath = try scratch.file("shared/board.json", "{}")
    document = BookmarkService(escrow: nil).documents(anchoredOn: documentPath)
    _ = try document.makeBookmark(to: try scratch.file("shared/cat.png"))
  }

  private func contents(_ path: FilePath) throws -> String {
    String(decoding: try readWholeFile(path), as: UTF8.self)
  }

  @Test("slots taken by planted files and links do not stop a save, and are left as they are")
  func plantedSlots() throws {
    let victim = try scratch.file("victim.txt", "do not touch")
    let name = Array("board.json".utf8)
    // More planted slots than a save tries in order; the first is a link to a victim file.
    let slots = (0..<(TemporaryVersion.probeLimit + 4)).map {
      scratch.path("shared").appending(TemporaryVersion.slotName($0, for: name))
    }
    try scratch.symlink(victim.description, at: slots[0])
    for slot in slots.dropFirst() { try scratch.write("planted", to: slot) }

    try document.replaceDocument(with: Data("{\"saved\": 1}".utf8))
    try document.replaceDocument { url in try Data("{\"saved\": 2}".utf8).write(to: url) }
    #expect(try contents(documentPath) == "{\"saved\": 2}")
    #expect(try document.keyFingerprint() != nil)
    #expect(try contents(victim) == "do not touch")
    for slot in slots.dropFirst() { #expect(try contents(slot) == "planted") }
  }

  @Test("a writer never writes through a link planted where it could be told to write")
  func writerNameIsUnpredictable() throws {
    let victim = try scratch.file("victim.txt", "do not touch")
    let name = Array("board.json".utf8)
    // Every name a writer could be handed without a random part, for the first slots.
    for slot in 0..<TemporaryVersion.probeLimit {
      let predictable =
        TemporaryVersion.prefix(for: name) + Array(String(slot).utf8) + TemporaryVersion.writerMark
        + Array(".json".utf8)
      try scratch.symlink(victim.description, at: scratch.path("shared").appending(predictable))
    }
    var handed: URL?
    // A careless writer: Data.write(to:) follows links.
    try document.replaceDocument { url in
      handed = url
      try Data("{\"saved\": true}".utf8).write(to: url)
    }
    #expect(try contents(victim) == "do not touch")
    #expect(try contents(documentPath) == "{\"saved\": true}")
    let last = try #require(handed?.lastPathComponent)
    #expect(
      TemporaryVersion.isToken(
        Array(last.utf8).dropLast(".json".utf8.count).suffix(TemporaryVersion.tokenLength)))
  }
}
