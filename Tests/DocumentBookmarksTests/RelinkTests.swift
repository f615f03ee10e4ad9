import DocbmTestSupport
import Foundation
import Glibc
import Testing

@testable import DocumentBookmarks

@Suite("Relinking a moved tree")
struct RelinkTests {
  let scratch: Scratch
  let documentPath: FilePath
  let document: AnchoredDocument

  init() throws {
    scratch = try Scratch.enclosed()
    documentPath = try scratch.file("project/board.json", "{}")
    document = BookmarkService(searchBudget: .nearby, escrow: nil).documents(anchoredOn: documentPath)
  }

  @Test("on the same filesystem the very file is relinked; a copy or another file at its place is not")
  func sameFilesystem() throws {
    let moved = try scratch.file("library/photos/a.png", "a")
    let copied = try scratch.file("library/photos/b.png", "b")
    let replaced = try scratch.file("library/photos/c.png", "c")
    let outside = try scratch.file("elsewhere/d.png", "d")
    let bookmarks = try [moved, copied, replaced, outside].map { try document.makeBookmark(to: $0) }
    try scratch.move(scratch.path("library"), scratch.path("archive/library"))
    // b.png copied in place of itself (a new inode), c.png replaced by another file.
    let bCopy = scratch.path("archive/library/photos/b.png")
    try scratch.move(bCopy, scratch.path("archive/b-original.png"))
    #expect(copyfile(scratch.path("archive/b-original.png"), bCopy))
    try scratch.replaceAtomically(scratch.path("archive/library/photos/c.png"), with: "another c")
    let results = document.relink(
      bookmarks, from: scratch.path("library"), to: scratch.path("archive/library"))
    guard case .relinked(let resolution) = results[0].outcome else {
      Issue.record("\(results[0].outcome)")
      return
    }
    #expect(resolution.path == scratch.path("archive/library/photos/a.png"))
    #expect(resolution.staleReasons == [.relinked])
    let refreshed = try #require(results[0].refreshed)
    #expect(try document.resolve(refreshed).path == resolution.path)
    #expect(!(try document.resolve(refreshed).isStale))
    for index in [1, 2] {
      guard case .notTheTarget(let why) = results[index].outcome else {
        Issue.record("\(index): \(results[index].outcome)")
        continue
      }
      #expect(why.contains("another identity"), "\(why)")
    }
    #expect(results[3].outcome == .notUnderSource)
    #expect(results[3].candidate == nil)
  }

  @Test("nothing at the place is said so; a link there is never taken; a forged bookmark fails")
  func refusals() throws {
    let target = try scratch.file("library/a.png", "a")
    let other = try scratch.file("library/b.png", "b")
    let bookmarks = try [target, other].map { try document.makeBookmark(to: $0) }
    try scratch.move(scratch.path("library"), scratch.path("moved"))
    try scratch.remove(scratch.path("moved/a.png"))
    try scratch.move(scratch.path("moved/b.png"), scratch.path("real-b.png"))
    try scratch.symlink(scratch.path("real-b.png").description, at: scratch.path("moved/b.png"))
    var forged = bookmarks[0].bytes
    forged[forged.count - 1] ^= 1
    let results = document.relink(
      bookmarks + [try Bookmark(bytes: forged)], from: scratch.path("library"), to: scratch.path("moved"))
    #expect(results[0].outcome == .nothingThere)
    guard case .notTheTarget(let why) = results[1].outcome else {
      Issue.record("\(results[1].outcome)")
      return
    }
    #expect(why.contains("symbolic link"))
    guard case .failed(let error) = results[2].outcome else {
      Issue.record("\(results[2].outcome)")
      return
    }
    #expect(error.code == .tampered)
  }

  /// Copies `source` to `destination` keeping its modification time, as `cp -p` does.
  private func copyfile(_ source: FilePath, _ destination: FilePath) -> Bool {
    run("/bin/cp", ["-p", source.description, destination.description]).status == 0
  }
}
