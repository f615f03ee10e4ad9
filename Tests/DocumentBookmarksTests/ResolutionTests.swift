import DocbmSystem
import DocbmTestSupport
import Foundation
import Glibc
import Testing

@testable import DocumentBookmarks

@Suite("Resolution")
struct ResolutionTests {
  let scratch: Scratch
  let documentPath: FilePath
  let document: AnchoredDocument

  init() throws {
    // The search area of the tests' targets stays inside the test's own folders.
    scratch = try Scratch.enclosed()
    documentPath = try scratch.file("project/board.json", "{}")
    document = BookmarkService(escrow: nil).documents(anchoredOn: documentPath)
  }

  @Test("an unmoved target resolves exactly, with no refreshed bookmark")
  func unmoved() throws {
    let target = try scratch.file("project/images/cat.png")
    let resolution = try document.resolveAgreeing(try document.makeBookmark(to: target))
    #expect(resolution.path == target)
    #expect(!resolution.isStale)
    #expect(resolution.refreshed == nil)
    #expect(resolution.kind == .file)
  }

  @Test("a target renamed in its folder is found by identity, stale, with a refreshed bookmark")
  func renamed() throws {
    let target = try scratch.file("project/images/cat.png")
    let bookmark = try document.makeBookmark(to: target)
    let renamed = scratch.path("project/images/kitten.png")
    try scratch.move(target, renamed)
    // Another file takes a similar name: identity, not the name, decides.
    try scratch.file("project/images/cat-copy.png")
    let resolution = try document.resolveAgreeing(bookmark)
    #expect(resolution.path == renamed)
    #expect(resolution.staleReasons == [.targetMoved])
    let refreshed = try #require(resolution.refreshed)
    let again = try document.resolveAgreeing(refreshed)
    #expect(again.path == renamed)
    #expect(!again.isStale)
  }

  @Test("a target moved to a sibling folder, or two folders away, is found")
  func movedAway() throws {
    let first = try scratch.file("project/images/a.png")
    let second = try scratch.file("project/images/b.png")
    let bookmarkA = try document.makeBookmark(to: first)
    let bookmarkB = try document.makeBookmark(to: second)
    let sibling = scratch.path("project/thumbnails/a.png")
    let far = scratch.path("project/archive/2026/b.png")
    try scratch.move(first, sibling)
    try scratch.move(second, far)
    #expect(try document.resolveAgreeing(bookmarkA).path == sibling)
    let resolution = try document.resolveAgreeing(bookmarkB)
    #expect(resolution.path == far)
    #expect(resolution.staleReasons == [.targetMoved])
  }

  @Test("a target whose parent folder was renamed is found")
  func parentRenamed() throws {
    let target = try scratch.file("project/images/cat.png")
    let bookmark = try document.makeBookmark(to: target)
    try scratch.move(scratch.path("project/images"), scratch.path("project/pictures"))
    let resolution = try document.resolveAgreeing(bookmark)
    #expect(resolution.path == scratch.path("project/pictures/cat.png"))
    #expect(resolution.staleReasons == [.targetMoved])
  }

  @Test("a folder target is bookmarked and found after a rename")
  func folderTarget() throws {
    let folder = try scratch.folder("project/sources")
    try scratch.file("project/sources/main.c")
    let bookmark = try document.makeBookmark(to: folder)
    #expect(try bookmark.decodeUnverified().kind == .folder)
    #expect(try document.resolveAgreeing(bookmark).path == folder)
    try scratch.move(folder, scratch.path("project/src"))
    let resolution = try document.resolveAgreeing(bookmark)
    #expect(resolution.path == scratch.path("project/src"))
    #expect(resolution.kind == .folder)
  }

  @Test("a moved project folder resolves through the relative path")
  func projectMoved() throws {
    let target = try scratch.file("project/images/cat.png")
    let bookmark = try document.makeBookmark(to: target)
    try scratch.move(scratch.path("project"), scratch.path("elsewhere/project-2026"))
    let moved = BookmarkService(escrow: nil).documents(
      anchoredOn: scratch.path("elsewhere/project-2026/board.json"))
    let resolution = try moved.resolveAgreeing(bookmark)
    #expect(resolution.path == scratch.path("elsewhere/project-2026/images/cat.png"))
    #expect(resolution.staleReasons == [.documentMoved])
    #expect(try moved.resolveAgreeing(#require(resolution.refreshed)).isStale == false)
  }

