import DocbmTestSupport
import Foundation
import Glibc
import Testing

@testable import DocumentBookmarks

/// Btrfs subvolumes and snapshots, on a real Btrfs loop image. Every subvolume has its own
/// `st_dev` and `f_fsid`, and a snapshot's files have the original's inode numbers and birth
/// times: only the file handle (which names the subvolume) tells a snapshot's copy from the
/// original.
@Suite("Btrfs subvolumes and snapshots")
struct BtrfsSubvolumeTests {
  @Test(
    "a target in another subvolume, the subvolume renamed, a snapshot told apart", .timeLimit(.minutes(2)))
  func subvolumesAndSnapshots() async throws {
    guard
      let rows = try await FilesystemLab.inNamespace(
        "the Btrfs subvolume test",
        { lab in
          try Self.measure(in: lab)
        })
    else { return }
    for (operation, result) in rows { FilesystemTable.record("btrfs", "btrfs", operation, result) }
    let measured = Dictionary(rows, uniquingKeysWith: { first, _ in first })
    #expect(measured["target in another subvolume"] == "resolved")
    #expect(measured["renamed inside its subvolume"] == "stale: targetMoved")
    #expect(measured["its subvolume renamed"] == "stale: targetMoved")
    #expect(measured["snapshot taken, original unmoved"] == "resolved")
    #expect(measured["snapshot taken, original deleted"] == "error: missing")
    #expect(measured["snapshot put in the original's place"] == "stale: identityChanged")
    #expect(measured["document in a snapshot"] == "stale: documentMoved")
    #expect(measured["document in the original subvolume"] == "resolved")
  }

  static func measure(in lab: FilesystemLab) throws -> [(String, String)] {
    guard lab.has("btrfs") else {
      throw LabSkip(description: "btrfs is not installed (apt-get install btrfs-progs)")
    }
    let m = try lab.mount(.btrfs, name: "btrfs-subvolumes")
    let scratch = lab.scratch
    var rows: [(String, String)] = []
    func path(_ relative: String) -> FilePath { FilePath(m.description + "/" + relative) }
    let service = BookmarkService(escrow: nil)

    // A document in the top-level subvolume, its target in the subvolume `work`.
    try lab.sh("btrfs -q subvolume create '\(path("work"))'")
    let document = service.documents(anchoredOn: try scratch.file(bytes: path("board.doc"), "board"))
    let target = try scratch.file(bytes: path("work/images/t.png"), "t")
    let bookmark = try document.makeBookmark(to: target)
    rows.append(("target in another subvolume", describe(document.outcome(bookmark), expecting: target)))

    let renamed = path("work/images/t-renamed.png")
    try scratch.move(target, renamed)
    rows.append(("renamed inside its subvolume", describe(document.outcome(bookmark), expecting: renamed)))

    // Renaming a subvolume is a rename of its root folder; the search must go into it
    // although it has another st_dev than the folder it searches from.
    try scratch.move(path("work"), path("studio"))
    let inStudio = path("studio/images/t-renamed.png")
    rows.append(("its subvolume renamed", describe(document.outcome(bookmark), expecting: inStudio)))
    let current = (try? document.resolve(bookmark))?.refreshed ?? bookmark

    // A snapshot: the same inode numbers and birth times, another subvolume.
    try lab.sh("btrfs -q subvolume snapshot '\(path("studio"))' '\(path("snapshot"))'")
    rows.append(
      ("snapshot taken, original unmoved", describe(document.outcome(current), expecting: inStudio)))
    try scratch.remove(inStudio)
    rows.append(
      ("snapshot taken, original deleted", describe(document.outcome(current), expecting: inStudio)))

    // Rolled back: the original subvolume deleted, the snapshot renamed into its place.
    try lab.sh(
      "btrfs -q subvolume delete '\(path("studio"))' && mv '\(path("snapshot"))' '\(path("studio"))'")
    rows.append(
      ("snapshot put in the original's place", describe(document.outcome(current), expecting: inStudio)))

    // A document inside a subvolume that is snapshotted: the snapshot is a copy of the
    // project, as `cp -a` makes one.
    try lab.sh("btrfs -q subvolume create '\(path("project"))'")
    let inside = service.documents(anchoredOn: try scratch.file(bytes: path("project/board.doc"), "board"))
    let insideTarget = try scratch.file(bytes: path("project/cat.png"), "cat")
    let insideBookmark = try inside.makeBookmark(to: insideTarget)
    try lab.sh("btrfs -q subvolume snapshot '\(path("project"))' '\(path("project-snapshot"))'")
    let copy = service.documents(anchoredOn: path("project-snapshot/board.doc"))
    rows.append(
      (
        "document in a snapshot",
        describe(copy.outcome(insideBookmark), expecting: path("project-snapshot/cat.png"))
      ))
    rows.append(
      (
        "document in the original subvolume",
        describe(inside.outcome(insideBookmark), expecting: insideTarget)
      ))
    return rows
  }
}
