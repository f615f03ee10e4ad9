import DocbmSystem
import DocbmTestSupport
import Foundation
import Glibc
import Testing

@testable import DocumentBookmarks

/// The filesystems the matrix makes for real, each in a private mount namespace. `fusepy`
/// is the tests' own FUSE passthrough (`Tests/FaultFS/faultfs.py`, libfuse 2) with no fault
/// asked for.
enum LabFilesystem: String, CaseIterable, Sendable, CustomTestStringConvertible {
  case ext4, xfs, btrfs, tmpfs, overlayfs, bindfs, fusepy

  var testDescription: String { rawValue }
}

/// Why a filesystem test could not run here (it then prints this and passes).
struct LabSkip: Error, CustomStringConvertible {
  let description: String
}

/// A dedicated thread in a private mount namespace, with a scratch folder, on which a test
/// mounts real filesystems (loop images, tmpfs, overlayfs, FUSE) and uses the library on
/// them. Mount namespaces belong to threads: the library's calls made on this thread, and
/// the programs it starts (`mount`, `mkfs.*`, `bindfs`), see the mounts; nothing else does,
/// and they vanish with the thread.
final class FilesystemLab: @unchecked Sendable {
  let scratch: Scratch
  private var mounted: [FilePath] = []
  private var daemons: [Process] = []

  private init(scratch: Scratch) {
    self.scratch = scratch
  }

  /// Runs `body` on a new thread inside a new private mount namespace and returns what it
  /// returns; `nil` (after printing why) when this machine cannot make one.
  static func inNamespace<Value: Sendable>(
    _ name: String, _ body: @escaping @Sendable (FilesystemLab) throws -> Value
  ) async throws -> Value? {
    let outcome: Result<Value, any Error> = await withCheckedContinuation { continuation in
      let thread = Thread {
        continuation.resume(returning: Result { try FilesystemLab.runHere(body) })
      }
      thread.name = "docbm-fs-lab"
      thread.start()
    }
    do {
      return try outcome.get()
    } catch let skip as LabSkip {
      print("skipped \(name): \(skip.description)")
      return nil
    }
  }

  private static func runHere<Value>(_ body: (FilesystemLab) throws -> Value) throws -> Value {
    guard Capabilities.isRoot else { throw LabSkip(description: "mounting filesystems needs root") }
    do {
      try PrivateMountNamespace.enterOnThisThread()
    } catch {
      throw LabSkip(description: "cannot make a private mount namespace (\(error))")
    }
    // The programs this thread starts must share its namespace, or a mount would land in
    // the machine's: check before mounting anything.
    let mine = PrivateMountNamespace.identity()
    let child = run("/bin/readlink", ["/proc/self/ns/mnt"]).output.trimmingCharacters(
      in: .whitespacesAndNewlines)
    guard let mine, mine != PrivateMountNamespace.identity("/proc/self/ns/mnt"), child == mine else {
      throw LabSkip(description: "programs started here do not share the thread's mount namespace")
    }
    let lab = FilesystemLab(scratch: try Scratch())
    defer { lab.tearDown() }
    return try body(lab)
  }

  /// Runs a shell script here (in the namespace); throws with its output when it fails.
  @discardableResult
  func sh(_ script: String) throws -> String {
    let result = run("/bin/sh", ["-c", script])
    guard result.status == 0 else {
      throw LabError(script: script, status: result.status, output: result.output + result.error)
    }
    return result.output
  }

  /// The full path of an installed program.
  func executable(_ program: String) throws -> String {
    let found = run("/bin/sh", ["-c", "command -v \(program)"]).output.trimmingCharacters(
      in: .whitespacesAndNewlines)
    guard !found.isEmpty else { throw LabSkip(description: "\(program) is not installed") }
    return found
  }

  /// Whether `program` is installed (on the `PATH` of `sh`).
  func has(_ program: String) -> Bool {
    run("/bin/sh", ["-c", "command -v \(program)"]).status == 0
  }