  @Test("a copied project (cp -a) resolves to the copy's target, the original to its own")
  func projectCopied() throws {
    let target = try scratch.file("project/images/cat.png")
    let bookmark = try document.makeBookmark(to: target)
    let copy = run("/bin/cp", ["-a", scratch.path("project").description, scratch.path("copy").description])
    try #require(copy.status == 0, "cp -a failed: \(copy.error)")
    let copied = BookmarkService(escrow: nil).documents(anchoredOn: scratch.path("copy/board.json"))
    let resolution = try copied.resolveAgreeing(bookmark)
    #expect(resolution.path == scratch.path("copy/images/cat.png"))
    #expect(resolution.staleReasons == [.documentMoved])
    #expect(try document.resolveAgreeing(bookmark).path == target)
  }

  @Test(
    "a project copied by a tool that keeps whole seconds (bsdtar) or gives folders new times resolves to the copy"
  )
  func copiedKeepingSeconds() throws {
    let target = try scratch.file("project/images/cat.png")
    let folder = try scratch.folder("project/albums/summer")
    try scratch.file("project/albums/summer/one.png")
    let toFile = try document.makeBookmark(to: target)
    let toFolder = try document.makeBookmark(to: folder)
    let copy = scratch.path("copy")
    // bsdtar (as File Roller and Ark extract) keeps modification times to the second.
    let bsdtar = "/usr/bin/bsdtar"
    if FileManager.default.isExecutableFile(atPath: bsdtar) {
      let archived = run(
        "/bin/sh",
        [
          "-c", "mkdir \"$3\" && \"$1\" -cf - -C \"$2\" . | \"$1\" -xpf - -C \"$3\"", "sh", bsdtar,
          scratch.path("project").description, copy.description,
        ])
      try #require(archived.status == 0, "\(archived.error)")
    } else {
      print(
        "bsdtar is not installed (libarchive-tools): the copy's times are cut to whole seconds with touch")
      try #require(run("/bin/cp", ["-a", scratch.path("project").description, copy.description]).status == 0)
      for path in ["images/cat.png", "albums/summer", "albums/summer/one.png"] {
        let full = copy.appending(path).description
        var info = stat()
        try #require(stat(full, &info) == 0)
        #expect(run("/usr/bin/touch", ["-h", "-d", "@\(info.st_mtim.tv_sec)", full]).status == 0)
      }
    }
    let copiedTarget = copy.appending("images/cat.png")
    var info = stat()
    try #require(stat(copiedTarget.description, &info) == 0)
    try #require(info.st_mtim.tv_nsec == 0, "the copy kept the time to the nanosecond: nothing is tested")
    // A folder copied with a new modification time (a file manager's copy), same entries.
    #expect(run("/usr/bin/touch", [copy.appending("albums/summer").description]).status == 0)

    let copied = BookmarkService(escrow: nil).documents(anchoredOn: copy.appending("board.json"))
    let file = try copied.resolveAgreeing(toFile)
    #expect(file.path == copiedTarget, "\(file.staleReasons) \(file.candidates)")
    #expect(file.staleReasons == [.documentMoved])
    let album = try copied.resolveAgreeing(toFolder)
    #expect(album.path == copy.appending("albums/summer"), "\(album.staleReasons) \(album.candidates)")
    #expect(album.staleReasons == [.documentMoved])
    // A different file at the copy's path is still not taken for a copy.
    try scratch.write("retouched", to: copiedTarget)
    #expect(try copied.resolveAgreeing(toFile).staleReasons.contains(.ambiguous))
  }

  @Test("the document moved alone: the target is still found at its absolute path")
  func documentMovedAlone() throws {
    let target = try scratch.file("project/images/cat.png")
    let bookmark = try document.makeBookmark(to: target)
    let newPath = scratch.path("desktop/board.json")
    try scratch.move(documentPath, newPath)
    let resolution = try BookmarkService(escrow: nil).documents(anchoredOn: newPath).resolveAgreeing(bookmark)
    #expect(resolution.path == target)
    #expect(resolution.staleReasons == [.relativePathChanged])
  }

  @Test("a target replaced by another program's atomic save resolves by path, identityChanged")
  func atomicallyReplaced() throws {
    let target = try scratch.file("project/notes.txt", "old")
    let bookmark = try document.makeBookmark(to: target)
    try scratch.replaceAtomically(target, with: "new")
    let resolution = try document.resolveAgreeing(bookmark)
    #expect(resolution.path == target)
    #expect(resolution.staleReasons == [.identityChanged])
    #expect(resolution.refreshed != nil)
  }

