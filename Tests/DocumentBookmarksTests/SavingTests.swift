import DocbmSystem
import DocbmTestSupport
import Foundation
import Glibc
import Testing

@testable import DocumentBookmarks

@Suite("Saving with replaceDocument")
struct SavingTests {
  let scratch: Scratch
  let documentPath: FilePath
  let document: AnchoredDocument
  let bookmark: Bookmark

  /// A document with a key, a bookmark to a sibling, another user attribute and mode 0640.
  init() throws {
    scratch = try Scratch()
    documentPath = try scratch.file("project/board.json", "old contents")
    document = BookmarkService(escrow: nil).documents(anchoredOn: documentPath)
    bookmark = try document.makeBookmark(to: try scratch.file("project/cat.png"))
    try ExtendedAttributes.set(
      "user.color", to: Array("blue".utf8), on: .path(documentPath, followSymlinks: false))
    chmod(documentPath.description, 0o640)
  }

  private func contents(_ path: FilePath) throws -> String {
    String(decoding: try readWholeFile(path), as: UTF8.self)
  }

  private func leftovers() throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: scratch.path("project").description)
      .filter { $0.contains(".docbm-save-") }
  }

  @Test("keeps the key, the other attributes and the mode; bookmarks still resolve")
  func keepsEverything() throws {
    let fingerprint = try document.keyFingerprint()
    let before = try FileStatus.of(documentPath, followSymlinks: false)
    try document.replaceDocument(with: Data("new contents".utf8))
    let after = try FileStatus.of(documentPath, followSymlinks: false)
    #expect(try contents(documentPath) == "new contents")
    #expect(after.inode != before.inode)
    #expect(after.permissions == 0o640)
    #expect(after.owner == before.owner && after.group == before.group)
    #expect(try document.keyFingerprint() == fingerprint)
    #expect(
      try ExtendedAttributes.value("user.color", of: .path(documentPath, followSymlinks: false))
        == Array("blue".utf8))
    #expect(try document.resolve(bookmark).path == scratch.path("project/cat.png"))
    #expect(try leftovers().isEmpty)
  }

  @Test("the writer gets a fresh hidden name beside the document, with its extension")
  func writerURL() throws {
    var seen: URL?
    try document.replaceDocument { url in
      seen = url
      #expect(!FileManager.default.fileExists(atPath: url.path))
      try Data("x".utf8).write(to: url)
    }
    let url = try #require(seen)
    #expect(url.lastPathComponent.hasPrefix(".board.json.docbm-save-"))
    #expect(url.pathExtension == "json")
    #expect(url.deletingLastPathComponent().path == scratch.path("project").description)
    #expect(!FileManager.default.fileExists(atPath: url.path))
  }

  @Test("a first save gets the usual mode, not the private mode it was written with")
  func firstSaveMode() throws {
    let fresh = BookmarkService(escrow: nil).documents(anchoredOn: scratch.path("project/fresh.txt"))
    try fresh.replaceDocument(with: Data("x".utf8))
    let mode = try FileStatus.of(scratch.path("project/fresh.txt"), followSymlinks: false).permissions
    #expect(mode == 0o666 & ~FileModeCreationMask.current)
  }

  @Test("writers that save with Foundation's own atomic write work too")
  func atomicWriterInside() throws {
    try document.replaceDocument { url in try Data("via atomic".utf8).write(to: url, options: .atomic) }
    #expect(try contents(documentPath) == "via atomic")
    #expect(try document.resolve(bookmark).isStale == false)
    #expect(try FileStatus.of(documentPath, followSymlinks: false).permissions == 0o640)
    #expect(try leftovers().isEmpty)
  }

  @Test("a writer that throws leaves the document intact, with its key, and no temporary")
  func writerThrows() throws {
    struct Refusal: Error {}
    let error = #expect(throws: DocbmError.self) {
      try document.replaceDocument { url in
        try Data("half".utf8).write(to: url)
        throw Refusal()
      }
    }
    #expect(error?.code == .writerFailed)
    #expect(error?.step == .write)
    #expect(error?.message.contains("Refusal") == true)
    #expect(try contents(documentPath) == "old contents")
    #expect(try document.resolve(bookmark).isStale == false)
    #expect(try leftovers().isEmpty)
  }

  @Test("a writer that writes nothing is an error, not an empty document")
  func writesNothing() throws {
    let error = #expect(throws: DocbmError.self) { try document.replaceDocument { _ in } }
    #expect(error?.code == .nothingWritten)
    #expect(try contents(documentPath) == "old contents")
    // An empty document is fine when it is what the writer wrote.
    try document.replaceDocument(with: Data())
    #expect(try contents(documentPath) == "")
    #expect(try document.keyFingerprint() != nil)
  }

  @Test(
    "a failure injected at each step before the rename leaves the original intact",
    arguments: [
      SaveStep.prepareTemporary, .write, .changeOwner, .copyAttributes, .changeMode, .copyACL, .syncFile,
      .swap,
    ])
  func injectedFaults(step: SaveStep) throws {
    // Make the owner differ so that the owner step runs.
    if step == .changeOwner { chown(documentPath.description, 0, 65534) }
    let fault = SaveFaults.Fault(step: step, errno: step == .syncFile ? EIO : ENOSPC)
    let error = SaveFaults.$injected.withValue(fault) {
      #expect(throws: DocbmError.self) { try document.replaceDocument(with: Data("new".utf8)) }
    }
    #expect(error?.step == step)
    #expect(error?.code == (step == .syncFile ? .ioError : .noSpace))
    #expect(try contents(documentPath) == "old contents")
    #expect(try document.resolve(bookmark).isStale == false)
    #expect(try leftovers().isEmpty)
  }

  @Test("a failed folder flush reports that the new version is in place")
  func folderSyncFailure() throws {
    let error = SaveFaults.$injected.withValue(SaveFaults.Fault(step: .syncFolder, errno: EIO)) {
      #expect(throws: DocbmError.self) { try document.replaceDocument(with: Data("new".utf8)) }
    }
    #expect(error?.step == .syncFolder)
    #expect(error?.message.contains("in place") == true)
    #expect(try contents(documentPath) == "new")
    #expect(try document.keyFingerprint() != nil)
  }

  @Test("a document that does not exist yet is created")
  func firstSave() throws {
    let fresh = BookmarkService(escrow: nil).documents(anchoredOn: scratch.path("project/new.json"))
    try fresh.replaceDocument(with: Data("{}".utf8))
    #expect(try contents(scratch.path("project/new.json")) == "{}")
    #expect(try fresh.keyFingerprint() == nil)
  }

  @Test("a symlinked document: the link stays, its target is replaced and keeps its key")
  func symlinkedDocument() throws {
    let link = scratch.path("link.json")
    try scratch.symlink("project/board.json", at: link)
    let viaLink = BookmarkService(escrow: nil).documents(anchoredOn: link)
    try viaLink.replaceDocument(with: Data("through the link".utf8))
    #expect(try FileStatus.of(link, followSymlinks: false).kind == .symbolicLink)
    #expect(try contents(documentPath) == "through the link")
    #expect(try document.resolve(bookmark).isStale == false)
  }

  @Test("hard links: refused by default, split when allowed")
  func hardLinks() throws {
    let second = scratch.path("project/second-name.json")
    #expect(link(documentPath.description, second.description) == 0)
    let error = #expect(throws: DocbmError.self) { try document.replaceDocument(with: Data("new".utf8)) }
    #expect(error?.code == .hardLinked)
    #expect(try contents(documentPath) == "old contents")
    try document.replaceDocument(with: Data("new".utf8), options: ReplaceOptions(hardLinks: .split))
    #expect(try contents(documentPath) == "new")
    #expect(try contents(second) == "old contents")
    #expect(try FileStatus.of(documentPath, followSymlinks: false).linkCount == 1)
  }

  @Test("a folder document is swapped whole and keeps the folder's key")
  func folderDocument() throws {
    let package = try scratch.folder("Project.pkg")
    try scratch.file("Project.pkg/old.txt")
    let folderDocument = BookmarkService(escrow: nil).documents(anchoredOn: package)
    let inside = try folderDocument.makeBookmark(to: try scratch.file("Project.pkg/assets/a.png"))
    try folderDocument.replaceDocument { url in
      try FileManager.default.createDirectory(
        at: url.appendingPathComponent("assets"), withIntermediateDirectories: true)
      #expect(url.deletingLastPathComponent().path == scratch.root.description)
      try Data("png".utf8).write(to: url.appendingPathComponent("assets/a.png"))
      try Data("new".utf8).write(to: url.appendingPathComponent("new.txt"))
    }
    #expect(FileManager.default.fileExists(atPath: scratch.path("Project.pkg/new.txt").description))
    #expect(!FileManager.default.fileExists(atPath: scratch.path("Project.pkg/old.txt").description))
    #expect(try folderDocument.keyFingerprint() == inside.keyFingerprint)
    // The asset is a new file at the same path: resolved by path.
    #expect(try folderDocument.resolve(inside).path == scratch.path("Project.pkg/assets/a.png"))
    let rest = try FileManager.default.contentsOfDirectory(atPath: scratch.root.description)
    #expect(!rest.contains { $0.contains(".docbm-save-") })
  }

  @Test("Save As carries the key; a copy for someone else carries none")
  func saveCopy() throws {
    let copyPath = scratch.path("elsewhere/board-copy.json")
    try scratch.folder("elsewhere")
    let copy = try document.saveCopy(to: copyPath, data: Data("copy".utf8))
    #expect(try copy.keyFingerprint() == document.keyFingerprint())
    #expect(try FileStatus.of(copyPath, followSymlinks: false).permissions == 0o640)
    #expect(try copy.resolve(bookmark).path == scratch.path("project/cat.png"))

    let forOthers = try document.saveCopy(
      to: scratch.path("elsewhere/shared.json"), key: .strip, data: Data("x".utf8))
    #expect(try forOthers.keyFingerprint() == nil)
    let error = #expect(throws: DocbmError.self) { try forOthers.resolve(bookmark) }
    #expect(error?.code == .keyMissing)
    #expect(
      try ExtendedAttributes.value(
        "user.color", of: .path(scratch.path("elsewhere/shared.json"), followSymlinks: false)) != nil)
  }

  @Test("leftovers of a crashed save are swept; a live save's file and a fresh one are not")
  func sweepsLeftovers() throws {
    let project = scratch.path("project")
    let name = Array("board.json".utf8)
    func age(_ path: FilePath, _ seconds: Int) {
      var times = [
        timespec(tv_sec: time(nil) - seconds, tv_nsec: 0), timespec(tv_sec: time(nil) - seconds, tv_nsec: 0),
      ]
      #expect(utimensat(AT_FDCWD, path.description, &times, AT_SYMLINK_NOFOLLOW) == 0)
    }
    let token = TemporaryVersion.newToken()
    func slot(_ number: Int, writer: Bool = false) -> FilePath {
      project.appending(
        writer
          ? TemporaryVersion.writerName(number, token: token, for: name)
          : TemporaryVersion.slotName(number, for: name))
    }
    // Slot 0: a crashed Data save. Slot 1: a live save. Slot 2: a save that has just begun.
    // Slot 3: a crashed save whose writer made a folder. And a leftover of an earlier
    // version of docbm, under a random name.
    try scratch.write("half", to: slot(0))
    age(slot(0), 3600)
    try scratch.write("being saved", to: slot(1))
    age(slot(1), 3600)
    let liveLock = try FileDescriptor.open(slot(1), .readOnly)
    defer { liveLock.close() }
    #expect(try liveLock.lockExclusively(wait: false))
    try scratch.write("just written", to: slot(2))
    try scratch.write(String(decoding: token, as: UTF8.self), to: slot(3))
    try scratch.file(bytes: slot(3, writer: true).appending(Array("part.txt".utf8)), "inside")
    age(slot(3), 3600)
    age(slot(3, writer: true), 3600)
    let legacy = project.appending(Array(".board.json.docbm-save-k3x9q2zp.json".utf8))
    try scratch.write("old format", to: legacy)
    age(legacy, 3600)

    try document.replaceDocument(with: Data("new".utf8))
    #expect(try contents(documentPath) == "new")
    let kept = [slot(1), slot(2)].map { String(decoding: $0.lastComponent, as: UTF8.self) }
    #expect(Set(try leftovers()) == Set(kept))
  }

  @Test("a save finds its slot without listing the folder, even among 10,000 entries")
  func bigFolderIsNotListed() throws {
    let folder = try scratch.folder("big")
    for index in 0..<10_000 {
      let fd = open(folder.description + "/entry-\(index)", O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
      close(fd)
    }
    let path = try scratch.file("big/board.json", "old")
    let big = BookmarkService(escrow: nil).documents(anchoredOn: path)
    _ = try big.makeBookmark(to: try scratch.file("big/target"))
    let counter = DirectoryStream.ReadCounter()
    try DirectoryStream.$readCounter.withValue(counter) {
      try big.replaceDocument(with: Data("one".utf8))
      try big.replaceDocument(with: Data("two".utf8))
      try big.replaceDocument { url in try Data("three".utf8).write(to: url, options: .withoutOverwriting) }
    }
    #expect(counter.count == 0)
    #expect(try contents(path) == "three")
    #expect(try big.keyFingerprint() != nil)

    // After a crash, the next save that removes the leftover lists the folder once, for
    // leftovers it could not reach by probing; the save after that does not.
    let crash = SaveFaults.Fault(step: .swap, errno: EIO, leavesTemporary: true)
    SaveFaults.$injected.withValue(crash) {
      #expect(throws: DocbmError.self) { try big.replaceDocument(with: Data("crashed".utf8)) }
    }
    let left = crash.leftTemporaries
    #expect(left.count == 1)
    var times = [
      timespec(tv_sec: time(nil) - 3600, tv_nsec: 0), timespec(tv_sec: time(nil) - 3600, tv_nsec: 0),
    ]
    #expect(utimensat(AT_FDCWD, left[0].description, &times, 0) == 0)
    // A process another test spawned while the crashed save held its claim keeps a copy of
    // the claim's descriptor, and so its lock, until it runs its program; a sweep rightly
    // keeps a locked slot. Wait until nobody holds it, as a real leftover would be.
    let held = open(left[0].description, O_RDONLY | O_CLOEXEC)
    #expect(held >= 0 && flock(held, LOCK_EX) == 0)
    close(held)
    let afterCrash = DirectoryStream.ReadCounter()
    try DirectoryStream.$readCounter.withValue(afterCrash) {
      try big.replaceDocument(with: Data("four".utf8))
    }
    #expect(afterCrash.count > 0)
    #expect(!FileManager.default.fileExists(atPath: left[0].description))
    let later = DirectoryStream.ReadCounter()
    try DirectoryStream.$readCounter.withValue(later) { try big.replaceDocument(with: Data("five".utf8)) }
    #expect(later.count == 0)
    #expect(try contents(path) == "five")
  }

  @Test("ACLs are kept")
  func keepsACL() throws {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setfacl") else {
      print("skipped: setfacl is not installed")
      return
    }
    let set = run("/usr/bin/setfacl", ["-m", "u:65534:rw", documentPath.description])
    try #require(set.status == 0, "\(set.error)")
    let before = run("/usr/bin/getfacl", ["-c", documentPath.description]).output
    try document.replaceDocument(with: Data("new".utf8))
    #expect(run("/usr/bin/getfacl", ["-c", documentPath.description]).output == before)
    #expect(before.contains("user:nobody:rw-"))
  }

  @Test("two threads saving at once: one complete version wins, the key stays")
  func concurrentSaves() async throws {
    let fingerprint = try document.keyFingerprint()
    let versions = (0..<8).map { String(repeating: "version \($0) ", count: 2000) }
    try await withThrowingTaskGroup(of: Void.self) { group in
      for version in versions {
        group.addTask { try document.replaceDocument(with: Data(version.utf8)) }
      }
      try await group.waitForAll()
    }
    #expect(versions.contains(try contents(documentPath)))
    #expect(try document.keyFingerprint() == fingerprint)
    #expect(try leftovers().isEmpty)
  }
}