  /// Makes a fresh filesystem of `kind` and mounts it at a new folder of the scratch
  /// folder; returns the mount point. Throws ``LabSkip`` when its tools or loop devices are
  /// missing.
  func mount(_ kind: LabFilesystem, name: String? = nil) throws -> FilePath {
    let label = name ?? kind.rawValue
    let point = try scratch.folder("mnt-\(label)")
    let image = scratch.path("\(label).img")
    func make(_ tool: String, package: String, size: String, options: String) throws {
      guard has(tool) else {
        throw LabSkip(description: "\(tool) is not installed (apt-get install \(package))")
      }
      try sh("truncate -s \(size) '\(image)' && \(tool) \(options) '\(image)' > /dev/null")
    }
    switch kind {
    case .ext4: try make("mkfs.ext4", package: "e2fsprogs", size: "32M", options: "-q -b 4096")
    case .xfs: try make("mkfs.xfs", package: "xfsprogs", size: "300M", options: "-q")
    case .btrfs: try make("mkfs.btrfs", package: "btrfs-progs", size: "128M", options: "-q")
    case .tmpfs: break
    case .overlayfs:
      let layers = try scratch.folder("layers-\(label)")
      try sh("mkdir -p '\(layers)/lower' '\(layers)/upper' '\(layers)/work'")
    case .bindfs:
      guard has("bindfs") else {
        throw LabSkip(description: "bindfs is not installed (apt-get install bindfs)")
      }
      try scratch.folder("source-\(label)")
    case .fusepy:
      guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"),
        run("/usr/bin/python3", ["-c", "import fusepy"]).status == 0
      else { throw LabSkip(description: "python3-fusepy is not installed (apt-get install python3-fusepy)") }
      guard FileManager.default.fileExists(atPath: "/dev/fuse") else {
        throw LabSkip(description: "/dev/fuse is missing")
      }
      try scratch.folder("source-\(label)")
    }
    try remount(kind, name: label)
    return point
  }

  /// Mounts again, at the same folder, what ``mount(_:name:)`` made (the same image, layers
  /// or source folder; a new, empty tmpfs).
  func remount(_ kind: LabFilesystem, name: String? = nil) throws {
    let label = name ?? kind.rawValue
    let point = scratch.path("mnt-\(label)")
    switch kind {
    case .ext4, .xfs, .btrfs:
      let result = run(
        "/bin/mount", ["-o", "loop", scratch.path("\(label).img").description, point.description])
      guard result.status == 0 else {
        throw LabSkip(description: "loop devices are not available: \(result.error)")
      }
      mounted.append(point)
    case .tmpfs:
      try sh("mount -t tmpfs -o size=64m none '\(point)'")
      mounted.append(point)
    case .overlayfs:
      try mountOverlay(layers: scratch.path("layers-\(label)"), at: point)
    case .bindfs:
      let source = scratch.path("source-\(label)")
      try startFUSE(try executable("bindfs"), ["-f", source.description, point.description], at: point)
    case .fusepy:
      let arguments = [
        Self.faultScript, scratch.path("source-\(label)").description, point.description,
        scratch.path("control-\(label)").description, scratch.path("log-\(label)").description,
      ]
      try startFUSE("/usr/bin/python3", arguments, at: point)
    }
  }

  /// The fault-injecting FUSE passthrough, `Tests/FaultFS/faultfs.py`.
  static let faultScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("FaultFS/faultfs.py").path

  /// Mounts an overlay of `layers`/lower, upper and work at `point` (the layers made by the
  /// caller, so a test can put files in the lower layer first).
  func mountOverlay(layers: FilePath, at point: FilePath) throws {
    let result = run(
      "/bin/mount",
      [
        "-t", "overlay", "overlay", "-o",
        "lowerdir=\(layers)/lower,upperdir=\(layers)/upper,workdir=\(layers)/work", point.description,
      ])
    guard result.status == 0 else {
      throw LabSkip(description: "overlayfs cannot be mounted: \(result.error)")
    }
    if !mounted.contains(point) { mounted.append(point) }
  }

