import DocbmSystem
import DocbmTestSupport
import DocumentBookmarks
import DocumentWatching
import Foundation
import Glibc
import Testing

/// The renames a watcher sees are kept in the escrow's folder, and resolution finds a
/// target moved anywhere under a watched folder there, without listing a folder, even after
/// the watcher stopped.
@Suite("Watching documents: the renames it saw")
struct WatchMoveJournalTests {
  @Test("a target moved far under a watched folder resolves with no folder listed, after the watcher stopped")
  func movedFarResolvesWithoutSearch() throws {
    let setting = try WatchScratch()
    let document = try setting.scratch.file("docs/project/board.json", "{}")
    let target = try setting.scratch.file("docs/project/img/cat.png", "cat")
    let inFolder = try setting.scratch.file("docs/project/img/sub/dog.png", "dog")
    // Only the nearby search, which cannot reach where the targets go: what finds them is
    // the journal alone.
    let service = BookmarkService(searchBudget: .nearby, escrow: setting.escrow)
    let anchored = service.documents(anchoredOn: document)
    let bookmark = try anchored.makeBookmark(to: target)
    let inFolderBookmark = try anchored.makeBookmark(to: inFolder)
    // The folders they go to exist before the watcher starts: a folder made just before a
    // rename into it may not be watched yet (inotify watches each folder on its own).
    _ = try setting.scratch.folder("docs/archive/2019/a/b/c/d/e/f")
    _ = try setting.scratch.folder("docs/other/x/y/z/w/v")
    let recorder = WatchRecorder(
      try DocumentWatcher(
        watching: [setting.folder], options: WatchOptions(escrow: setting.escrow, repairs: false)))
    try recorder.start()
    let far = setting.scratch.path("docs/archive/2019/a/b/c/d/e/f/kitten.png")
    let folderMoved = setting.scratch.path("docs/other/x/y/z/w/v/old-sub")
    // Renamed in two steps: the journal follows the chain.
    #expect(rename(target.description, setting.scratch.path("docs/project/img/renamed.png").description) == 0)
    #expect(rename(setting.scratch.path("docs/project/img/renamed.png").description, far.description) == 0)
    #expect(rename(setting.scratch.path("docs/project/img/sub").description, folderMoved.description) == 0)
    let journal = setting.escrow.folder.appending("moves").description
    #expect(
      waitUntil {
        let text = (try? String(contentsOfFile: journal, encoding: .utf8)) ?? ""
        return text.contains("kitten.png") && text.contains("old-sub")
      })
    recorder.watcher.stop()
    var mode = stat()
    #expect(stat(journal, &mode) == 0 && mode.st_mode & 0o777 == 0o600)

    let counter = DirectoryStream.ReadCounter()
    let (first, second) = try DirectoryStream.$readCounter.withValue(counter) {
      (try anchored.resolve(bookmark), try anchored.resolve(inFolderBookmark))
    }
    #expect(first.path == far)
    #expect(first.staleReasons == [.targetMoved])
    #expect(second.path == folderMoved.appending("dog.png"))
    #expect(counter.count == 0, "folders listed: \(counter.count)")
  }

  @Test("a planted line never leads to another file: the identity decides")
  func plantedLine() throws {
    let setting = try WatchScratch()
    let (anchored, target, bookmark) = try WatchMoveJournalTests.bookmarkedTarget(in: setting)
    let decoy = try setting.scratch.file("elsewhere/far/decoy.png", "cat")
    try setting.scratch.remove(target)
    var status = stat()
    stat(decoy.description, &status)
    // A line naming the target's inode number and old path, leading to another file.
    try "\(status.st_ino) - \(target) \(decoy)\n".write(
      toFile: setting.escrow.folder.appending("moves").description, atomically: false, encoding: .utf8)
    chmod(setting.escrow.folder.appending("moves").description, 0o600)
    let error = #expect(throws: DocbmError.self) { try anchored.resolve(bookmark) }
    #expect(error?.code == .notFoundNearby)
  }

  @Test("a journal that changed since the last resolve is read again: appended to, or replaced")
  func changedJournalIsReadAgain() throws {
    let setting = try WatchScratch()
    let (anchored, target, bookmark) = try WatchMoveJournalTests.bookmarkedTarget(in: setting)
    var status = stat()
    stat(target.description, &status)
    let journal = setting.escrow.folder.appending("moves").description
    let first = try setting.scratch.folder("far/one")
    let second = try setting.scratch.folder("far/two")
    let third = try setting.scratch.folder("far/three")

    // Each step moves the target out of the nearby reach and records only that rename.
    #expect(rename(target.description, first.appending("cat.png").description) == 0)
    try "\(status.st_ino) - \(target) \(first.appending("cat.png"))\n".write(
      toFile: journal, atomically: false, encoding: .utf8)
    chmod(journal, 0o600)
    #expect(try anchored.resolve(bookmark).path == first.appending("cat.png"))

    // Appended to in place (as a watcher does).
    #expect(rename(first.appending("cat.png").description, second.appending("cat.png").description) == 0)
    let handle = try #require(FileHandle(forWritingAtPath: journal))
    handle.seekToEndOfFile()
    handle.write(
      Data("\(status.st_ino) - \(first.appending("cat.png")) \(second.appending("cat.png"))\n".utf8))
    try handle.close()
    #expect(try anchored.resolve(bookmark).path == second.appending("cat.png"))

    // Replaced by rename (as a compaction does).
    #expect(rename(second.appending("cat.png").description, third.appending("cat.png").description) == 0)
    let replacement = journal + ".new"
    try "\(status.st_ino) - \(target) \(third.appending("cat.png"))\n".write(
      toFile: replacement, atomically: false, encoding: .utf8)
    chmod(replacement, 0o600)
    #expect(rename(replacement, journal) == 0)
    #expect(try anchored.resolve(bookmark).path == third.appending("cat.png"))
  }

  /// A document with a bookmark to `docs/img/cat.png`, resolved with the nearby search only
  /// (which cannot reach where these tests move it).
  private static func bookmarkedTarget(in setting: WatchScratch) throws -> (
    anchored: AnchoredDocument, target: FilePath, bookmark: Bookmark
  ) {
    let document = try setting.scratch.file("docs/board.json", "{}")
    let target = try setting.scratch.file("docs/img/cat.png", "cat")
    let anchored = BookmarkService(searchBudget: .nearby, escrow: setting.escrow).documents(
      anchoredOn: document)
    return (anchored, target, try anchored.makeBookmark(to: target))
  }
}
