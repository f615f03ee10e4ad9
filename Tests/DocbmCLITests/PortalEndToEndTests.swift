import DocbmTestSupport
import DocumentBookmarks
import Foundation
import Glibc
import Testing

/// `docbm` on documents reached through a real Documents portal.
@Suite("docbm through the Documents portal")
struct PortalEndToEndTests {
  let docbm = Capabilities.docbmExecutable

  private func contents(_ path: FilePath) -> String {
    (try? String(contentsOfFile: path.description, encoding: .utf8)) ?? "<unreadable>"
  }

  @Test(
    "inspect and check say so; save is refused with the way out, --in-place keeps the key; bookmark is refused"
  )
  func commands() throws {
    let scratch = try Scratch()
    let board = try scratch.file("home/board.json", "{}")
    let bare = try scratch.file("home/bare.json", "{}")
    let cat = try scratch.file("home/images/cat.png", "cat")
    let bookmark = run(docbm, ["bookmark", board.description, cat.description])
    #expect(bookmark.status == 0, "\(bookmark.error)")
    try scratch.write(
      "{\"image\":\"\(bookmark.output.trimmingCharacters(in: .whitespacesAndNewlines))\"}", to: board)
    let fingerprint = try BookmarkService().documents(anchoredOn: board).keyFingerprint()
    let inode = try FileStatus.of(board, followSymlinks: false).inode
    guard let session = try DocumentPortalSession.start(exporting: [.file(board), .file(bare)]) else {
      print(DocumentPortalSession.skipReason)
      return
    }
    let through = session.path(of: 0, name: "board.json").description

    let inspect = run(docbm, ["inspect", through])
    #expect(inspect.status == 0, "\(inspect.error)")
    #expect(
      inspect.output.contains(
        "portal:       through the Documents portal: document \(session.documentIDs[0])"))
    #expect(inspect.output.contains("a single-file export"))
    #expect(inspect.output.contains("verifies, resolves"), "\(inspect.output)")
    let inspectJSON = run(docbm, ["inspect", "--json", through])
    #expect(
      inspectJSON.output.contains("\"documentID\" : \"\(session.documentIDs[0])\""), "\(inspectJSON.output)")

    let check = run(docbm, ["check", "--all", through])
    #expect(check.status == 0, "\(check.output)\(check.error)")
    #expect(check.output.contains("through the Documents portal"), "\(check.output)")
    let checkJSON = run(docbm, ["check", "--json", through])
    #expect(checkJSON.output.contains("\"portalDocument\""), "\(checkJSON.output)")

    let refused = run(docbm, ["save", through], input: "{\"new\":1}")
    #expect(refused.status == 1)
    #expect(refused.error.contains("portalRefusesAttributes"), "\(refused.error)")
    #expect(refused.error.contains("docbm save --in-place"), "\(refused.error)")
    #expect(contents(board).hasPrefix("{\"image\""))

    let inPlace = run(docbm, ["save", "--in-place", through], input: "{\"new\":1}")
    #expect(inPlace.status == 0, "\(inPlace.error)")
    #expect(contents(board) == "{\"new\":1}")
    #expect(try FileStatus.of(board, followSymlinks: false).inode == inode)
    #expect(try BookmarkService().documents(anchoredOn: board).keyFingerprint() == fingerprint)

    let noKey = run(docbm, ["bookmark", session.path(of: 1, name: "bare.json").description, cat.description])
    #expect(noKey.status == 1)
    #expect(noKey.error.contains("portalRefusesAttributes"), "\(noKey.error)")
  }
}
