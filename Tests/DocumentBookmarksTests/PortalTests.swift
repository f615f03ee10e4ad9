import DocbmSystem
import DocbmTestSupport
import Foundation
import Glibc
import Testing

@testable import DocumentBookmarks

/// Against a real Documents portal (xdg-document-portal in a bus of its own): each
/// test exports files and folders of a scratch "home" and works through the FUSE mount.
@Suite("Documents portal")
struct PortalTests {
  let scratch: Scratch
  /// The host's view: `home/board.json` (a file export), `home/images/cat.png` its target,
  /// `home/project/{board.json,images/cat.png}` (a folder export).
  let home: FilePath
  let service = BookmarkService(escrow: nil)

  init() throws {
    scratch = try Scratch()
    home = try TargetSnapshot.canonicalPath(try scratch.folder("home"))
    try scratch.write("{\"board\":1}", to: home.appending("board.json"))
    try scratch.folder("home/images")
    try scratch.write("cat", to: home.appending("images").appending("cat.png"))
    try scratch.folder("home/project/images")
    try scratch.write("{\"project\":1}", to: home.appending("project").appending("board.json"))
    try scratch.write("cat", to: home.appending("project").appending("images").appending("cat.png"))
  }

  var board: FilePath { home.appending("board.json") }
  var cat: FilePath { home.appending("images").appending("cat.png") }
  var project: FilePath { home.appending("project") }

  /// Starts a portal exporting `exports`, or prints why it cannot here.
  func startPortal(_ exports: [TestDocumentPortal.Export]) throws -> TestDocumentPortal? {
    guard let portal = try TestDocumentPortal.start(exporting: exports) else {
      print(TestDocumentPortal.skipReason)
      return nil
    }
    return portal
  }

  /// Gives `path` the host-path attribute a newer portal reports itself; the portal of
  /// Debian 12 (1.16) passes a folder export's own attributes through, so through the
  /// mount it reads as it would from a portal that offers it.
  func offerHostPath(_ path: FilePath) throws {
    try ExtendedAttributes.set(
      PortalDocument.hostPathAttribute, to: path.bytes, on: .path(path, followSymlinks: false))
  }

  func attributes(_ path: FilePath) throws -> [[UInt8]] {
    try ExtendedAttributes.names(of: .path(path, followSymlinks: false)).sorted {
      $0.lexicographicallyPrecedes($1)
    }
  }

  @Test("portal paths are told apart: file and folder exports, an app's view, host paths")
  func detection() throws {
    guard
      let portal = try startPortal([
        .file(board), .folder(project), .fileForApp(board, app: "org.docbm.Sample"),
      ])
    else { return }
    let table = try MountTable.current()
    #expect(table.mount(containing: portal.mountPoint)?.fileSystemType == "fuse.portal")
    #expect(!PortalMounts.noneMounted())
    #expect(!PortalMounts.noneMounted(maximumAge: 1_000_000_000))

    let file = try #require(PortalDocument.of(portal.path(of: 0, name: "board.json")))
    #expect(file.kind == .file)
    #expect(file.refusesAttributes)
    #expect(file.documentID == portal.documentIDs[0])
    #expect(file.appID == nil)
    #expect(!file.isSandboxView || PortalDocument.isInsideFlatpak)
    #expect(file.exportedPath == portal.path(of: 0, name: "board.json"))

    let inside = try #require(PortalDocument.of(portal.path(of: 1, name: "project").appending("images")))
    #expect(inside.kind == .folder)
    #expect(!inside.refusesAttributes)
    #expect(inside.exportedPath == portal.path(of: 1, name: "project"))

    let appView = try #require(
      PortalDocument.of(portal.path(of: 2, name: "board.json", app: "org.docbm.Sample")))
    #expect(appView.appID == "org.docbm.Sample")
    #expect(appView.isSandboxView)
    #expect(appView.kind == .file)