  @Test("a deleted target is missing, with its last known path")
  func deleted() throws {
    let target = try scratch.file("project/images/cat.png")
    let bookmark = try document.makeBookmark(to: target)
    try scratch.remove(target)
    let error = #expect(throws: DocbmError.self) { try document.resolveAgreeing(bookmark) }
    #expect(error?.code == .missing)
    #expect(error?.lastKnownPath == target)
    #expect(error?.recommendation == .forget)
  }

  @Test("a reused inode number is not mistaken for the target")
  func inodeReuse() throws {
    let target = try scratch.file("project/images/cat.png")
    let bookmark = try document.makeBookmark(to: target)
    let recorded = try bookmark.decodeUnverified().identity
    try scratch.remove(target)
    // ext4 hands the freed inode number to the next new file, with a new birth time.
    for index in 0..<20 {
      let candidate = try scratch.file("project/images/new\(index).png")
      let status = try FileStatus.of(candidate, followSymlinks: false)
      if status.inode == recorded.inode { break }
    }
    let error = #expect(throws: DocbmError.self) { try document.resolveAgreeing(bookmark) }
    #expect(error?.code == .missing)
  }

  @Test("with a file handle, no generation is recorded; the handle alone tells a reused inode apart")
  func handleHoldsGeneration() throws {
    let target = try scratch.file("project/images/cat.png")
    let recorded = try document.makeBookmark(to: target).decodeUnverified().identity
    guard let handle = recorded.fileHandle else {
      print("skipped: this filesystem gives no file handles")
      return
    }
    #expect(recorded.generation == nil, "read although the handle holds it")
    try scratch.remove(target)
    var reused: FilePath?
    for index in 0..<20 {
      let candidate = try scratch.file("project/images/new\(index).png")
      if try FileStatus.of(candidate, followSymlinks: false).inode == recorded.inode {
        reused = candidate
        break
      }
    }
    guard let reused else {
      print("skipped: the filesystem did not hand the inode number on within 20 files")
      return
    }
    // As on a filesystem without birth times: the handle is the only evidence left.
    let withoutBirthTime = TargetIdentity(
      fileHandle: handle, inode: recorded.inode, generation: nil, birthTime: nil, size: recorded.size,
      modificationTime: recorded.modificationTime)
    let matcher = IdentityMatcher(kind: .file, identity: withoutBirthTime)
    #expect(!matcher.isSameObject(try FileStatus.of(reused, followSymlinks: false), at: reused))
  }

  @Test("names that are not UTF-8 are bookmarked, found after a move, and printed escaped")
  func nonUTF8Name() throws {
    let name = Array("caf".utf8) + [0xE9, 0xFF] + Array(".png".utf8)
    let target = try scratch.file(bytes: scratch.path("project/images").appending(name))
    let bookmark = try document.makeBookmark(to: target)
    #expect(try bookmark.decodeUnverified().absolutePath == target)
    #expect(try document.resolveAgreeing(bookmark).path == target)
    let movedName = Array("other-".utf8) + [0xFE]
    let moved = scratch.path("project/images").appending(movedName)
    try scratch.move(target, moved)
    let resolution = try document.resolveAgreeing(bookmark)
    #expect(resolution.path == moved)
    #expect(resolution.path.description.hasSuffix("other-\\xfe"))
  }

  @Test("a bookmark to a symbolic link refers to what the link leads to")
  func symlinkTarget() throws {
    let real = try scratch.file("project/assets/real.png")
    let link = scratch.path("project/link.png")
    try scratch.symlink("assets/real.png", at: link)
    let bookmark = try document.makeBookmark(to: link)
    let contents = try bookmark.decodeUnverified()
    #expect(contents.absolutePath == real)
    #expect(try document.resolveAgreeing(bookmark).path == real)
  }

