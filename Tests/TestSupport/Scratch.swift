public import DocumentBookmarks
import Foundation
import Glibc

/// A temporary folder for one test, removed when the value is released. Files are made
/// with plain system calls, never with Foundation's atomic writes.
public final class Scratch: @unchecked Sendable {
  /// The folder's real path (symbolic links in the temporary folder's path resolved).
  public let root: FilePath
  /// The scratch folder this one was made in, kept until this one is removed.
  private var enclosing: Scratch?

  /// A scratch folder two folders inside a scratch folder of its own, so that a search
  /// that climbs two folders above one of its folders (a moved target's, from
  /// `SearchBudget`'s `ascent`) stays among files of this test, never in the shared
  /// temporary folder where other tests come and go.
  public static func enclosed() throws -> Scratch {
    let outer = try Scratch()
    let middle = outer.root.appending("area").description
    guard mkdir(middle, 0o700) == 0 else { throw ScratchError.system("mkdir", errno) }
    let inner = try Scratch(in: middle)
    inner.enclosing = outer
    return inner
  }

  public init(in base: String? = nil) throws {
    let base = base ?? ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
    var template = Array("\(base)/docbm-test-XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { throw ScratchError.system("mkdtemp", errno) }
    let real = realpath(made, nil)
    defer { free(real) }
    root = FilePath(String(cString: real!))
  }

  /// A scratch folder where a user's documents would be, not under `/tmp` or `$TMPDIR`
  /// (editors save files there differently): under the package's `.build` folder when the
  /// tests run from the package, else under `$HOME`. `nil` when neither is usable.
  public static func inUserFolder() -> Scratch? {
    let candidates = [
      FileManager.default.currentDirectoryPath + "/.build",
      (ProcessInfo.processInfo.environment["HOME"] ?? "/root") + "/.cache",
    ]
    for candidate in candidates {
      _ = mkdir(candidate, 0o755)
      guard let real = realpath(candidate, nil) else { continue }
      defer { free(real) }
      let path = FilePath(String(cString: real))
      guard !ScratchDocument.isTemporaryFolder(path), let scratch = try? Scratch(in: path.description) else {
        continue
      }
      return scratch
    }
    return nil
  }

  deinit {
    run("/bin/rm", ["-rf", root.description])
  }

  /// The path of `relative` inside the scratch folder.
  public func path(_ relative: String) -> FilePath {
    FilePath(root.description + "/" + relative)
  }

  /// Makes a file (and its folders) with `contents`.
  @discardableResult
  public func file(_ relative: String, _ contents: String = "contents") throws -> FilePath {
    let path = path(relative)
    try makeParents(of: path)
    try write(contents, to: path)
    return path
  }

  /// Makes a file at an exact path given as bytes.
  @discardableResult
  public func file(bytes path: FilePath, _ contents: String = "contents") throws -> FilePath {
    try makeParents(of: path)
    try write(contents, to: path)
    return path
  }

  /// Makes a folder (and its parents).
  @discardableResult
  public func folder(_ relative: String) throws -> FilePath {
    let path = path(relative)
    try makeFolder(path)
    return path
  }

  /// Writes in place: open with `O_TRUNC`, write, close.
  public func write(_ contents: String, to path: FilePath) throws {
    let fd = path.withCString { open($0, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) }
    guard fd >= 0 else { throw ScratchError.system("open \(path)", errno) }
    defer { close(fd) }
    let bytes = Array(contents.utf8)
    guard bytes.withUnsafeBytes({ Glibc.write(fd, $0.baseAddress, $0.count) }) == bytes.count else {
      throw ScratchError.system("write", errno)
    }
  }

  /// Renames with rename(2) (same inode).
  public func move(_ from: FilePath, _ to: FilePath) throws {
    try makeParents(of: to)
    let result = from.withCString { old in to.withCString { rename(old, $0) } }
    guard result == 0 else { throw ScratchError.system("rename \(from) \(to)", errno) }
  }

  /// What an editor's atomic save does: a new file renamed over `path` (new inode, no
  /// extended attributes).
  public func replaceAtomically(_ path: FilePath, with contents: String) throws {
    let temporary = FilePath(path.description + ".tmp-save")
    try write(contents, to: temporary)
    try move(temporary, path)
  }

  public func remove(_ path: FilePath) throws {
    guard path.withCString({ unlink($0) }) == 0 else { throw ScratchError.system("unlink", errno) }
  }

  public func symlink(_ destination: String, at path: FilePath) throws {
    let result = path.withCString { link in Glibc.symlink(destination, link) }
    guard result == 0 else { throw ScratchError.system("symlink", errno) }
  }

  public func makeParents(of path: FilePath) throws {
    try makeFolder(path.removingLastComponent)
  }

  public func makeFolder(_ path: FilePath) throws {
    var current = FilePath("/")
    for component in path.components {
      current = current.appending(component)
      let result = current.withCString { mkdir($0, 0o755) }
      guard result == 0 || errno == EEXIST else { throw ScratchError.system("mkdir \(current)", errno) }
    }
  }
}

/// A failure of the test scaffolding itself.
public enum ScratchError: Error, CustomStringConvertible {
  case system(String, Int32)
  public var description: String {
    switch self {
    case .system(let call, let code): "\(call) failed: \(String(cString: strerror(code)))"
    }
  }
}

/// The result of a child process.
public struct ProcessResult: Sendable {
  public let status: Int32
  public let output: String
  public let error: String
}

/// The escrow folder children share unless a test names one: made by this process (so it
/// is this user's, mode 0700, whichever child runs first, even one as `nobody`), under a
/// fresh name (a folder left by an earlier run whose process had the same ID is never
/// taken for it).
private let sharedTestEscrow: String = {
  var template = Array((NSTemporaryDirectory() + "docbm-test-escrow-XXXXXX").utf8CString)
  guard let made = mkdtemp(&template) else {
    return NSTemporaryDirectory() + "docbm-test-escrow-\(getpid())"
  }
  return String(cString: made)
}()

/// The environment for a child process: this process's, with `extra` laid over it. Children
/// never write to the real user's escrow: unless `extra` or this process names one, they
/// share a scratch escrow of this test process.
public func childEnvironment(_ extra: [String: String] = [:]) -> [String: String] {
  var environment = ProcessInfo.processInfo.environment
  if environment["DOCBM_ESCROW_DIR"] == nil {
    environment["DOCBM_ESCROW_DIR"] = sharedTestEscrow
  }
  return environment.merging(extra) { $1 }
}

/// Runs an executable and waits for it, capturing its output.
@discardableResult
public func run(
  _ executable: String, _ arguments: [String], input: String? = nil,
  environment: [String: String]? = nil
) -> ProcessResult {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: executable)
  process.arguments = arguments
  process.environment = childEnvironment(environment ?? [:])
  let output = Pipe()
  let error = Pipe()
  let inputPipe = Pipe()
  process.standardOutput = output
  process.standardError = error
  process.standardInput = inputPipe
  do {
    try process.run()
  } catch {
    return ProcessResult(status: -1, output: "", error: "cannot run \(executable): \(error)")
  }
  if let input { inputPipe.fileHandleForWriting.write(Data(input.utf8)) }
  try? inputPipe.fileHandleForWriting.close()
  let outputData = output.fileHandleForReading.readDataToEndOfFile()
  let errorData = error.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  return ProcessResult(
    status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self),
    error: String(decoding: errorData, as: UTF8.self))
}

