public import DocumentBookmarks
import Foundation
import Glibc

/// A real Documents portal (`xdg-document-portal`) in a bus of its own, for tests:
/// `dbus-run-session` activates the portal on the first call, which mounts its FUSE
/// filesystem at `<runtime folder>/doc`; files and folders are exported with the portal's
/// `Add` and `AddFull` calls, which take a file descriptor (passed by python3-gi).
///
/// ``start(exporting:)`` returns `nil`, with ``skipReason`` set, only when FUSE cannot be
/// used here (no `/dev/fuse`, or mounting refused); anything else that goes wrong is an
/// error, so that a missing package fails the test rather than skipping it.
public final class TestDocumentPortal: @unchecked Sendable {
  /// What to export.
  public enum Export: Sendable {
    /// A single file (`Add`).
    case file(FilePath)
    /// A folder (`AddFull` with the directory flag).
    case folder(FilePath)
    /// A single file, granted to one app (`AddFull` with an app ID), so that it also appears
    /// in that app's view, `doc/by-app/<app>/<id>/<name>`.
    case fileForApp(FilePath, app: String)
    /// A folder, granted to one app.
    case folderForApp(FilePath, app: String)
  }

  /// The portal's mount point (`<runtime folder>/doc`).
  public let mountPoint: FilePath
  /// The Documents interface version the portal reports.
  public let version: Int
  /// The document IDs, in the order of the exports.
  public let documentIDs: [String]
  /// Why a portal could not start here, when ``start(exporting:)`` returned `nil`.
  public nonisolated(unsafe) static var skipReason = ""

  private let process: Process
  private let input: Pipe
  private let scratch: Scratch
  /// The portal's own process group (the bus, the portal and the permission store), when
  /// it has one apart from this process's.
  private let group: pid_t?
  private var stopped = false

  private init(
    process: Process, input: Pipe, scratch: Scratch, mountPoint: FilePath, version: Int, ids: [String]
  ) {
    self.process = process
    self.input = input
    self.scratch = scratch
    let group = getpgid(process.processIdentifier)
    self.group = group > 0 && group != getpgrp() ? group : nil
    self.mountPoint = mountPoint
    self.version = version
    self.documentIDs = ids
  }

  deinit { stop() }

  /// The path through the portal of export number `index`, whose host path's last
  /// component is `name`: `doc/<id>/<name>`.
  public func path(of index: Int, name: String) -> FilePath {
    mountPoint.appending(documentIDs[index]).appending(name)
  }

  /// The same in an app's view: `doc/by-app/<app>/<id>/<name>`.
  public func path(of index: Int, name: String, app: String) -> FilePath {
    mountPoint.appending("by-app").appending(app).appending(documentIDs[index]).appending(name)
  }