    #expect(PortalDocument.of(board) == nil)
    #expect(PortalDocument.of(portal.mountPoint) == nil)
    if portal.version < 5 {
      // Debian 12's portal offers neither the attribute nor GetHostPaths.
      #expect(file.hostPath == nil)
      #expect(file.hostPathSource == .unknown)
    }
    try offerHostPath(project)
    let offered = try #require(
      PortalDocument.of(portal.path(of: 1, name: "project").appending("board.json")))
    #expect(offered.hostPath == project.appending("board.json"))
    #expect(offered.hostPathSource == .attribute)
    #expect(
      offered.portalPath(ofHost: project.appending("images"))
        == portal.path(of: 1, name: "project").appending("images"))
    #expect(offered.portalPath(ofHost: cat) == nil)
  }

  @Test(
    "P1: a bookmark on a single-file export without a key fails with portalRefusesAttributes, nothing written"
  )
  func fileExportRefusesKey() throws {
    guard let portal = try startPortal([.file(board)]) else { return }
    let through = portal.path(of: 0, name: "board.json")
    let before = try attributes(board)
    let error = #expect(throws: DocbmError.self) {
      try service.documents(anchoredOn: through).makeBookmark(to: cat)
    }
    #expect(error?.code == .portalRefusesAttributes)
    #expect(error?.recommendation == .useAnotherLocation)
    #expect(error?.message.contains("export the folder") == true)
    #expect(try attributes(board) == before)
    #expect(try KeyAttribute.read(atPath: board).key(of: board) == nil)
  }

  @Test("P2: a safe save on a single-file export is refused before the writer runs; nothing is left behind")
  func fileExportRefusesSave() throws {
    guard let portal = try startPortal([.file(board)]) else { return }
    let host = service.documents(anchoredOn: board)
    let fingerprint = try host.makeBookmark(to: cat).keyFingerprint
    let through = service.documents(anchoredOn: portal.path(of: 0, name: "board.json"))
    let listing = try FileManager.default.contentsOfDirectory(atPath: home.description).sorted()
    var writerRan = false
    let error = #expect(throws: DocbmError.self) {
      try through.replaceDocument { url in
        writerRan = true
        try Data("new".utf8).write(to: url)
      }
    }
    #expect(error?.code == .portalRefusesAttributes)
    #expect(error?.step == .prepareTemporary)
    #expect(error?.message.contains("in place") == true)
    #expect(!writerRan)
    let dataError = #expect(throws: DocbmError.self) { try through.replaceDocument(with: Data("new".utf8)) }
    #expect(dataError?.code == .portalRefusesAttributes)
    #expect(try FileManager.default.contentsOfDirectory(atPath: home.description).sorted() == listing)
    #expect(try String(contentsOfFile: board.description, encoding: .utf8) == "{\"board\":1}")
    #expect(try host.keyFingerprint() == fingerprint)
  }

  @Test("P3: inside a folder export, bookmarks, safe saves and checks work; the host file keeps its key")
  func folderExportWorks() throws {
    guard let portal = try startPortal([.folder(project)]) else { return }
    try offerHostPath(project)
    let exported = portal.path(of: 0, name: "project")
    let through = service.documents(anchoredOn: exported.appending("board.json"))
    let bookmark = try through.makeBookmark(to: exported.appending("images").appending("cat.png"))
    let hostDocument = service.documents(anchoredOn: project.appending("board.json"))
    #expect(try hostDocument.keyFingerprint() == bookmark.keyFingerprint)
    let hostInode = try FileStatus.of(project.appending("board.json"), followSymlinks: false).inode

    let saved = "{\"image\":\"\(bookmark.text)\"}"
    try through.replaceDocument { url in try Data(saved.utf8).write(to: url) }
    #expect(try String(contentsOfFile: project.appending("board.json").description, encoding: .utf8) == saved)
    #expect(try FileStatus.of(project.appending("board.json"), followSymlinks: false).inode != hostInode)
    #expect(try hostDocument.keyFingerprint() == bookmark.keyFingerprint)

    let resolution = try through.resolve(bookmark)
    #expect(!resolution.isStale)
    #expect(resolution.portalDocument?.kind == .folder)
    let check = DocumentChecker(escrow: nil).check(exported.appending("board.json"))
    #expect(check.verdict == .ok, "\(check)")
    #expect(check.bookmarks.map(\.resolves) == [true])
  }

  @Test("P4: a bookmark made on the host resolves through the portal with no staleness from the mount")
  func hostBookmarkThroughPortal() throws {
    guard let portal = try startPortal([.file(board), .folder(project)]) else { return }
    let bookmark = try service.documents(anchoredOn: board).makeBookmark(to: cat)
    // A single-file export of a portal that does not say its host path.
    let resolution = try service.documents(anchoredOn: portal.path(of: 0, name: "board.json")).resolve(
      bookmark)
    #expect(resolution.path == cat)
    #expect(resolution.staleReasons.isEmpty)
    #expect(resolution.refreshed == nil)
    #expect(resolution.portalDocument?.documentID == portal.documentIDs[0])

    // In a folder export whose host path the portal gives, the host path is where
    // resolution starts: the same result, and a move on the host is found from there.
    let projectBookmark = try service.documents(anchoredOn: project.appending("board.json"))
      .makeBookmark(to: project.appending("images").appending("cat.png"))
    try offerHostPath(project)
    let through = service.documents(anchoredOn: portal.path(of: 1, name: "project").appending("board.json"))
    let exact = try through.resolve(projectBookmark)
    #expect(exact.staleReasons.isEmpty)
    #expect(exact.refreshed == nil)
    try scratch.move(
      project.appending("images").appending("cat.png"), project.appending("images").appending("kitten.png"))
    let moved = try through.resolve(projectBookmark)
    #expect(moved.staleReasons == [.targetMoved])
    let refreshed = try #require(moved.refreshed).decodeUnverified()
    #expect(refreshed.absolutePath == project.appending("images").appending("kitten.png"))
    #expect(refreshed.relativePath == "images/kitten.png")
    #expect(!refreshed.absolutePath.description.contains(portal.mountPoint.description))
  }

  @Test(
    "P5: a bookmark made through the portal records host paths and no portal inode, and resolves on the host")
  func bookmarkMadeThroughPortal() throws {
    guard let portal = try startPortal([.folder(project), .file(board)]) else { return }
    let exported = portal.path(of: 0, name: "project")
    let target = exported.appending("images").appending("cat.png")
    let unknown = #expect(throws: DocbmError.self) {
      try service.documents(anchoredOn: exported.appending("board.json")).makeBookmark(to: target)
    }
    if portal.version < 5 {
      #expect(unknown?.code == .portalHostPathUnknown)
      // Refused before any key was written.
      #expect(try KeyAttribute.read(atPath: project.appending("board.json")).key(of: project) == nil)
    }

    try offerHostPath(project)
    let bookmark = try service.documents(anchoredOn: exported.appending("board.json")).makeBookmark(
      to: target)
    let contents = try bookmark.decodeUnverified()
    let hostTarget = project.appending("images").appending("cat.png")
    #expect(contents.absolutePath == hostTarget)
    #expect(contents.relativePath == "images/cat.png")
    #expect(contents.documentPath == project.appending("board.json"))
    #expect(contents.identity.inode == 0)
    #expect(contents.identity.fileHandle == nil && contents.identity.birthTime == nil)
    #expect(contents.volume.mountPoint == nil)
    let portalInode = try FileStatus.of(target, followSymlinks: false).inode
    #expect(portalInode != (try FileStatus.of(hostTarget, followSymlinks: false)).inode)

    let onHost = try service.documents(anchoredOn: project.appending("board.json")).resolve(bookmark)
    #expect(onHost.path == hostTarget)
    #expect(onHost.staleReasons.isEmpty)
    // Found by path after the document and its project move together on the host.
    let movedProject = home.appending("moved-project")
    try scratch.move(project, movedProject)
    let afterMove = try service.documents(anchoredOn: movedProject.appending("board.json")).resolve(bookmark)
    #expect(afterMove.path == movedProject.appending("images").appending("cat.png"))
    #expect(afterMove.staleReasons == [.documentMoved])
  }

  @Test("P6: the opt-in save in place keeps a single-file export's key and host inode")
  func saveInPlace() throws {
    guard let portal = try startPortal([.file(board)]) else { return }
    let fingerprint = try service.documents(anchoredOn: board).makeBookmark(to: cat).keyFingerprint
    let inode = try FileStatus.of(board, followSymlinks: false).inode
    let through = service.documents(anchoredOn: portal.path(of: 0, name: "board.json"))
    let options = ReplaceOptions(portalFileDocuments: .writeInPlace)
    try through.replaceDocument(with: Data("{\"in\":\"place\"}".utf8), options: options)
    #expect(try String(contentsOfFile: board.description, encoding: .utf8) == "{\"in\":\"place\"}")
    try through.replaceDocument(options: options) { url in try Data("{}".utf8).write(to: url) }
    #expect(try String(contentsOfFile: board.description, encoding: .utf8) == "{}")
    #expect(try FileStatus.of(board, followSymlinks: false).inode == inode)
    #expect(try service.documents(anchoredOn: board).keyFingerprint() == fingerprint)

    // A writer that fails leaves the document as it was.
    struct Refused: Error {}
    let error = #expect(throws: DocbmError.self) {
      try through.replaceDocument(options: options) { _ in throw Refused() }
    }
    #expect(error?.code == .writerFailed)
    #expect(try String(contentsOfFile: board.description, encoding: .utf8) == "{}")
  }

  @Test("P7: in an app's view, a target the app cannot see is outsideSandbox (pick again), never forget")
  func outsideSandbox() throws {
    guard let portal = try startPortal([.fileForApp(board, app: "org.docbm.Sample")]) else { return }
    let bookmark = try service.documents(anchoredOn: board).makeBookmark(to: cat)
    let appView = service.documents(
      anchoredOn: portal.path(of: 0, name: "board.json", app: "org.docbm.Sample"))
    #expect(try appView.resolve(bookmark).path == cat)
    // The target leaves both recorded paths: from the app's view it cannot be told from a
    // file the sandbox does not share.
    try scratch.move(cat, home.appending("elsewhere.png"))
    let error = #expect(throws: DocbmError.self) { try appView.resolve(bookmark) }
    #expect(error?.code == .outsideSandbox)
    #expect(error?.recommendation == .pickAgain)
    #expect(error?.lastKnownPath == cat)
  }

  @Test("the portal's layout is read from a mount table line, the app's view from the mount's root")
  func layoutFromMountTable() throws {
    let text = """
      61 27 0:52 /by-app/org.docbm.Sample /run/user/1000/doc rw,nosuid,nodev - fuse.portal portal rw,user_id=1000
      62 27 0:52 / /run/user/0/doc rw,nosuid,nodev - fuse.portal portal rw,user_id=0

      """
    let table = MountTable(parsing: Array(text.utf8))
    let sandboxed = try #require(
      PortalDocument(real: "/run/user/1000/doc/4f2a/board.json", mount: table.mounts[0]))
    #expect(sandboxed.appID == "org.docbm.Sample")
    #expect(sandboxed.documentID == "4f2a")
    #expect(sandboxed.exportedPath == "/run/user/1000/doc/4f2a/board.json")
    let full = try #require(
      PortalDocument(real: "/run/user/0/doc/by-app/org.x/9b1c/proj/a/b", mount: table.mounts[1]))
    #expect(full.appID == "org.x")
    #expect(full.kind == .folder)
    #expect(full.exportedPath == "/run/user/0/doc/by-app/org.x/9b1c/proj")
    #expect(PortalDocument(real: "/run/user/0/doc/9b1c", mount: table.mounts[1]) == nil)
  }

  @Test("a portal document encodes its fields by name, decodes equal, and compares by its fields")
  func portalDocumentValue() throws {
    let text = "62 27 0:52 / /run/user/0/doc rw,nosuid,nodev - fuse.portal portal rw,user_id=0\n"
    let table = MountTable(parsing: Array(text.utf8))
    let document = try #require(
      PortalDocument(real: "/run/user/0/doc/by-app/org.x/9b1c/proj/a/b", mount: table.mounts[0]))
    let again = try #require(
      PortalDocument(real: "/run/user/0/doc/by-app/org.x/9b1c/proj/a/b", mount: table.mounts[0]))
    let other = try #require(
      PortalDocument(real: "/run/user/0/doc/by-app/org.x/9b1c/proj/a/c", mount: table.mounts[0]))
    // Made apart, equal by value; another path, another value.
    #expect(document == again)
    #expect(document.hashValue == again.hashValue)
    #expect(document != other)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let json = try encoder.encode(document)
    let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
    #expect(Set(object.keys) == ["path", "documentID", "appID", "kind", "exportedPath", "hostPathSource"])
    #expect(object["documentID"] as? String == "9b1c")
    #expect(object["appID"] as? String == "org.x")
    #expect(object["kind"] as? String == "folder")
    #expect(object["hostPathSource"] as? String == "unknown")
    let decoded = try JSONDecoder().decode(PortalDocument.self, from: json)
    #expect(decoded == document)
    #expect(decoded.path == document.path)
    #expect(decoded.exportedPath == "/run/user/0/doc/by-app/org.x/9b1c/proj")
    #expect(decoded.hostPath == nil)
    // Printed as its fields, not as the reference that holds them.
    #expect(String(describing: document).contains("documentID: \"9b1c\""))
  }
}