/// Runs `executable` as user and group `nobody` (65534), with no supplementary groups
/// unless `groups` names some, and waits for it, as ``run(_:_:input:environment:)`` does.
@discardableResult
public func runAsNobody(
  _ executable: String, _ arguments: [String], groups: [Int] = [], input: String? = nil,
  environment: [String: String]? = nil
) -> ProcessResult {
  let groupOption =
    groups.isEmpty ? "--clear-groups" : "--groups=\(groups.map(String.init).joined(separator: ","))"
  return run(
    "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", groupOption, executable] + arguments, input: input,
    environment: environment)
}

/// The machine's abilities that some tests need; tests without them skip with a message.
public enum Capabilities {
  /// Whether the tests run as root.
  public static var isRoot: Bool { getuid() == 0 }

  /// Whether a test can act as a second user: it runs as root and `setpriv` can drop to
  /// `nobody` (tests about permissions must, or they prove nothing as root).
  public static var canDropPrivileges: Bool {
    isRoot && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
  }

  /// What a test prints when it skips for want of ``canDropPrivileges``.
  public static let cannotDropPrivileges = "skipped: dropping privileges needs root and setpriv"

  /// Whether a private mount namespace can be made (`unshare -m`), to mount test
  /// filesystems without touching the machine's own mounts.
  public static let canMountPrivately: Bool = {
    guard isRoot, FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else { return false }
    return run(
      "/usr/bin/unshare",
      [
        "-m", "--propagation", "private", "/bin/sh", "-c",
        "d=$(mktemp -d) && mount -t tmpfs none \"$d\" && umount \"$d\" && rmdir \"$d\"",
      ]
    ).status == 0
  }()

  /// The `docbm` executable built beside the test bundle.
  public static var docbmExecutable: String {
    let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
    var folder = URL(fileURLWithPath: exe).deletingLastPathComponent()
    // The bundle may be an .xctest folder on some layouts.
    if folder.lastPathComponent.hasSuffix(".xctest") { folder = folder.deletingLastPathComponent() }
    return folder.appendingPathComponent("docbm").path
  }
}

/// The clock Linux stamps new files with (their birth time): the realtime clock as it stood
/// at the last tick.
public enum FileClock {
  /// Waits, without sleeping, until the file clock has moved past the realtime clock's
  /// time now: a file made next is born after everything done before, as a file made
  /// minutes later would be.
  public static func waitForNextTick() {
    var fine = timespec()
    clock_gettime(CLOCK_REALTIME, &fine)
    var coarse = timespec()
    while true {
      clock_gettime(CLOCK_REALTIME_COARSE, &coarse)
      if coarse.tv_sec > fine.tv_sec || (coarse.tv_sec == fine.tv_sec && coarse.tv_nsec > fine.tv_nsec) {
        return
      }
    }
  }
}
