import DocumentBookmarks
import Testing

@testable import DocumentBookmarkStore

@Suite("Trash folders")
struct TrashFoldersTests {
  let trash = TrashFolders(environment: ["HOME": "/home/ada", "XDG_DATA_HOME": "/home/ada/.data"])

  @Test(
    "paths in a freedesktop.org Trash are in the Trash",
    arguments: [
      "/home/ada/.data/Trash/files/plan.md", "/home/ada/.data/Trash/files/folder/inside.txt",
      "/mnt/x/.Trash-1000/files/plan.md", "/media/usb/.Trash/1000/files/old",
    ])
  func inTrash(_ path: String) {
    #expect(trash.contains(FilePath(path)))
  }

  @Test(
    "other paths are not",
    arguments: [
      "/home/ada/.data/Trash/files", "/home/ada/.data/Trash/info/plan.md.trashinfo",
      "/home/ada/.local/share/Trash/files/plan.md", "/mnt/x/.Trash-ada/files/plan.md",
      "/mnt/x/.Trash/files/plan.md", "/home/ada/Trash/files/plan.md", "/mnt/x/.Trash-1000/plan.md",
    ])
  func notInTrash(_ path: String) {
    #expect(!trash.contains(FilePath(path)))
  }

  @Test("without XDG_DATA_HOME the home trash is ~/.local/share/Trash")
  func defaultHomeTrash() {
    let trash = TrashFolders(environment: ["HOME": "/home/ada"])
    #expect(trash.contains("/home/ada/.local/share/Trash/files/plan.md"))
  }
}