  /// Starts a FUSE daemon that stays in the foreground (so this lab can stop it), and
  /// waits until `point` is mounted.
  func startFUSE(_ executable: String, _ arguments: [String], at point: FilePath) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    let errors = Pipe()
    process.standardError = errors
    try process.run()
    daemons.append(process)
    _ = waitUntil { isMountPoint(point) || !process.isRunning }
    if isMountPoint(point) {
      mounted.append(point)
      return
    }
    process.terminate()
    let message = String(decoding: errors.fileHandleForReading.availableData, as: UTF8.self)
    throw LabSkip(description: "the FUSE filesystem did not mount: \(message)")
  }

  /// Kills the FUSE servers started so far with SIGKILL, as a crash would: their mounts
  /// stay, and every call on them fails with ENOTCONN until they are unmounted.
  func killFUSEServers() {
    for daemon in daemons where daemon.isRunning {
      kill(daemon.processIdentifier, SIGKILL)
      daemon.waitUntilExit()
    }
  }

  /// Whether `path` is the root of a mount.
  func isMountPoint(_ path: FilePath) -> Bool {
    (try? FileStatus.of(path, followSymlinks: false))?.isMountRoot ?? false
  }

  /// Unmounts `point`. A mount still in use (`EBUSY`) is detached lazily (`umount -l`): a
  /// process another test spawns at that moment holds copies of this process's descriptors
  /// until it runs its program, which may keep the mount busy for that instant; detached,
  /// the mount point is gone from the namespace at once, as the cases expect.
  func unmount(_ point: FilePath) throws {
    if run("/bin/umount", [point.description]).status != 0 {
      try sh("umount -l '\(point)'")
    }
    mounted.removeAll { $0 == point }
  }

  private func tearDown() {
    for point in mounted.reversed() {
      if run("/bin/umount", [point.description]).status != 0 {
        run("/bin/umount", ["-l", point.description])
      }
    }
    for daemon in daemons where daemon.isRunning {
      daemon.terminate()
      daemon.waitUntilExit()
    }
  }
}

/// A setup command of a filesystem test failed.
struct LabError: Error, CustomStringConvertible {
  let script: String
  let status: Int32
  let output: String
  var description: String { "`\(script)` exited \(status): \(output)" }
}

/// The measured tables: when `DOCBM_FILESYSTEM_TABLE` names a file, each measured cell is
/// appended to it as a line `table<TAB>filesystem<TAB>operation<TAB>result`, from which
/// `make filesystem-table` writes docs/filesystems.md's tables.
enum FilesystemTable {
  static func record(_ table: String, _ filesystem: String, _ operation: String, _ result: String) {
    guard let path = ProcessInfo.processInfo.environment["DOCBM_FILESYSTEM_TABLE"], !path.isEmpty else {
      return
    }
    let line = Array("\(table)\t\(filesystem)\t\(operation)\t\(result)\n".utf8)
    let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
    guard fd >= 0 else { return }
    defer { close(fd) }
    _ = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
  }
}

/// What a resolution came to, in the words of the table.
func describe(_ outcome: Result<Resolution, DocbmError>, expecting expected: FilePath) -> String {
  switch outcome {
  case .success(let resolution):
    var text =
      resolution.isStale
      ? "stale: " + resolution.staleReasons.map(\.rawValue).joined(separator: ", ") : "resolved"
    if resolution.path != expected { text += " (at \(resolution.path), not \(expected))" }
    return text
  case .failure(let error):
    return "error: \(error.code.rawValue)"
  }
}

extension AnchoredDocument {
  /// Resolves `bookmark`, as a `Result`.
  func outcome(_ bookmark: Bookmark) -> Result<Resolution, DocbmError> {
    Result { () throws(DocbmError) in try resolve(bookmark) }
  }
}
