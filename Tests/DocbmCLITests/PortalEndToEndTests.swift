import DocbmSystem
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
    let fingerprint = try BookmarkService(escrow: nil).documents(anchoredOn: board).keyFingerprint()
    let inode = try FileStatus.of(board, followSymlinks: false).inode
    let projectBoard = try scratch.file("home/project/board.json", "{}")
    let projectCat = try scratch.file("home/project/images/cat.png", "cat")
    _ = try scratch.file("home/project/notes.json", "{}")
    let projectBookmark = run(docbm, ["bookmark", projectBoard.description, projectCat.description])
    try scratch.write(
      "{\"image\":\"\(projectBookmark.output.trimmingCharacters(in: .whitespacesAndNewlines))\"}",
      to: projectBoard)
    guard
      let portal = try TestDocumentPortal.start(exporting: [
        .file(board), .file(bare), .folder(projectBoard.removingLastComponent),
      ])
    else {
      print(TestDocumentPortal.skipReason)
      return
    }
    let through = portal.path(of: 0, name: "board.json").description

    let inspect = run(docbm, ["inspect", through])
    #expect(inspect.status == 0, "\(inspect.error)")
    #expect(
      inspect.output.contains(
        "portal:       through the Documents portal: document \(portal.documentIDs[0])"))
    #expect(inspect.output.contains("a single-file export"))
    #expect(inspect.output.contains("verifies, resolves"), "\(inspect.output)")
    let inspectJSON = run(docbm, ["inspect", "--json", through])
    #expect(
      inspectJSON.output.contains("\"documentID\" : \"\(portal.documentIDs[0])\""), "\(inspectJSON.output)")

    let check = run(docbm, ["check", "--all", through])
    #expect(check.status == 0, "\(check.output)\(check.error)")
    #expect(check.output.contains("through the Documents portal"), "\(check.output)")
    let checkJSON = run(docbm, ["check", "--json", through])
    #expect(checkJSON.output.contains("\"portalDocument\""), "\(checkJSON.output)")

    // A folder export is walked like any folder, through the portal's mount.
    let tree = run(docbm, ["check", "-r", "--all", portal.path(of: 2, name: "project").description])
    #expect(tree.status == 0, "\(tree.output)\(tree.error)")
    #expect(tree.output.contains("board.json  (1 bookmark)"), "\(tree.output)")
    // The export's note is said in full once; the other documents' lines refer to it.
    #expect(tree.output.ranges(of: "inside a folder export").count == 1, "\(tree.output)")
    #expect(
      tree.output.ranges(of: "(through the Documents portal, document \(portal.documentIDs[2]), as above)")
        .count == 2,
      "\(tree.output)")

    let refused = run(docbm, ["save", through], input: "{\"new\":1}")
    #expect(refused.status == 1)
    #expect(refused.error.contains("portalRefusesAttributes"), "\(refused.error)")
    #expect(refused.error.contains("docbm save --in-place"), "\(refused.error)")
    #expect(contents(board).hasPrefix("{\"image\""))

    let inPlace = run(docbm, ["save", "--in-place", through], input: "{\"new\":1}")
    #expect(inPlace.status == 0, "\(inPlace.error)")
    #expect(contents(board) == "{\"new\":1}")
    #expect(try FileStatus.of(board, followSymlinks: false).inode == inode)
    #expect(try BookmarkService(escrow: nil).documents(anchoredOn: board).keyFingerprint() == fingerprint)

    let noKey = run(docbm, ["bookmark", portal.path(of: 1, name: "bare.json").description, cat.description])
    #expect(noKey.status == 1)
    #expect(noKey.error.contains("portalRefusesAttributes"), "\(noKey.error)")
  }

  @Test(
    "in a real sandbox (bubblewrap, /.flatpak-info, the app's view of the portal): inspect says so, an invisible target is outsideSandbox"
  )
  func sandbox() throws {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/bwrap") else {
      Issue.record("bubblewrap (/usr/bin/bwrap) is missing: run 'make setup'")
      return
    }
    let probe = run("/usr/bin/bwrap", ["--ro-bind", "/", "/", "/bin/true"])
    guard probe.status == 0 else {
      print("skipped: bubblewrap cannot make a sandbox here (mount namespaces not permitted): \(probe.error)")
      return
    }
    let scratch = try Scratch()
    let board = try scratch.file("home/board.json", "{}")
    let cat = try scratch.file("home/images/cat.png", "cat")
    let projectBoard = try scratch.file("home/project/board.json", "{}")
    let projectCat = try scratch.file("home/project/images/cat.png", "cat")
    _ = try scratch.file("home/project/notes.json", "{}")
    let project = projectBoard.removingLastComponent
    // A project bookmarked on the host, then moved there as a whole.
    let movedBookmark = run(
      docbm,
      [
        "bookmark", try scratch.file("home/old/board.json", "{}").description,
        try scratch.file("home/old/images/dog.png", "dog").description,
      ]
    ).output.trimmingCharacters(in: .whitespacesAndNewlines)
    try scratch.move(scratch.path("home/old"), scratch.path("home/moved"))
    let moved = scratch.path("home/moved")
    try ExtendedAttributes.set(
      PortalDocument.hostPathAttribute, to: moved.bytes, on: .path(moved, followSymlinks: false))
    let made = run(docbm, ["bookmark", board.description, cat.description])
    #expect(made.status == 0, "\(made.error)")
    let bookmark = made.output.trimmingCharacters(in: .whitespacesAndNewlines)
    let app = "org.docbm.Sample"
    // The host path a newer portal reports itself; Debian 12's passes this attribute of the
    // exported folder through.
    try ExtendedAttributes.set(
      PortalDocument.hostPathAttribute, to: project.bytes, on: .path(project, followSymlinks: false))
    guard
      let portal = try TestDocumentPortal.start(exporting: [
        .fileForApp(board, app: app), .folderForApp(project, app: app), .folderForApp(moved, app: app),
      ])
    else {
      print(TestDocumentPortal.skipReason)
      return
    }
    let flatpakInfo = try scratch.file("flatpak-info", "[Application]\nname=\(app)\n")
    // What a Flatpak sandbox has: the system read-only, a private /tmp, the app's view of
    // the portal where the whole portal is, and /.flatpak-info.
    let docbmFolder = URL(fileURLWithPath: docbm).deletingLastPathComponent().path
    var arguments = [
      "--die-with-parent", "--unshare-pid", "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib",
      "--symlink", "usr/lib64", "/lib64", "--symlink", "usr/bin", "/bin", "--proc", "/proc", "--dev", "/dev",
      "--tmpfs", "/tmp", "--ro-bind", docbmFolder, docbmFolder,
      "--bind", portal.mountPoint.appending("by-app").appending(app).description,
      portal.mountPoint.description,
      "--ro-bind", flatpakInfo.description, "/.flatpak-info",
    ]
    for folder in Self.runtimeLibraryFolders() where !folder.hasPrefix("/usr/") {
      arguments += ["--ro-bind", folder, folder]
    }
    let inside = portal.path(of: 0, name: "board.json").description
    func sandboxed(_ command: [String]) -> ProcessResult {
      run("/usr/bin/bwrap", arguments + ["--setenv", "DOCBM_ESCROW_DIR", "/tmp/escrow", docbm] + command)
    }

    let inspect = sandboxed(["inspect", inside])
    #expect(inspect.status == 0, "\(inspect.error)")
    #expect(inspect.output.contains("in the view of app \(app)"), "\(inspect.output)")
    #expect(inspect.output.contains("key:          present"), "\(inspect.output)")

    let resolve = sandboxed(["resolve", inside, bookmark])
    #expect(resolve.status == 1, "\(resolve.output)")
    #expect(resolve.error.contains("outsideSandbox"), "\(resolve.error)")
    #expect(!resolve.error.contains("missing"), "\(resolve.error)")
    // On the host the same bookmark resolves.
    #expect(run(docbm, ["resolve", board.description, bookmark]).status == 0)

    // Inside a folder export, a bookmark made in the sandbox (its escrow cannot see the host
    // path, so records nothing) holds host paths, and resolves on the host.
    let exported = portal.path(of: 1, name: "project")
    let inSandbox = sandboxed([
      "bookmark", exported.appending("board.json").description,
      exported.appending("images").appending("cat.png").description,
    ])
    #expect(inSandbox.status == 0, "\(inSandbox.error)")
    let made2 = inSandbox.output.trimmingCharacters(in: .whitespacesAndNewlines)
    let decoded = run(docbm, ["decode", made2])
    #expect(decoded.output.contains(projectCat.description), "\(decoded.output)")
    #expect(!decoded.output.contains(portal.mountPoint.description), "\(decoded.output)")
    // The moved project, resolved in the sandbox: stale because the document moved on the
    // host (not because of the mount), refreshed from the host paths.
    let movedInside = portal.path(of: 2, name: "moved").appending("board.json").description
    let stale = sandboxed(["resolve", movedInside, movedBookmark])
    #expect(stale.status == 0, "\(stale.error)")
    #expect(stale.error.contains("stale: documentMoved"), "\(stale.error)")
    let refreshedText = stale.error.split(separator: "\n").first { $0.hasPrefix("refreshed: ") }?.dropFirst(
      11)
    let refreshed = run(docbm, ["decode", String(refreshedText ?? "")])
    #expect(
      refreshed.output.contains(moved.appending("images").appending("dog.png").description),
      "\(refreshed.output)")
    #expect(!refreshed.output.contains(portal.mountPoint.description), "\(refreshed.output)")

    let onHost = run(docbm, ["resolve", projectBoard.description, made2])
    #expect(onHost.status == 0, "\(onHost.error)")
    #expect(onHost.output.contains(projectCat.description), "\(onHost.output)")
  }

  /// The folders of the shared libraries this process (and so the docbm beside it) loaded.
  static func runtimeLibraryFolders() -> [String] {
    let maps = (try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8)) ?? ""
    var folders: Set<String> = []
    for line in maps.split(separator: "\n") {
      guard let path = line.split(separator: " ", omittingEmptySubsequences: true).last, path.hasPrefix("/"),
        path.contains(".so")
      else { continue }
      folders.insert(URL(fileURLWithPath: String(path)).deletingLastPathComponent().path)
    }
    // And those of the libraries docbm itself needs (a debug build needs some this process
    // may not have loaded, such as libswiftSwiftOnoneSupport).
    for line in run("/usr/bin/ldd", [Capabilities.docbmExecutable]).output.split(separator: "\n") {
      guard let arrow = line.range(of: "=> /") else { continue }
      let path =
        line[line.index(before: arrow.upperBound)...].split(separator: " ").first.map(String.init) ?? ""
      folders.insert(URL(fileURLWithPath: path).deletingLastPathComponent().path)
    }
    return folders.sorted()
  }
}
