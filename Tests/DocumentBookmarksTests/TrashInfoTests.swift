import DocbmTestSupport
import Glibc
import Testing

@testable import DocumentBookmarks

/// Reading the Trash's info files: the original path, decoded, from the right group.
@Suite("Trash info files")
struct TrashInfoTests {
  private func path(_ text: String, top: FilePath? = nil) -> String? {
    TrashInfo.originalPath(in: Array(text.utf8), top: top)?.description
  }

  @Test("Path= is percent-decoded, absolute, or relative to the disk's top folder")
  func paths() {
    #expect(
      path("[Trash Info]\nPath=/home/ada/my%20photos\nDeletionDate=2026-12-05T04:00:00\n")
        == "/home/ada/my photos")
    #expect(path("[Trash Info]\r\nPath=/home/ada/caf%C3%A9\r\n") == "/home/ada/café")
    #expect(
      path("[Trash Info]\nPath=projects/board.json\n", top: FilePath("/media/ada/disk"))
        == "/media/ada/disk/projects/board.json")
    // Not in the group, malformed, a NUL, empty, or relative without a top folder: nothing.
    #expect(path("[Other]\nPath=/home/ada/x\n") == nil)
    #expect(path("[Trash Info]\nPath=/home/ada/%2\n") == nil)
    #expect(path("[Trash Info]\nPath=/home/ada/%00x\n") == nil)
    #expect(path("[Trash Info]\nPath=\n") == nil)
    #expect(path("[Trash Info]\nPath=relative/x\n") == nil)
  }

  @Test("a path is in a Trash's files folder by its components, whatever its bytes look like")
  func containment() throws {
    let home = try #require(TrashInfo.trashes(mountPoint: nil).first).folder
    #expect(TrashInfo.contains(home.appending("files/plan.md")))
    #expect(!TrashInfo.contains(home.appending("info/plan.md.trashinfo")))
    #expect(TrashInfo.contains(FilePath("/media/ada/disk/.Trash/1000/files/plan.md")))
    #expect(TrashInfo.contains(FilePath("/media/ada/disk/.Trash-1000/files/a/b")))
    // Holding the bytes "Trash" is not being in one; lacking them is being in none.
    #expect(!TrashInfo.contains(FilePath("/home/ada/Trash-notes/files/plan.md")))
    #expect(!TrashInfo.contains(FilePath("/media/ada/disk/.Trash/ada/files/plan.md")))
    #expect(!TrashInfo.contains(FilePath("/home/ada/projects/board.json")))
  }

  @Test("an item is looked for below each info file naming it or a folder above it")
  func candidates() throws {
    let scratch = try Scratch()
    let trash = scratch.path("Trash")
    _ = try scratch.file(
      bytes: trash.appending("info/photos.trashinfo"), "[Trash Info]\nPath=/home/ada/photos\n")
    _ = try scratch.file(
      bytes: trash.appending("info/cat.png.trashinfo"), "[Trash Info]\nPath=/home/ada/photos/cat.png\n")
    _ = try scratch.file(
      bytes: trash.appending("info/other.trashinfo"), "[Trash Info]\nPath=/home/ada/photos-old\n")
    _ = try scratch.file(bytes: trash.appending("info/notes.txt"), "[Trash Info]\nPath=/home/ada/photos\n")
    // Not regular files: a FIFO (never waited on) and a link (never followed).
    #expect(mkfifo(trash.appending("info/fifo.trashinfo").description, 0o600) == 0)
    try scratch.symlink("photos.trashinfo", at: trash.appending("info/link.trashinfo"))
    _ = try scratch.file(bytes: trash.appending("files/photos/cat.png"), "cat")
    _ = try scratch.file(bytes: trash.appending("files/cat.png"), "cat")
    let found = TrashInfo.candidates(
      for: FilePath("/home/ada/photos/cat.png"), in: [TrashInfo.Trash(folder: trash, top: nil)])
    #expect(
      Set(found.map(\.description)) == [
        trash.appending("files/photos/cat.png").description, trash.appending("files/cat.png").description,
      ])
  }

  @Test(
    "a Trash another user could change is not read; links below it and oversized info files are passed over")
  func untrusted() throws {
    let scratch = try Scratch()
    let original = FilePath("/home/ada/photos/cat.png")
    /// A Trash at `relative` whose info file names the original's folder, and that folder
    /// with the file in `files`.
    func trash(_ relative: String) throws -> FilePath {
      let folder = scratch.path(relative)
      _ = try scratch.file(
        bytes: folder.appending("info/photos.trashinfo"), "[Trash Info]\nPath=/home/ada/photos\n")
      _ = try scratch.file(bytes: folder.appending("files/photos/cat.png"), "cat")
      return folder
    }
    func found(_ trash: TrashInfo.Trash) -> [String] {
      TrashInfo.candidates(for: original, in: [trash]).map(\.description)
    }
    let own = try trash("own")
    #expect(
      found(TrashInfo.Trash(folder: own, top: nil)) == [own.appending("files/photos/cat.png").description])

    // Writable by others, or its info folder: not read.
    let open = try trash("open")
    chmod(open.description, 0o777)
    #expect(found(TrashInfo.Trash(folder: open, top: nil)).isEmpty)
    let openInfo = try trash("open-info")
    chmod(openInfo.appending("info").description, 0o757)
    #expect(found(TrashInfo.Trash(folder: openInfo, top: nil)).isEmpty)

    // A link as the Trash, or as its files folder: not followed.
    try scratch.symlink("own", at: scratch.path("link"))
    #expect(found(TrashInfo.Trash(folder: scratch.path("link"), top: nil)).isEmpty)
    let linked = try trash("linked")
    _ = run("/bin/rm", ["-rf", linked.appending("files").description])
    try scratch.symlink(own.appending("files").description, at: linked.appending("files"))
    #expect(found(TrashInfo.Trash(folder: linked, top: nil)).isEmpty)

    // An info file past the size of any real one (sparse): not read.
    let large = try trash("large")
    let info = large.appending("info/photos.trashinfo").description
    #expect(truncate(info, off_t(1 << 30)) == 0)
    #expect(found(TrashInfo.Trash(folder: large, top: nil)).isEmpty)

    // $topdir/.Trash/$uid: only inside a sticky .Trash.
    let user = String(geteuid())
    let shared = try trash("top/.Trash/\(user)")
    chmod(scratch.path("top/.Trash").description, 0o777)
    let sharedTrash = TrashInfo.Trash(folder: shared, top: scratch.path("top"), inSharedFolder: true)
    #expect(found(sharedTrash).isEmpty)
    chmod(scratch.path("top/.Trash").description, 0o1777)
    #expect(found(sharedTrash) == [shared.appending("files/photos/cat.png").description])

    guard Capabilities.isRoot else {
      print("skipped another user's Trash: chown needs root")
      return
    }
    // Another user's Trash, or its info folder, even at the user's Trash name.
    let theirs = try trash("theirs")
    #expect(chown(theirs.description, 65534, 65534) == 0)
    #expect(found(TrashInfo.Trash(folder: theirs, top: nil)).isEmpty)
    let theirInfo = try trash("their-info")
    #expect(chown(theirInfo.appending("info").description, 65534, 65534) == 0)
    #expect(found(TrashInfo.Trash(folder: theirInfo, top: nil)).isEmpty)
  }
}