  @Test("the search never follows symbolic links")
  func searchSkipsSymlinks() throws {
    let target = try scratch.file("project/images/cat.png")
    let bookmark = try document.makeBookmark(to: target)
    // Move the target outside the search area, and leave a link to its folder inside.
    try scratch.move(target, scratch.path("outside/deep/er/hidden/cat.png"))
    try scratch.symlink(
      scratch.path("outside/deep/er/hidden").description, at: scratch.path("project/images/link"))
    let error = #expect(throws: DocbmError.self) {
      try BookmarkService(
        searchBudget: SearchBudget(maximumEntries: 10_000, maximumDepth: 6, ascent: 0, reach: .nearby),
        escrow: nil
      )
      .documents(anchoredOn: documentPath).resolveAgreeing(bookmark)
    }
    #expect(error?.code == .notFoundNearby)
    #expect(error?.recommendation == .searchWider)
  }

  @Test("past the nearby budget the target is notFoundNearby, never missing, never a long walk")
  func budget() throws {
    let target = try scratch.file("project/images/cat.png")
    let bookmark = try document.makeBookmark(to: target)
    for index in 0..<50 { try scratch.file("project/images/filler\(index).png") }
    try scratch.move(target, scratch.path("project/images/zz/cat.png"))
    let tight = BookmarkService(
      searchBudget: SearchBudget(maximumEntries: 10, maximumDepth: 4, ascent: 2, reach: .nearby), escrow: nil)
    let error = #expect(throws: DocbmError.self) {
      try tight.documents(anchoredOn: documentPath).resolveAgreeing(bookmark)
    }
    #expect(error?.code == .notFoundNearby)
    #expect(error?.message.contains("in the 10 folder entries the nearby search read") == true)
    let none = BookmarkService(searchBudget: .none, escrow: nil)
    #expect(throws: DocbmError.self) {
      try none.documents(anchoredOn: documentPath).resolveAgreeing(bookmark)
    }
    #expect(try document.resolveAgreeing(bookmark).path == scratch.path("project/images/zz/cat.png"))
  }

  @Test("resolving never writes the document or its attributes")
  func resolveIsReadOnly() throws {
    let target = try scratch.file("project/images/cat.png")
    let bookmark = try document.makeBookmark(to: target)
    try scratch.move(target, scratch.path("project/images/kitten.png"))
    let before = try FileStatus.of(documentPath, followSymlinks: false)
    let attributesBefore = try document.attributes()
    usleep(20_000)
    _ = try document.resolveAgreeing(bookmark)
    let after = try FileStatus.of(documentPath, followSymlinks: false)
    #expect(after.changeTime == before.changeTime)
    #expect(after.modificationTime == before.modificationTime)
    #expect(try document.attributes() == attributesBefore)
  }

  @Test("a bookmark whose target's kind changed (file replaced by a folder) is not resolved to it")
  func kindChanged() throws {
    let target = try scratch.file("project/thing")
    let bookmark = try document.makeBookmark(to: target)
    try scratch.remove(target)
    try scratch.folder("project/thing")
    let error = #expect(throws: DocbmError.self) { try document.resolveAgreeing(bookmark) }
    #expect(error?.code == .missing)
  }

  @Test("targets that are neither files nor folders are refused with a typed error")
  func unsupportedTargets() throws {
    let fifo = scratch.path("project/pipe")
    #expect(fifo.withCString { mkfifo($0, 0o644) } == 0)
    let error = #expect(throws: DocbmError.self) { try document.makeBookmark(to: fifo) }
    #expect(error?.code == .unsupportedFileType)
    #expect(try document.keyFingerprint() == nil)
  }

  @Test("a FIFO given as the document is no document (unsupportedFileType), not one that lost its key")
  func fifoDocument() throws {
    let target = try scratch.file("project/cat.png")
    let bookmark = try document.makeBookmark(to: target)
    let fifo = scratch.path("pipe.json")
    #expect(fifo.withCString { mkfifo($0, 0o644) } == 0)
    let onFIFO = BookmarkService(escrow: nil).documents(anchoredOn: fifo)
    for resolve in [{ try onFIFO.resolve(bookmark) }, { try onFIFO.resolve([bookmark])[0].get() }] {
      let error = #expect(throws: DocbmError.self) { _ = try resolve() }
      #expect(error?.code == .unsupportedFileType)
      #expect(error?.recommendation == .pickAgain)
    }
  }

  @Test("a document reached through a symbolic link keeps its key on the real file")
  func documentThroughSymlink() throws {
    let link = scratch.path("board-link.json")
    try scratch.symlink(documentPath.description, at: link)
    let viaLink = BookmarkService(escrow: nil).documents(anchoredOn: link)
    let target = try scratch.file("project/images/cat.png")
    let bookmark = try viaLink.makeBookmark(to: target)
    #expect(try document.keyFingerprint() == bookmark.keyFingerprint)
    #expect(try document.resolveAgreeing(bookmark).path == target)
  }
}
