import DocbmSystem
import DocbmTestSupport
import DocumentBookmarks
import Foundation
import Glibc
import Testing

/// `docbm escrow export` into a folder another user can write, with that user attacking it
/// (docs/security.md, "Exports"), and exports killed at any point.
@Suite("docbm escrow export under attack")
struct ExportRaceTests {
  let docbm = Capabilities.docbmExecutable

  /// The attacker: `Tests/Fixtures/rename-over.py`, run as `nobody`, renaming a file of his
  /// own over every name that appears in `folder`; stopped by closing its input.
  final class RenameOver {
    let process = Process()
    private let input = Pipe()
    private let output = Pipe()

    init(folder: FilePath) throws {
      let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/rename-over.py").path
      process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
      process.arguments = [
        "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", script, folder.description,
        "600",
      ]
      process.standardInput = input
      process.standardOutput = output
      process.standardError = FileHandle.nullDevice
      try process.run()
    }

    /// The next line it prints (waits for it).
    func line() -> String {
      var bytes: [UInt8] = []
      var byte: UInt8 = 0
      while read(output.fileHandleForReading.fileDescriptor, &byte, 1) == 1, byte != UInt8(ascii: "\n") {
        bytes.append(byte)
      }
      return String(decoding: bytes, as: UTF8.self)
    }

    /// Stops it; how many names it took over.
    func stop() -> Int {
      try? input.fileHandleForWriting.close()
      let last = line()
      process.waitUntilExit()
      return Int(last.split(separator: " ").last ?? "") ?? -1
    }
  }

  /// A scratch area `nobody` can reach, with an escrow holding one key, and a folder
  /// `shared` with `mode`.
  private func sharedFolder(mode: mode_t) throws -> (Scratch, FilePath, [String: String]) {
    let scratch = try Scratch()
    chmod(scratch.root.description, 0o755)
    let escrow = ["DOCBM_ESCROW_DIR": scratch.path("escrow").description]
    let board = try scratch.file("board.json", "{}")
    let image = try scratch.file("img.png")
    let made = run(docbm, ["bookmark", board.description, image.description], environment: escrow)
    try #require(made.status == 0, "\(made.error)")
    let shared = try scratch.folder("shared")
    chmod(shared.description, mode)
    return (scratch, shared, escrow)
  }

  /// Every entry of `folder`: its name, owner, mode and first bytes.
  private func entries(of folder: FilePath) throws -> [(
    name: String, owner: UInt32, mode: UInt32, head: [UInt8]
  )] {
    try FileManager.default.contentsOfDirectory(atPath: folder.description).sorted().map { name in
      let path = folder.appending(name)
      let status = try FileStatus.of(path, followSymlinks: false)
      let head = (FileManager.default.contents(atPath: path.description) ?? Data()).prefix(16)
      return (name, status.owner, status.permissions & 0o7777, Array(head))
    }
  }

  @Test(
    "another user renaming his files over every new name in a shared folder never gets a key",
    arguments: [mode_t(0o777), 0o2775])
  func renamedOver(mode: mode_t) throws {
    guard Capabilities.canDropPrivileges, FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")
    else {
      print(Capabilities.cannotDropPrivileges)
      return
    }
    let (scratch, shared, escrow) = try sharedFolder(mode: mode)
    if mode & 0o020 != 0 {
      // A group project folder: the attacker is in its group.
      chown(shared.description, 0, 65534)
    }
    let attacker = try RenameOver(folder: shared)
    #expect(attacker.line() == "watching")
    var exported: Set<String> = []
    for round in 0..<100 {
      let name = "keys-\(round).docbm"
      let export = run(
        docbm,
        ["escrow", "export", shared.appending(name).description] + (round % 2 == 1 ? ["--force"] : []),
        environment: escrow)
      if export.status == 0 {
        #expect(export.output.contains("(mode 600)"), "\(export.output)")
        exported.insert(name)
      } else {
        #expect(
          export.error.contains("escrowUntrusted") || export.error.contains("documentExists"),
          "\(export.error)")
      }
    }
    let taken = attacker.stop()
    #expect(taken > 0, "the attack took no name: it proved nothing")
    let sqlite = Array("SQLite format 3".utf8)
    for entry in try entries(of: shared) {
      if entry.owner == 65534 {
        // His files hold nothing of the user's.
        #expect(entry.head.isEmpty, "\(entry.name) of the attacker holds \(entry.head)")
      } else {
        // The user's: only exports that were reported, complete and private.
        #expect(exported.contains(entry.name), "\(entry.name) left behind")
        #expect(entry.mode == 0o600 && entry.head.starts(with: sqlite), "\(entry.name)")
      }
    }
    _ = scratch
  }

  @Test("an export killed at any point leaves no temporary holding keys, and the next one sweeps")
  func killed() throws {
    let (scratch, shared, escrow) = try sharedFolder(mode: 0o755)
    var environment = ProcessInfo.processInfo.environment
    environment.merge(escrow) { $1 }
    let export = shared.appending("keys.docbm")
    for round in 0..<100 {
      let process = Process()
      process.executableURL = URL(fileURLWithPath: docbm)
      process.arguments = ["escrow", "export", "--force", shared.appending("keys.docbm").description]
      process.environment = environment
      process.standardOutput = FileHandle.nullDevice
      process.standardError = FileHandle.nullDevice
      let before = try? FileStatus.of(export, followSymlinks: false)
      try process.run()
      // Killed at once, or once the folder shows the export at work (its temporary, or a new
      // file at its name), round by round: watched without pausing, so no step is missed.
      if round % 2 == 1 {
        while process.isRunning {
          let now = try? FileStatus.of(export, followSymlinks: false)
          if now?.inode != before?.inode { break }
          let names = (try? FileManager.default.contentsOfDirectory(atPath: shared.description)) ?? []
          if names.contains(where: { $0.contains(".docbm-export-") }) { break }
        }
      }
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
      let left = try entries(of: shared).filter { $0.name != "keys.docbm" }
      // A killed export leaves at most its own temporary, which the next export removes.
      #expect(left.count <= 1, "\(left.map(\.name))")
    }
    let last = run(
      docbm, ["escrow", "export", "--force", shared.appending("keys.docbm").description], environment: escrow)
    #expect(last.status == 0, "\(last.error)")
    #expect(try entries(of: shared).map(\.name) == ["keys.docbm"])
    _ = scratch
  }
}
