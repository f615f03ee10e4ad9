import DocbmSystem
import DocbmTestSupport
import Foundation
import Glibc
import Testing

@testable import DocumentBookmarks

/// Real I/O errors: a FUSE passthrough (`Tests/FaultFS/faultfs.py`, on python3-fusepy) fails
/// chosen calls with EIO or ENOSPC on command, and the library meets them through the
/// kernel as it would a failing disk.
@Suite("Real I/O errors from a faulty filesystem")
struct FaultyFilesystemTests {
  static let script = FilesystemLab.faultScript

  /// The faulty filesystem, mounted in a lab: writing a control line makes calls fail.
  struct FaultyMount {
    let lab: FilesystemLab
    /// The folder mirrored: what is really there, `.fuse_hidden` names included.
    let source: FilePath
    let point: FilePath
    let control: FilePath
    let log: FilePath

    func fail(_ operation: String, _ errno: String, in text: String? = nil) throws {
      try lab.scratch.write("\(operation) \(errno)\(text.map { " " + $0 } ?? "")\n", to: control)
    }

    /// Several faults at once, each line as for ``fail(_:_:in:)``.
    func fail(_ lines: [String]) throws {
      try lab.scratch.write(lines.map { $0 + "\n" }.joined(), to: control)
    }

    func heal() throws {
      try lab.scratch.remove(control)
    }

    func clearLog() throws {
      try lab.scratch.write("", to: log)
    }

    var logLines: [String] {
      ((try? String(contentsOfFile: log.description, encoding: .utf8)) ?? "").split(separator: "\n").map(
        String.init)
    }

    func path(_ relative: String) -> FilePath { FilePath(point.description + "/" + relative) }
  }

  static func mountFaulty(in lab: FilesystemLab) throws -> FaultyMount {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"),
      run("/usr/bin/python3", ["-c", "import fusepy"]).status == 0
    else { throw LabSkip(description: "python3-fusepy is not installed (apt-get install python3-fusepy)") }
    guard FileManager.default.fileExists(atPath: "/dev/fuse") else {
      throw LabSkip(description: "/dev/fuse is missing")
    }
    let source = try lab.scratch.folder("faulty-source")
    let point = try lab.scratch.folder("faulty")
    let mount = FaultyMount(
      lab: lab, source: source, point: point, control: lab.scratch.path("faulty-control"),
      log: lab.scratch.path("faulty-log")
    )
    try lab.startFUSE(
      "/usr/bin/python3",
      [script, source.description, point.description, mount.control.description, mount.log.description],
      at: point)
    return mount
  }

