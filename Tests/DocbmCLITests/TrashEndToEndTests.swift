import DocbmTestSupport
import DocumentBookmarks
import Foundation
import Testing

/// A target the user threw away: found in the Trash through the Trash's own info files,
/// said to be there, and taken for gone by a store.
@Suite("Targets in the Trash")
struct TrashEndToEndTests {
  let docbm = Capabilities.docbmExecutable

  /// Moves `folder` into the home trash under `data` as a file manager does: the item in
  /// `files/NAME`, its original path percent-encoded in `info/NAME.trashinfo`.
  private func trash(_ folder: FilePath, named name: String, data: FilePath, _ scratch: Scratch) throws {
    let encoded = folder.description.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed)!
    try scratch.makeParents(of: data.appending("Trash/files/x"))
    try scratch.move(folder, data.appending("Trash/files").appending(name))
    _ = try scratch.file(
      bytes: data.appending("Trash/info").appending("\(name).trashinfo"),
      "[Trash Info]\nPath=\(encoded)\nDeletionDate=2026-12-05T04:00:00\n")
  }

  @Test("a file in a trashed folder resolves into the Trash, stale with inTrash; a decoy entry is not taken")
  func resolveIntoTrash() throws {
    // As in a home folder: the Trash is five folders below it, beyond the search's reach.
    let scratch = try Scratch()
    let project = scratch.path("home/Documents/project")
    let document = try scratch.file("home/Documents/project/board.json", "{}")
    let cat = try scratch.file("home/Documents/project/my photos/cat.png", "cat")
    let data = scratch.path("home/.local/share")
    let environment = ["XDG_DATA_HOME": data.description]
    let bookmark = run(docbm, ["bookmark", document.description, cat.description]).output
      .trimmingCharacters(in: .whitespacesAndNewlines)
    // The folder moved into the Trash without its info file: nothing says where it went.
    try scratch.makeParents(of: data.appending("Trash/files/x"))
    let trashed = data.appending("Trash/files/my photos")
    try scratch.move(project.appending("my photos"), trashed)
    let unknown = run(
      docbm, ["resolve", "--search", "nearby", document.description, bookmark], environment: environment)
    #expect(unknown.status == 1, "\(unknown.output)")
    #expect(unknown.error.contains("notFoundNearby"), "\(unknown.error)")
    // The walk of the whole filesystem finds it there, and says it is in the Trash.
    let walked = run(docbm, ["resolve", document.description, bookmark], environment: environment)
    #expect(walked.status == 0, "\(walked.error)")
    #expect(walked.output.trimmingCharacters(in: .newlines) == trashed.appending("cat.png").description)
    #expect(walked.error.contains("stale: targetMoved, inTrash"), "\(walked.error)")
    try scratch.move(trashed, project.appending("my photos"))

    // A decoy: the same original path trashed before, holding another file of that name;
    // its info file sorts first, so it is looked at first.
    _ = try scratch.file("decoy/cat.png", "another cat")
    _ = try scratch.file(
      bytes: data.appending("Trash/info/my photos.2.trashinfo"),
      "[Trash Info]\nPath=\(project.appending("my photos").description.replacing(" ", with: "%20"))\n")
    try scratch.move(scratch.path("decoy"), data.appending("Trash/files/my photos.2"))
    try trash(project.appending("my photos"), named: "my photos", data: data, scratch)

    let found = run(docbm, ["resolve", document.description, bookmark], environment: environment)
    #expect(found.status == 0, "\(found.error)")
    #expect(found.output.trimmingCharacters(in: .newlines) == trashed.appending("cat.png").description)
    #expect(found.error.contains("stale: targetMoved, inTrash"), "\(found.error)")
    // With another Trash in the environment, nothing is found there.
    let elsewhere = run(
      docbm, ["resolve", "--search", "nearby", document.description, bookmark],
      environment: ["XDG_DATA_HOME": scratch.path("other").description])
    #expect(elsewhere.status == 1, "\(elsewhere.output)")
  }

  @Test("a target the identity search finds in a Trash is said to be in the Trash")
  func searchFindsTrash() throws {
    let scratch = try Scratch()
    let document = try scratch.file("board.json", "{}")
    let cat = try scratch.file("cat.png", "cat")
    let data = scratch.path("data")
    let bookmark = run(docbm, ["bookmark", document.description, cat.description]).output
      .trimmingCharacters(in: .whitespacesAndNewlines)
    try scratch.makeParents(of: data.appending("Trash/files/x"))
    try scratch.move(cat, data.appending("Trash/files/cat.png"))
    let found = run(
      docbm, ["resolve", document.description, bookmark], environment: ["XDG_DATA_HOME": data.description])
    #expect(found.status == 0, "\(found.error)")
    #expect(found.error.contains("stale: targetMoved, inTrash"), "\(found.error)")

    // The refreshed bookmark, stored as the app is told to, still says where its target is.
    let refreshed = try #require(
      found.error.split(separator: "\n").first { $0.hasPrefix("refreshed: ") }?.dropFirst(11))
    let again = run(
      docbm, ["resolve", document.description, String(refreshed)],
      environment: ["XDG_DATA_HOME": data.description])
    #expect(again.status == 0, "\(again.error)")
    #expect(!again.error.contains("stale"), "\(again.error)")
    #expect(again.error.contains("in the Trash"), "\(again.error)")
    let json = run(
      docbm, ["resolve", "--json", document.description, String(refreshed)],
      environment: ["XDG_DATA_HOME": data.description])
    #expect(json.output.contains("\"inTrash\" : true"), "\(json.output)")
    #expect(json.output.contains("\"stale\" : false"), "\(json.output)")
  }

  @Test("a store's record of a trashed file follows it into the Trash and is gone")
  func storeRecordInTrash() throws {
    let scratch = try Scratch()
    let store = scratch.path("recents.json").description
    let notes = try scratch.file("notes/plan.md", "plan")
    let data = scratch.path("data")
    let environment = ["XDG_DATA_HOME": data.description]
    #expect(
      run(docbm, ["store", "add", "--create", store, notes.description], environment: environment).status == 0
    )
    try trash(scratch.path("notes"), named: "notes", data: data, scratch)
    let refreshed = run(docbm, ["store", "refresh", "--json", store], environment: environment)
    #expect(refreshed.status == 0, "\(refreshed.output)\(refreshed.error)")
    let listed = run(docbm, ["store", "list", "--json", store], environment: environment)
    #expect(listed.output.contains("\"isInTrash\" : true"), "\(listed.output)")
    #expect(listed.output.contains("\"isGone\" : true"), "\(listed.output)")
    let text = run(docbm, ["store", "list", store], environment: environment)
    #expect(text.output.contains("in the Trash, gone"), "\(text.output)")
    #expect(
      listed.output.contains(data.appending("Trash/files/notes/plan.md").description), "\(listed.output)")
  }
}
