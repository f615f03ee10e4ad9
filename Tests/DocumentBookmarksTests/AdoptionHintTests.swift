import DocbmSystem
import DocbmTestSupport
import Foundation
import Glibc
import Testing

@testable import DocumentBookmarks

/// A check's advice offers adoption (``RepairRemedy``) when the list shown before adopting
/// (``AnchoredDocument/adoptionCandidates()``) would give a bookmark a target, and only then.
@Suite("The advice to adopt and the adoption list agree")
struct AdoptionHintTests {
  @Test(
    "a keyless document's bookmark names a target exactly when the list gives it one",
    arguments: [
      "file", "folder", "gone", "dangling link", "link to a file outside", "link to a folder", "fifo",
    ])
  func agree(situation: String) throws {
    let scratch = try Scratch()
    let board = try scratch.file("project/board.json", "{}")
    let document = BookmarkService(escrow: nil).documents(anchoredOn: board)
    let target = scratch.path("project/images/cat.png")
    let folderTarget = situation == "folder"
    let made: FilePath =
      folderTarget ? try scratch.folder("project/images/cat.png") : try scratch.file("project/images/cat.png")
    let bookmark = try document.makeBookmark(to: made)
    // A plain save drops the key: the document holds a bookmark nothing verifies now.
    try scratch.replaceAtomically(board, with: "{\"cat\": \"\(bookmark.text)\"}")
    switch situation {
    case "gone":
      try scratch.remove(target)
    case "dangling link":
      try scratch.remove(target)
      try scratch.symlink("nowhere.png", at: target)
    case "link to a file outside":
      try scratch.remove(target)
      try scratch.symlink(try scratch.file("elsewhere/secret.txt").description, at: target)
    case "link to a folder":
      try scratch.remove(target)
      try scratch.symlink(try scratch.folder("elsewhere/album").description, at: target)
    case "fifo":
      try scratch.remove(target)
      #expect(mkfifo(target.description, 0o600) == 0)
    default:
      break
    }
    let listed = try document.adoptionCandidates().contains { $0.target != nil }
    #expect(AnchoredDocument.hasAdoptionTargets(keyless: board) == listed, "\(situation)")
    #expect(listed == ["file", "folder", "link to a file outside", "link to a folder"].contains(situation))
  }
}