  @Test(
    "saves keep the original and its key; a failed fsync is never followed by the rename",
    .timeLimit(.minutes(2)))
  func saves() async throws {
    guard
      let rows = try await FilesystemLab.inNamespace(
        "the faulty-filesystem save test",
        { lab in
          try Self.measureSaves(in: lab)
        })
    else { return }
    for (operation, result) in rows { FilesystemTable.record("faults", "FUSE, failing", operation, result) }
    let measured = Dictionary(rows, uniquingKeysWith: { first, _ in first })
    let intact = "original intact with its key and attributes, nothing left"
    #expect(measured["no fault: saved"] == "saved; key and attributes kept")
    #expect(measured["write fails (EIO)"] == "error: ioError at write; \(intact)")
    #expect(measured["write fails (ENOSPC)"] == "error: noSpace at write; \(intact)")
    #expect(measured["fsync fails (EIO)"] == "error: ioError at syncFile; \(intact)")
    #expect(measured["rename after the failed fsync"] == "none")
    #expect(measured["setxattr fails (ENOSPC)"] == "error: attributeCopyFailed at copyAttributes; \(intact)")
    #expect(measured["setxattr fails (EIO)"] == "error: ioError at copyAttributes; \(intact)")
    #expect(measured["rename fails (EIO)"] == "error: ioError at swap; \(intact)")
    #expect(
      measured["folder fsync fails (EIO)"]
        == "error: ioError at syncFolder; new version in place with its key")
    #expect(
      measured["slowest call"].map { !$0.hasPrefix("over") } == true, "\(measured["slowest call"] ?? "")")
  }

  static func measureSaves(in lab: FilesystemLab) throws -> [(String, String)] {
    let faulty = try mountFaulty(in: lab)
    var rows: [(String, String)] = []
    let documentPath = try lab.scratch.file(bytes: faulty.path("board.doc"), "original")
    let document = BookmarkService(escrow: nil).documents(anchoredOn: documentPath)
    _ = try document.makeBookmark(to: try lab.scratch.file(bytes: faulty.path("cat.png"), "cat"))
    try ExtendedAttributes.set(
      "user.color", to: Array("blue".utf8), on: .path(documentPath, followSymlinks: false))
    let fingerprint = try document.keyFingerprint()
    var slowest = 0.0

    func state(expecting contents: String) -> String {
      let text = try? String(contentsOfFile: documentPath.description, encoding: .utf8)
      let key = (try? document.keyFingerprint()) == fingerprint
      let color =
        (try? ExtendedAttributes.value("user.color", of: .path(documentPath, followSymlinks: false)))
        == Array("blue".utf8)
      let left = (try? FileManager.default.contentsOfDirectory(atPath: faulty.point.description))?.filter {
        $0.contains(".docbm-save-")
      }
      guard text == contents else { return "contents: \(text ?? "unreadable")" }
      return (key ? "with its key" : "key lost") + (color ? " and attributes" : ", attributes lost")
        + (left == [] ? ", nothing left" : ", left: \(left ?? [])")
    }
    func save(_ contents: String) -> Result<Void, DocbmError> {
      let started = Date()
      defer { slowest = max(slowest, Date().timeIntervalSince(started)) }
      return Result { () throws(DocbmError) in try document.replaceDocument(with: Data(contents.utf8)) }
    }

    if case .failure(let error) = save("original") {
      rows.append(("no fault: saved", "error: \(error.code.rawValue)"))
    } else {
      let after = state(expecting: "original")
      rows.append(
        (
          "no fault: saved",
          after == "with its key and attributes, nothing left" ? "saved; key and attributes kept" : after
        ))
    }

    let faults: [(String, String, String?, String)] = [
      ("write", "EIO", ".docbm-save", "write fails (EIO)"),
      ("write", "ENOSPC", ".docbm-save", "write fails (ENOSPC)"),
      ("fsync", "EIO", ".docbm-save", "fsync fails (EIO)"),
      ("setxattr", "ENOSPC", ".docbm-save", "setxattr fails (ENOSPC)"),
      ("setxattr", "EIO", ".docbm-save", "setxattr fails (EIO)"),
      ("rename", "EIO", nil, "rename fails (EIO)"),
    ]
    for (operation, errno, text, name) in faults {
      try faulty.clearLog()
      try faulty.fail(operation, errno, in: text)
      let result = save("replaced")
      try faulty.heal()
      switch result {
      case .success: rows.append((name, "saved: the fault was not met"))
      case .failure(let error):
        rows.append(
          (
            name,
            "error: \(error.code.rawValue) at \(error.step?.rawValue ?? "no step"); original intact \(state(expecting: "original"))"
          ))
      }
      if operation == "fsync" {
        let lines = faulty.logLines
        let failed = lines.firstIndex { $0.hasPrefix("fsync ") && $0.hasSuffix(" EIO") }
        let renames =
          failed.map { lines[$0...].filter { $0.hasPrefix("rename ") } } ?? ["(the fsync was not met)"]
        rows.append(
          ("rename after the failed fsync", renames.isEmpty ? "none" : renames.joined(separator: "; ")))
      }
    }

    try faulty.fail("fsyncdir", "EIO")
    let result = save("replaced")
    try faulty.heal()
    switch result {
    case .success: rows.append(("folder fsync fails (EIO)", "saved: the fault was not met"))
    case .failure(let error):
      let after = state(expecting: "replaced")
      rows.append(
        (
          "folder fsync fails (EIO)",
          "error: \(error.code.rawValue) at \(error.step?.rawValue ?? "no step"); "
            + (after.hasPrefix("with its key") ? "new version in place with its key" : after)
        ))
    }
    rows.append(("slowest call", slowest < 30 ? "\(Int(slowest * 1000)) ms" : "over 30 s: \(slowest) s"))
    return rows
  }

  @Test(
    "every failed step of a save leaves nothing but the document, and no other file with the key",
    .timeLimit(.minutes(3)))
  func failedSavesLeaveNothing() async throws {
    guard
      let rows = try await FilesystemLab.inNamespace(
        "the faulty-filesystem leftover test",
        { lab in
          try Self.measureLeftovers(in: lab)
        })
    else { return }
    let nothingLeft = "original intact, nothing left, no other file with the key"
    for saver in ["data", "writer"] {
      for (fault, step) in Self.stepFaults {
        let row = rows.first { $0.0 == "\(saver): \(fault)" }?.1
        #expect(row == "failed at \(step); \(nothingLeft)", "\(saver): \(fault)")
      }
      #expect(
        rows.first { $0.0 == "\(saver): folder fsync fails (EIO)" }?.1
          == "failed at syncFolder; new version in place, nothing left, no other file with the key")
      for (fault, step) in Self.stepFaults where fault != "claim fails (EIO)" {
        let name = "\(saver): \(fault), and unlink fails (EIO)"
        #expect(
          rows.first { $0.0 == name }?.1
            == "failed at \(step), naming the temporary left; it is empty and has no key; the next save removes it",
          "\(name)")
      }
    }
  }

  /// The faults of the steps before the rename, and the step each error names.
  static let stepFaults: [(String, String)] = [
    ("claim fails (EIO)", "prepareTemporary"),
    ("write fails (EIO)", "write"),
    ("write fails (ENOSPC)", "write"),
    ("fsync fails (EIO)", "syncFile"),
    ("setxattr fails (EIO)", "copyAttributes"),
    ("setxattr fails (ENOSPC)", "copyAttributes"),
    ("chmod fails (EIO)", "changeMode"),
    ("rename fails (EIO)", "swap"),
  ]

  /// The FUSE call each of ``stepFaults`` fails, and the text its path must hold: the new
  /// version's name (for a writer handed a URL, its own name, not the claim's).
  static func faultLine(_ fault: String, saver: String) -> String {
    let version = saver == "data" ? ".docbm-save" : "-new-"
    switch fault {
    case "claim fails (EIO)": return "create EIO .docbm-save"
    case "write fails (EIO)": return "write EIO \(version)"
    case "write fails (ENOSPC)": return "write ENOSPC \(version)"
    case "fsync fails (EIO)": return "fsync EIO \(version)"
    case "setxattr fails (EIO)": return "setxattr EIO \(version)"
    case "setxattr fails (ENOSPC)": return "setxattr ENOSPC \(version)"
    case "chmod fails (EIO)": return "chmod EIO \(version)"
    default: return "rename EIO"
    }
  }

  static func measureLeftovers(in lab: FilesystemLab) throws -> [(String, String)] {
    let faulty = try mountFaulty(in: lab)
    var rows: [(String, String)] = []
    let documentPath = try lab.scratch.file(bytes: faulty.path("board.json"), "original")
    let document = BookmarkService(escrow: nil).documents(anchoredOn: documentPath)
    _ = try document.makeBookmark(to: try lab.scratch.file(bytes: faulty.path("cat.png"), "cat"))
    let key = try ExtendedAttributes.value(
      KeyAttribute.name, of: .path(documentPath, followSymlinks: false))

    /// What is really in the folder, and which files other than the document hold the key.
    func leftovers() -> String {
      let names = ((try? FileManager.default.contentsOfDirectory(atPath: faulty.source.description)) ?? [])
        .filter { $0 != "board.json" && $0 != "cat.png" }.sorted()
      let withKey = names.filter {
        (try? ExtendedAttributes.value(
          KeyAttribute.name, of: .path(faulty.source.appending(Array($0.utf8)), followSymlinks: false)))
          == key
      }
      if names.isEmpty { return "nothing left, no other file with the key" }
      return "left: \(names)" + (withKey.isEmpty ? "" : ", with the key: \(withKey)")
    }
    func original(_ contents: String) -> String {
      let text = try? String(contentsOfFile: documentPath.description, encoding: .utf8)
      let hasKey =
        (try? ExtendedAttributes.value(KeyAttribute.name, of: .path(documentPath, followSymlinks: false)))
        == key
      return text == contents && hasKey
        ? "" : "document: \(text ?? "unreadable"), key \(hasKey ? "kept" : "lost"); "
    }
    func save(_ saver: String, _ contents: String) -> DocbmError? {
      do throws(DocbmError) {
        if saver == "data" {
          try document.replaceDocument(with: Data(contents.utf8))
        } else {
          // A writer that does not flush (Foundation's Data.write does): the save's own fsync is met.
          try document.replaceDocument { url in
            let fd = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw CocoaError(.fileWriteUnknown) }
            defer { close(fd) }
            let written = contents.utf8CString.withUnsafeBytes { write(fd, $0.baseAddress, $0.count - 1) }
            guard written == contents.utf8.count else { throw CocoaError(.fileWriteUnknown) }
          }
        }
        return nil
      } catch {
        return error
      }
    }

    for saver in ["data", "writer"] {
      for (fault, _) in stepFaults {
        let name = "\(saver): \(fault)"
        try faulty.fail([faultLine(fault, saver: saver)])
        let error = save(saver, "replaced")
        try faulty.heal()
        guard let error else {
          rows.append((name, "saved: the fault was not met"))
          try document.replaceDocument(with: Data("original".utf8))
          continue
        }
        let state = original("original")
        rows.append(
          (
            name,
            "failed at \(error.step?.rawValue ?? "no step"); \(state.isEmpty ? "original intact" : state), \(leftovers())"
          ))
      }

      try faulty.fail(["fsyncdir EIO"])
      let synced = save(saver, "in place")
      try faulty.heal()
      let state = original("in place")
      rows.append(
        (
          "\(saver): folder fsync fails (EIO)",
          "failed at \(synced?.step?.rawValue ?? "no step"); \(state.isEmpty ? "new version in place" : state), \(leftovers())"
        ))
      try document.replaceDocument(with: Data("original".utf8))

      // Removing the temporary fails too: the error names it, and it holds nothing.
      for (fault, _) in stepFaults where fault != "claim fails (EIO)" {
        let name = "\(saver): \(fault), and unlink fails (EIO)"
        try faulty.fail([faultLine(fault, saver: saver), "unlink EIO .docbm-save", "rmdir EIO .docbm-save"])
        let error = save(saver, "replaced")
        try faulty.heal()
        guard let error else {
          rows.append((name, "saved: the fault was not met"))
          continue
        }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: faulty.source.description)) ?? [])
          .filter { $0.contains(".docbm-save-") }
        let leftFiles = names.filter {
          (try? FileStatus.of(faulty.source.appending(Array($0.utf8)), followSymlinks: false))?.kind
            == .regular
        }
        let empty = leftFiles.allSatisfy {
          (try? FileStatus.of(faulty.source.appending(Array($0.utf8)), followSymlinks: false))?.size == 0
            || !$0.contains("-new-") && saver == "writer"
        }
        let named =
          names.contains { error.message.contains($0) } && error.message.contains("could not be removed")
        var row = "failed at \(error.step?.rawValue ?? "no step")"
        row +=
          named ? ", naming the temporary left" : ", not naming what is left: \(error.message) (\(names))"
        let stillKeyed = leftovers().contains("with the key")
        row += empty && !stillKeyed ? "; it is empty and has no key" : "; \(leftovers())"
        // A sweep leaves a slot someone holds locked; a FUSE filesystem may let the failed
        // save's lock go a moment after its close returned.
        _ = waitUntil(within: 30) {
          names.allSatisfy { name in
            let fd = open(faulty.path(name).description, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
            guard fd >= 0 else { return true }
            defer { close(fd) }
            return flock(fd, LOCK_EX | LOCK_NB) == 0
          }
        }
        _ = save(saver, "original")
        let after = leftovers()
        row +=
          after.hasPrefix("nothing left") ? "; the next save removes it" : "; after the next save \(after)"
        rows.append((name, original("original") + row))
      }
    }
    return rows
  }

  @Test("resolve and check report typed errors, never a guess", .timeLimit(.minutes(2)))
  func resolveAndCheck() async throws {
    guard
      let rows = try await FilesystemLab.inNamespace(
        "the faulty-filesystem resolve test",
        { lab in
          try Self.measureReads(in: lab)
        })
    else { return }
    for (operation, result) in rows { FilesystemTable.record("faults", "FUSE, failing", operation, result) }
    let measured = Dictionary(rows, uniquingKeysWith: { first, _ in first })
    #expect(measured["resolve, no fault"] == "resolved")
    #expect(measured["resolve, the key unreadable (getxattr EIO)"] == "error: ioError")
    #expect(measured["resolve, the target unreadable (getattr EIO)"] == "error: ioError")
    #expect(measured["resolve a moved target, folders unreadable (readdir EIO)"] == "error: ioError")
    #expect(measured["resolve a moved target, no fault"] == "stale: targetMoved")
    #expect(measured["check, no fault"] == "ok")
    #expect(measured["check, the document unreadable (read EIO)"] == "unreadable")
    #expect(measured["check, the key unreadable (getxattr EIO)"] == "unreadable")
  }

  static func measureReads(in lab: FilesystemLab) throws -> [(String, String)] {
    let faulty = try mountFaulty(in: lab)
    var rows: [(String, String)] = []
    let documentPath = try lab.scratch.file(bytes: faulty.path("board.doc"), "original")
    let document = BookmarkService(escrow: nil).documents(anchoredOn: documentPath)
    let cat = try lab.scratch.file(bytes: faulty.path("images/cat.png"), "cat")
    let bookmark = try document.makeBookmark(to: cat)
    try lab.scratch.write("board \(bookmark.text)", to: documentPath)
    func resolve(_ name: String, expecting expected: FilePath) {
      rows.append((name, describe(document.outcome(bookmark), expecting: expected)))
    }

    resolve("resolve, no fault", expecting: cat)
    try faulty.fail("getxattr", "EIO", in: "board.doc")
    resolve("resolve, the key unreadable (getxattr EIO)", expecting: cat)
    try faulty.fail("getattr", "EIO", in: "cat.png")
    resolve("resolve, the target unreadable (getattr EIO)", expecting: cat)
    try faulty.heal()

    let moved = faulty.path("images/old/cat.png")
    try lab.scratch.move(cat, moved)
    try faulty.fail("readdir", "EIO")
    resolve("resolve a moved target, folders unreadable (readdir EIO)", expecting: moved)
    try faulty.heal()
    resolve("resolve a moved target, no fault", expecting: moved)

    let checker = DocumentChecker(escrow: nil)
    rows.append(("check, no fault", checker.check(documentPath).verdict.rawValue))
    try faulty.fail("read", "EIO", in: "board.doc")
    rows.append(("check, the document unreadable (read EIO)", checker.check(documentPath).verdict.rawValue))
    try faulty.fail("getxattr", "EIO", in: "board.doc")
    rows.append(("check, the key unreadable (getxattr EIO)", checker.check(documentPath).verdict.rawValue))
    try faulty.heal()
    return rows
  }

  @Test(
    "a dead FUSE mount beside a target's folder leaves a deleted target missing, not an I/O error",
    .timeLimit(.minutes(2)))
  func deadMountBeside() async throws {
    guard
      let rows = try await FilesystemLab.inNamespace(
        "the dead-mount resolve test",
        { lab in
          try Self.measureBesideDeadMount(in: lab)
        })
    else { return }
    let measured = Dictionary(rows, uniquingKeysWith: { first, _ in first })
    #expect(measured["the dead mount"] == "ENOTCONN")
    #expect(measured["a moved target"] == "stale: targetMoved")
    #expect(measured["a deleted target"] == "error: missing")
    #expect(measured["a target inside the dead mount"] == "error: volumeUnavailable")
  }

  /// A project folder beside the mount of a FUSE server that was killed (a crashed sshfs or
  /// a test's passthrough), which the bounded search meets when it lists the folders around
  /// a moved or deleted target.
  static func measureBesideDeadMount(in lab: FilesystemLab) throws -> [(String, String)] {
    let faulty = try mountFaulty(in: lab)
    var rows: [(String, String)] = []
    let documentPath = try lab.scratch.file("project/board.doc", "original")
    let document = BookmarkService(escrow: nil).documents(anchoredOn: documentPath)
    let cat = try lab.scratch.file("project/images/cat.png", "cat")
    let dog = try lab.scratch.file("project/images/dog.png", "dog")
    let fox = try lab.scratch.file(bytes: faulty.path("fox.png"), "fox")
    let bookmarks = try [cat, dog, fox].map { try document.makeBookmark(to: $0) }
    lab.killFUSEServers()
    do {
      _ = try FileStatus.of(faulty.point, followSymlinks: false)
      rows.append(("the dead mount", "answers"))
    } catch {
      rows.append(("the dead mount", error.errno.name))
    }
    let moved = try lab.scratch.folder("elsewhere").appending("cat.png")
    try lab.scratch.move(cat, moved)
    try lab.scratch.remove(dog)
    rows.append(("a moved target", describe(document.outcome(bookmarks[0]), expecting: moved)))
    rows.append(("a deleted target", describe(document.outcome(bookmarks[1]), expecting: dog)))
    rows.append(("a target inside the dead mount", describe(document.outcome(bookmarks[2]), expecting: fox)))
    return rows
  }

  @Test(
    "on a filesystem that refuses RENAME_NOREPLACE, the escrow is made, keys escrowed and exported",
    .timeLimit(.minutes(2)))
  func renameWithoutFlags() async throws {
    guard
      let rows = try await FilesystemLab.inNamespace(
        "the rename-flags test",
        { lab in
          try Self.measureWithoutRenameFlags(in: lab)
        })
    else { return }
    let measured = Dictionary(rows, uniquingKeysWith: { first, _ in first })
    #expect(measured["renameat2 with RENAME_NOREPLACE"] == "EINVAL")
    #expect(measured["the key escrowed"] == "yes")
    #expect(measured["export"] == "1 key")
    #expect(measured["export again"] == "documentExists")
    #expect(measured["export, replacing"] == "1 key")
    #expect(measured["a rename onto an existing name"] == "EEXIST, both kept")
    #expect(measured["names left in the escrow folder"] == "escrow.sqlite")
  }

  /// The faulty passthrough with no fault: libfuse 2 has no rename flags, so the kernel
  /// refuses `RENAME_NOREPLACE` there with EINVAL, as NFS clients do.
  static func measureWithoutRenameFlags(in lab: FilesystemLab) throws -> [(String, String)] {
    let faulty = try mountFaulty(in: lab)
    var rows: [(String, String)] = []
    let flags = try lab.sh(
      "cd '\(faulty.point)' && : > a && : > b && /usr/bin/python3 -c 'import ctypes,os; l=ctypes.CDLL(None,use_errno=True); "
        + "r=l.renameat2(-100,b\"a\",-100,b\"c\",1); print(\"ok\" if r==0 else os.strerror(ctypes.get_errno()))'; rm -f a b c"
    )
    rows.append(("renameat2 with RENAME_NOREPLACE", flags.contains("Invalid argument") ? "EINVAL" : flags))

    let escrow = KeyEscrow(folder: faulty.path("state/docbm"))
    let service = BookmarkService(escrow: escrow)
    let board = try lab.scratch.file(bytes: faulty.path("board.doc"), "board")
    let cat = try lab.scratch.file(bytes: faulty.path("cat.png"), "cat")
    let document = service.documents(anchoredOn: board)
    _ = try document.makeBookmark(to: cat)
    let fingerprint = try #require(try document.keyFingerprint())
    rows.append(("the key escrowed", escrow.entry(for: fingerprint) == nil ? "no" : "yes"))
    func export(_ name: String, replacing: Bool) {
      do {
        let transfer = try escrow.exportKeys(to: faulty.path("keys.docbm"), replacing: replacing)
        rows.append((name, "\(transfer.keys) key"))
      } catch {
        rows.append((name, "\(error.code)"))
      }
    }
    export("export", replacing: false)
    export("export again", replacing: false)
    export("export, replacing", replacing: true)

    let folder = try FileDescriptor.open(faulty.point, [.readOnly, .directory])
    defer { folder.close() }
    _ = try lab.scratch.file(bytes: faulty.path("one"), "one")
    _ = try lab.scratch.file(bytes: faulty.path("two"), "two")
    do {
      try folder.renameWithoutReplacing(FilePath("one"), to: FilePath("two"), in: folder)
      rows.append(("a rename onto an existing name", "renamed"))
    } catch {
      let kept =
        (try? String(contentsOfFile: faulty.path("one").description, encoding: .utf8)) == "one"
        && (try? String(contentsOfFile: faulty.path("two").description, encoding: .utf8)) == "two"
      rows.append(("a rename onto an existing name", "\(error.errno.name)\(kept ? ", both kept" : "")"))
    }
    let names = try FileManager.default.contentsOfDirectory(atPath: faulty.path("state/docbm").description)
    rows.append(("names left in the escrow folder", names.sorted().joined(separator: " ")))
    return rows
  }
}