  /// Starts a portal and exports `exports`; `nil` (with ``skipReason``) when FUSE cannot be
  /// used here.
  public static func start(exporting exports: [Export]) throws -> TestDocumentPortal? {
    guard access("/dev/fuse", R_OK | W_OK) == 0 else {
      skipReason = "skipped: the Documents portal needs /dev/fuse, which is absent or not usable here"
      return nil
    }
    let base = try Scratch()
    let folder = base.root
    let runtime = folder.appending("runtime")
    let data = folder.appending("data")
    for made in [runtime, data] {
      guard mkdir(made.description, 0o700) == 0 else { throw TestDocumentPortalError("mkdir \(made)") }
    }
    let script = folder.appending("portal.py")
    try base.write(helperScript, to: script)
    let arguments = exports.map { export -> String in
      switch export {
      case .file(let path): "file::\(path)"
      case .folder(let path): "folder::\(path)"
      case .fileForApp(let path, let app): "file:\(app):\(path)"
      case .folderForApp(let path, let app): "folder:\(app):\(path)"
      }
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-run-session")
    process.arguments = ["--", "/usr/bin/python3", script.description] + arguments
    var environment = ProcessInfo.processInfo.environment
    environment["XDG_RUNTIME_DIR"] = runtime.description
    environment["XDG_DATA_HOME"] = data.description
    environment.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS")
    process.environment = environment
    let input = Pipe()
    let output = Pipe()
    let errorLog = folder.appending("portal.log")
    _ = FileManager.default.createFile(atPath: errorLog.description, contents: nil)
    process.standardInput = input
    process.standardOutput = output
    process.standardError = FileHandle(forWritingAtPath: errorLog.description)
    try process.run()

    // Lines until "ready" (or the end), read with a deadline.
    let reader = output.fileHandleForReading
    var text = ""
    let deadline = Date().addingTimeInterval(30)
    while !text.contains("ready\n"), Date() < deadline {
      var poller = pollfd(fd: reader.fileDescriptor, events: Int16(POLLIN), revents: 0)
      guard poll(&poller, 1, 250) > 0 else { continue }
      let chunk = reader.availableData
      if chunk.isEmpty { break }
      text += String(decoding: chunk, as: UTF8.self)
    }
    let lines = text.split(separator: "\n").map(String.init)
    guard lines.contains("ready"),
      let mount = lines.first(where: { $0.hasPrefix("mount ") })?.dropFirst(6),
      let version = lines.first(where: { $0.hasPrefix("version ") }).flatMap({ Int($0.dropFirst(8)) })
    else {
      try? input.fileHandleForWriting.close()
      process.waitUntilExit()
      let log = (try? String(contentsOfFile: errorLog.description, encoding: .utf8)) ?? ""
      if log.contains("fuse") || log.contains("FUSE") || log.contains("fusermount") {
        skipReason = "skipped: the Documents portal could not mount its FUSE filesystem here: \(log)"
        return nil
      }
      throw TestDocumentPortalError("the Documents portal did not start: \(text) \(log)")
    }
    let ids = lines.filter { $0.hasPrefix("doc ") }.map { String($0.dropFirst(4)) }
    return TestDocumentPortal(
      process: process, input: input, scratch: base, mountPoint: FilePath(String(mount)), version: version,
      ids: ids)
  }

  /// Stops the portal: it exits with its bus and unmounts; a mount left behind is
  /// unmounted lazily.
  public func stop() {
    guard !stopped else { return }
    stopped = true
    try? input.fileHandleForWriting.close()
    process.waitUntilExit()
    // dbus-run-session leaves its bus (and the services it started) running: end the
    // portal's process group, politely first.
    if let group {
      _ = kill(-group, SIGTERM)
      var waited = 0
      while kill(-group, 0) == 0, waited < 10 {
        usleep(20_000)
        waited += 1
      }
      if kill(-group, 0) == 0 { _ = kill(-group, SIGKILL) }
    }
    let table = (try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8)) ?? ""
    if table.contains(" \(mountPoint) ") {
      _ = run("/usr/bin/fusermount3", ["-u", "-z", mountPoint.description])
    }
  }

  /// Exports with the portal's own calls, prints `mount`, `version`, one `doc <id>` per
  /// export and `ready`, then waits for its input to close.
  private static let helperScript = #"""
    import os, sys
    from gi.repository import Gio, GLib

    NAME = "org.freedesktop.portal.Documents"
    PATH = "/org/freedesktop/portal/documents"
    bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)

    def call(method, parameters, reply, fds=()):
        fd_list = Gio.UnixFDList.new()
        for fd in fds:
            fd_list.append(fd)
        result = bus.call_with_unix_fd_list_sync(
            NAME, PATH, NAME, method, parameters, GLib.VariantType(reply),
            Gio.DBusCallFlags.NONE, 20000, fd_list, None)
        return result[0].unpack()

    mount = bytes(call("GetMountPoint", None, "(ay)")[0]).rstrip(b"\0").decode()
    version = bus.call_sync(
        NAME, PATH, "org.freedesktop.DBus.Properties", "Get", GLib.Variant("(ss)", (NAME, "version")),
        GLib.VariantType("(v)"), Gio.DBusCallFlags.NONE, 20000, None).unpack()[0]
    print("mount", mount, flush=True)
    print("version", version, flush=True)
    for argument in sys.argv[1:]:
        kind, app, path = argument.split(":", 2)
        fd = os.open(path, os.O_PATH)
        if kind == "file" and not app:
            doc = call("Add", GLib.Variant("(hbb)", (0, True, True)), "(s)", [fd])[0]
        else:
            flags = 1 | 2 | (8 if kind == "folder" else 0)
            permissions = ["read", "write", "grant-permissions", "delete"] if app else []
            doc = call("AddFull", GLib.Variant("(ahusas)", ([0], flags, app, permissions)),
                       "(asa{sv})", [fd])[0][0]
        os.close(fd)
        print("doc", doc, flush=True)
    print("ready", flush=True)
    sys.stdin.read()
    """#
}

/// A test portal that could not start for a reason other than FUSE.
public struct TestDocumentPortalError: Error, CustomStringConvertible {
  public let description: String
  init(_ description: String) { self.description = description }
}
