import DocbmTestSupport
import DocumentBookmarks
import Foundation
import Testing

/// The samples, run as a user would.
@Suite("Samples end to end")
struct SamplesEndToEndTests {
  private func sample(_ name: String) -> String {
    URL(fileURLWithPath: Capabilities.docbmExecutable).deletingLastPathComponent().appendingPathComponent(
      name
    ).path
  }

  @Test("folder-list: entries survive a move of their folder and a restart; removed ones stay removed")
  func folderList() throws {
    let scratch = try Scratch()
    try scratch.file("Projects/garden/seeds.txt")
    try scratch.folder("Projects/roses")
    let environment = ["FOLDER_LIST_FILE": scratch.path("list.json").description]
    func folderList(_ arguments: String...) -> ProcessResult {
      run(sample("folder-list"), arguments, environment: environment)
    }
    #expect(
      folderList("add", scratch.path("Projects/garden").description).output
        == "added garden: \(scratch.path("Projects/garden"))\n")
    #expect(folderList("add", scratch.path("Projects/roses").description).status == 0)
    #expect(
      folderList("add", scratch.path("Projects/roses").description).output == "already in the list as roses\n"
    )
    // The store's validators: a file, the folder holding listed ones, the root.
    let file = folderList("add", scratch.path("Projects/garden/seeds.txt").description)
    #expect(file.status == 1)
    #expect(file.error.contains("was not added: it is not a folder"), "\(file.error)")
    #expect(folderList("add", scratch.path("Projects").description).error.contains("which the store holds"))
    #expect(folderList("add", "/").error.contains("it is the root folder"))
    try scratch.move(scratch.path("Projects/garden"), scratch.path("Archive/garden-2026"))
    let moved = folderList("list")
    #expect(moved.output.contains("garden  \(scratch.path("Archive/garden-2026"))  (moved: targetMoved)"))
    #expect(!folderList("list").output.contains("moved:"), "the refreshed entry was saved")
    #expect(folderList("show", "garden").output.contains("seeds.txt"))
    #expect(folderList("remove", "roses").status == 0)
    let after = folderList("list").output
    #expect(!after.contains("roses"))
    #expect(after.contains("garden"))
    #expect(folderList("remove", "roses").status == 1)
    try FileManager.default.removeItem(atPath: scratch.path("Archive/garden-2026").description)
    #expect(folderList("list").output.hasPrefix("garden  missing: "))
  }

  @Test(
    "moodboard: moved images are found again, deleted ones pruned, and the board keeps its key, escrowed by default"
  )
  func moodboard() throws {
    let scratch = try Scratch()
    let escrow = ["DOCBM_ESCROW_DIR": scratch.path("escrow").description]
    let cat = try scratch.file("cat.png", "cat")
    let dog = try scratch.file("dog.png", "dog")
    let board = scratch.path("board.json").description
    #expect(
      run(sample("moodboard"), ["add", board, cat.description, dog.description], environment: escrow).status
        == 0)
    try scratch.move(cat, scratch.path("pets/cat.png"))
    try scratch.remove(dog)
    let opened = run(sample("moodboard"), ["open", board]).output
    #expect(opened.contains("cat.png: \(scratch.path("pets/cat.png"))  (found again: targetMoved)"))
    #expect(opened.contains("dog.png: missing"))
    #expect(run(sample("moodboard"), ["prune", board]).status == 0)
    let pruned = run(sample("moodboard"), ["open", board]).output
    #expect(!pruned.contains("dog.png"))
    #expect(pruned.contains("cat.png: \(scratch.path("pets/cat.png"))\n"))
    // The sample's `BookmarkService()` escrows the board's key in the user's escrow: a
    // plain save elsewhere loses it, and repair puts it back.
    let url = URL(fileURLWithPath: board)
    try Data(contentsOf: url).write(to: url, options: .atomic)
    let repaired = run(Capabilities.docbmExecutable, ["repair", board], environment: escrow)
    #expect(repaired.status == 0, "\(repaired.output)\(repaired.error)")
    #expect(repaired.output.hasPrefix("restored"), "\(repaired.output)")
  }
}
