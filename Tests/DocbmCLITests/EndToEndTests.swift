import DocbmCLI
import DocbmSystem
import DocbmTestSupport
import DocumentBookmarks
import Foundation
import Glibc
import Testing

/// Runs the built `docbm` binary on real files.
@Suite("docbm end to end")
struct EndToEndTests {
  let docbm = Capabilities.docbmExecutable

  @Test("bookmark prints a text form that resolve accepts, also from standard input")
  func bookmarkAndResolve() throws {
    let scratch = try Scratch()
    let document = try scratch.file("doc.json")
    let target = try scratch.file("images/cat.png")
    let made = run(docbm, ["bookmark", document.description, target.description])
    try #require(made.status == 0, "\(made.error)")
    let text = made.output.trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(text.hasPrefix("docbmRec"))
    #expect(!text.contains("\n"))

    let resolved = run(docbm, ["resolve", document.description, text])
    #expect(resolved.status == 0)
    #expect(resolved.output == target.description + "\n")
    #expect(resolved.error.isEmpty)

    try scratch.move(target, scratch.path("images/kitten.png"))
    let stale = run(docbm, ["resolve", document.description, "-"], input: text + "\n")
    #expect(stale.status == 0)
    #expect(stale.output == scratch.path("images/kitten.png").description + "\n")
    #expect(stale.error.contains("stale: targetMoved"))
    #expect(stale.error.contains("refreshed: docbmRec"))
  }

  @Test("resolve --json reports failures with their code and exits 1")
  func resolveJSON() throws {
    let scratch = try Scratch()
    let document = try scratch.file("doc.json")
    let target = try scratch.file("t.txt")
    let text = run(docbm, ["bookmark", document.description, target.description]).output
      .trimmingCharacters(in: .whitespacesAndNewlines)
    try scratch.remove(target)
    let result = run(docbm, ["resolve", "--json", document.description, text])
    #expect(result.status == 1)
    let json = try #require(
      try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
    #expect(json["schemaVersion"] as? Int == 1)
    #expect(json["resolved"] as? Bool == false)
    let error = try #require(json["error"] as? [String: Any])
    #expect(error["code"] as? String == "missing")
    #expect(error["recommendation"] as? String == "forget")
    #expect(error["lastKnownPath"] as? String == target.description)
  }

  @Test("decode marks its output unverified; inspect shows the fingerprint, never the key")
  func decodeAndInspect() throws {
    let scratch = try Scratch()
    let document = try scratch.file("doc.json")
    let target = try scratch.file("t.txt")
    let made = run(docbm, ["bookmark", "--json", document.description, target.description])
    let report = try #require(
      try JSONSerialization.jsonObject(with: Data(made.output.utf8)) as? [String: Any])
    let text = try #require(report["bookmark"] as? String)
    let fingerprint = try #require(report["keyFingerprint"] as? String)

    let decoded = run(docbm, ["decode", text])
    #expect(decoded.status == 0)
    #expect(decoded.output.hasPrefix("UNVERIFIED"))
    #expect(decoded.output.contains(target.description))
    #expect(decoded.output.contains(fingerprint))
    let inode = try FileStatus.of(document, followSymlinks: true).inode
    #expect(decoded.output.contains("document:          \(document)"), "\(decoded.output)")
    #expect(decoded.output.contains("document inode:    \(inode)"), "\(decoded.output)")
    let decodedJSON = run(docbm, ["decode", "--json", text])
    #expect(decodedJSON.output.contains("\"verified\" : false"))

    run("/usr/bin/setfattr", ["-n", "user.other", "-v", "hello", document.description])
    let inspected = run(docbm, ["inspect", document.description])
    #expect(inspected.status == 0)
    #expect(inspected.output.contains("present, fingerprint \(fingerprint)"))
    #expect(inspected.output.contains("user.docbm.key  46 bytes"))
    #expect(inspected.output.contains("user.other  5 bytes"))
    let key = run("/usr/bin/getfattr", ["--only-values", "-n", "user.docbm.key", document.description])
    let keyBase64 = Data(key.output.utf8.dropFirst(6).prefix(32)).base64EncodedString()
    #expect(!inspected.output.contains(keyBase64))
  }

  @Test("help, version and usage errors follow the conventions")
  func conventions() {
    let help = run(docbm, ["--help"])
    #expect(help.status == 0)
    #expect(help.output.contains("SUBCOMMANDS:"))
    #expect(help.error.isEmpty)
    let commandHelp = run(docbm, ["help", "resolve"])
    #expect(commandHelp.status == 0)
    #expect(commandHelp.output.contains("USAGE: docbm resolve"))
    let version = run(docbm, ["--version"])
    #expect(version.status == 0)
    #expect(version.output == DocbmCommandLine.version + "\n")
    let usage = run(docbm, ["bookmark", "--frob"])
    #expect(usage.status == 64)
    #expect(usage.output.isEmpty)
    #expect(usage.error.hasPrefix("Error: Unknown option '--frob'\nUsage: docbm bookmark"))
  }

  @Test("a missing document or target is a typed error with exit status 1")
  func runtimeErrors() throws {
    let scratch = try Scratch()
    let result = run(docbm, ["bookmark", scratch.path("nope").description, scratch.path("t").description])
    #expect(result.status == 1)
    #expect(result.error.hasPrefix("Error: notFound:"))
    let garbage = run(docbm, ["decode", "not-a-bookmark"])
    #expect(garbage.status == 1)
    #expect(garbage.error.hasPrefix("Error: corrupt:"))
  }

  @Test("a command asked for JSON that fails says why in JSON on its output, and in words on standard error")
  func failuresInJSON() throws {
    let scratch = try Scratch()
    func failure(_ arguments: [String]) throws -> (error: [String: Any], lines: Int, text: String) {
      let result = run(docbm, arguments)
      #expect(result.status == 1, "\(arguments): \(result.error)")
      let object = try #require(
        try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any], "\(result.output)"
      )
      #expect(object["schemaVersion"] as? Int == 1)
      let lines = result.output.split(separator: "\n").count
      return (try #require(object["error"] as? [String: Any]), lines, result.error)
    }
    let missing = scratch.path("nope").description
    let bookmark = try failure(["bookmark", "--json", missing, scratch.root.description])
    #expect(bookmark.error["code"] as? String == "notFound")
    #expect(bookmark.error["path"] as? String == missing)
    #expect(bookmark.error["recommendation"] as? String == "pickAgain")
    #expect(bookmark.error["systemCall"] as? String != nil && bookmark.error["errno"] as? Int == Int(ENOENT))
    #expect(bookmark.lines > 1 && bookmark.text.hasPrefix("Error: notFound:"))
    // A store's own failure: its code, the file, no recommendation (the message says what is wrong).
    let folder = try scratch.folder("not-a-store")
    let store = try failure(["store", "list", "--json", folder.description])
    #expect(store.error["code"] as? String == "notAStore")
    #expect(store.error["path"] as? String == folder.description)
    #expect(store.error["recommendation"] == nil)
    #expect(store.text.hasPrefix("Error: notAStore: "))
    // A stream of one object per line fails in one line.
    let watch = try failure(["watch", "--json", missing])
    #expect(watch.error["code"] as? String == "notFound" && watch.lines == 1)
    // Without --json, nothing on the output.
    #expect(run(docbm, ["bookmark", missing, scratch.root.description]).output.isEmpty)
  }

  @Test("paths that are not UTF-8 are accepted as given and printed escaped")
  func nonUTF8Arguments() throws {
    let scratch = try Scratch()
    let document = try scratch.file("doc")
    let name = scratch.root.appending([0x63, 0x61, 0x66, 0xE9])
    try scratch.file(bytes: name)
    // Pass the raw bytes through a shell variable built with printf.
    let script =
      "t=\"$(printf '\(scratch.root)/caf\\351')\"; '\(docbm)' bookmark '\(document)' \"$t\" > '\(scratch.root)/bm' && '\(docbm)' resolve '\(document)' - < '\(scratch.root)/bm'"
    let result = run("/bin/sh", ["-c", script])
    #expect(result.status == 0, "\(result.error)")
    #expect(result.output == "\(scratch.root)/caf\\xe9\n")
  }

  @Test("two processes anchoring one document at once end with one key that both use")
  func concurrentProcesses() async throws {
    let scratch = try Scratch()
    for round in 0..<15 {
      let document = try scratch.file("doc\(round)")
      let targets = [try scratch.file("a\(round)"), try scratch.file("b\(round)")]
      let outputs = await withTaskGroup(of: ProcessResult.self) { group in
        for target in targets {
          group.addTask { run(docbm, ["bookmark", document.description, target.description]) }
        }
        return await group.reduce(into: []) { $0.append($1) }
      }
      let anchored = BookmarkService(escrow: nil).documents(anchoredOn: document)
      for output in outputs {
        #expect(output.status == 0, "\(output.error)")
        let bookmark = try Bookmark(text: output.output)
        #expect(targets.contains(try anchored.resolve(bookmark).path))
      }
    }
  }

  @Test("a read-only document gives permissionDenied to an unprivileged user")
  func readOnlyDocument() throws {
    guard Capabilities.canDropPrivileges else {
      print(Capabilities.cannotDropPrivileges)
      return
    }
    let scratch = try Scratch()
    chmod(scratch.root.description, 0o755)
    let document = try scratch.file("doc")
    let writable = try scratch.file("writable")
    let target = try scratch.file("target")
    chown(document.description, 65534, 65534)
    chown(writable.description, 65534, 65534)
    chmod(document.description, 0o444)
    func asNobody(_ arguments: [String]) -> ProcessResult { runAsNobody(docbm, arguments) }
    let refused = asNobody(["bookmark", document.description, target.description])
    #expect(refused.status == 1)
    #expect(refused.error.contains("permissionDenied"))
    #expect(refused.error.contains(document.description))
    // The same user may anchor on a document it can write: the refusal is the mode's.
    let allowed = asNobody(["bookmark", writable.description, target.description])
    #expect(allowed.status == 0, "\(allowed.error)")
    #expect(try BookmarkService(escrow: nil).documents(anchoredOn: document).keyFingerprint() == nil)
  }

  @Test("filesystems that cannot hold a key give typed errors naming the document")
  func unsupportedFilesystems() throws {
    guard Capabilities.canMountPrivately else {
      print("skipped: mounting test filesystems needs root and unshare -m")
      return
    }
    let scratch = try Scratch()
    let cases = [
      ("mount -t ramfs none \"$m\" && echo x > \"$m/doc\" && echo y > \"$m/t\"", "unsupportedFilesystem"),
      (
        "mount -t tmpfs -o size=1m none \"$m\" && echo x > \"$m/doc\" && echo y > \"$m/t\" && mount -o remount,ro \"$m\"",
        "readOnlyFilesystem"
      ),
    ]
    for (index, (setup, code)) in cases.enumerated() {
      let mountPoint = try scratch.folder("m\(index)")
      let script = "m='\(mountPoint)'; \(setup) && '\(docbm)' bookmark \"$m/doc\" \"$m/t\""
      let result = run("/usr/bin/unshare", ["-m", "--propagation", "private", "/bin/sh", "-c", script])
      #expect(result.status == 1)
      #expect(result.error.contains("Error: \(code):"), "\(result.error)")
      #expect(result.error.contains("\(mountPoint)/doc"))
      if code == "unsupportedFilesystem" {
        // The next step: where documents can keep their keys.
        #expect(result.error.contains("keep documents on one that does (ext4, XFS, Btrfs"), "\(result.error)")
      }
    }
  }

  @Test("a target on an unmounted volume is volumeUnavailable")
  func volumeUnavailable() throws {
    guard Capabilities.canMountPrivately, FileManager.default.isExecutableFile(atPath: "/sbin/mkfs.ext4")
    else {
      print("skipped: loop-mounting an ext4 image needs root, unshare -m and mkfs.ext4")
      return
    }
    let scratch = try Scratch()
    let document = try scratch.file("doc")
    let image = scratch.path("volume.img")
    let mountPoint = try scratch.folder("volume")
    let made = run("/bin/sh", ["-c", "truncate -s 8M '\(image)' && /sbin/mkfs.ext4 -q '\(image)'"])
    try #require(made.status == 0, "\(made.error)")
    let script = """
      mount -o loop '\(image)' '\(mountPoint)' || exit 77
      echo data > '\(mountPoint)/target'
      '\(docbm)' bookmark '\(document)' '\(mountPoint)/target' > '\(scratch.root)/bm' || exit 1
      '\(docbm)' resolve '\(document)' - < '\(scratch.root)/bm' || exit 2
      umount '\(mountPoint)'
      '\(docbm)' resolve --json '\(document)' - < '\(scratch.root)/bm'
      """
    let result = run("/usr/bin/unshare", ["-m", "--propagation", "private", "/bin/sh", "-c", script])
    if result.status == 77 {
      print("skipped: loop devices are not available here (\(result.error))")
      return
    }
    #expect(result.status == 1, "\(result.error)")
    #expect(result.output.contains("\"code\":\"volumeUnavailable\""))
    #expect(result.output.contains("\"recommendation\":\"retryLater\""))
  }

  @Test("the demo runs and shows every step")
  func demo() {
    let result = run(docbm, ["demo"])
    #expect(result.status == 0, "\(result.error)")
    for expected in [
      "stale: targetMoved", "stale: documentMoved", "tampered", "keyMismatch", "missing",
      "key after the save: none", "keyMissing", "keyLost: the document has no key", "restored: key",
      "sources: resolved to",
    ] {
      #expect(result.output.contains(expected))
    }
  }
}

@Suite("Completions and the manual page")
struct CompletionAndManualTests {
  let docbm = Capabilities.docbmExecutable

  @Test("the bash completion script parses and completes subcommands and options")
  func bashCompletion() throws {
    let scratch = try Scratch()
    let script = run(docbm, ["completions", "bash"])
    #expect(script.status == 0)
    let path = try scratch.file("docbm.bash", script.output)
    let probe = """
      source '\(path)'
      COMP_WORDS=(docbm che); COMP_CWORD=1; _docbm; echo "${COMPREPLY[@]}"
      COMP_WORDS=(docbm check --rec); COMP_CWORD=2; _docbm; echo "${COMPREPLY[@]}"
      COMP_WORDS=(docbm probe --th); COMP_CWORD=2; _docbm; echo "${COMPREPLY[@]}"
      COMP_WORDS=(docbm save --allow); COMP_CWORD=2; _docbm; echo "${COMPREPLY[@]}"
      """
    let result = run("/bin/bash", ["-c", probe])
    #expect(result.status == 0, "\(result.error)")
    #expect(
      result.output
        == "check\n--recursive\n--through-link\n--allow-empty --allow-owner-change --allow-read-only\n")
  }

  @Test("the zsh completion script parses")
  func zshCompletion() throws {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/zsh") else {
      print("skipped: zsh is not installed")
      return
    }
    let scratch = try Scratch()
    let path = try scratch.file("_docbm", run(docbm, ["completions", "zsh"]).output)
    #expect(run("/usr/bin/zsh", ["-n", path.description]).status == 0)
  }

  @Test("the manual page names every subcommand and renders without warnings")
  func manualPage() throws {
    let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("docs/docbm.1")
    let text = try String(contentsOf: source, encoding: .utf8)
    for name in [
      "bookmark", "resolve", "decode", "inspect", "check", "repair", "save", "probe", "watch", "demo",
      "completions",
    ] {
      #expect(text.contains(".BI \"\(name)") || text.contains(".B \(name)"), "\(name) is missing")
      // Each subcommand opens a paragraph of its own.
      if text.contains(".BI \"\(name) ") {
        #expect(text.contains(".TP\n.BI \"\(name) "), "\(name) runs into the paragraph before it")
      }
    }
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/man") else {
      print("skipped: man is not installed, the page was not rendered")
      return
    }
    let rendered = run(
      "/usr/bin/man", ["--warnings", "-l", source.path], environment: ["MANWIDTH": "80", "LC_ALL": "C.UTF-8"])
    #expect(rendered.status == 0)
    #expect(rendered.error.isEmpty, "\(rendered.error)")
    #expect(rendered.output.contains("EXIT STATUS"))
    // No word is broken at a line's end: an option searched for (`--allow-owner-change`)
    // is found whole.
    let narrow = run(
      "/usr/bin/man", ["-l", source.path], environment: ["MANWIDTH": "60", "LC_ALL": "C.UTF-8"])
    #expect(narrow.output.contains("--allow-owner-change"), "\(narrow.output)")
    #expect(!narrow.output.split(separator: "\n").contains { $0.hasSuffix("\u{2010}") }, "\(narrow.output)")
  }

  @Test(
    "resolve of an ambiguous bookmark prints no path, names both candidates, offers no refreshed one and exits 4"
  )
  func ambiguousResolve() throws {
    let scratch = try Scratch()
    let document = try scratch.file("p/board.json", "{}")
    let target = try scratch.file("p/img/cat.png", "the cat")
    let text = run(docbm, ["bookmark", document.description, target.description]).output
      .trimmingCharacters(in: .whitespacesAndNewlines)
    try #require(
      run("/bin/cp", ["-a", scratch.path("p").description, scratch.path("copy").description]).status == 0)
    try scratch.write("retouched", to: scratch.path("copy/img/cat.png"))
    let result = run(docbm, ["resolve", scratch.path("copy/board.json").description, text])
    #expect(result.status == 4)
    #expect(result.output.isEmpty, "a script would take the path for the target: \(result.output)")
    #expect(result.error.contains("ambiguous: the bookmark is good, but 2 files may be its target"))
    #expect(result.error.contains("stale: relativePathChanged, ambiguous"), "\(result.error)")
    #expect(result.error.contains("candidate (recordedIdentity): \(target)"))
    #expect(result.error.contains("candidate (relativePath): \(scratch.path("copy/img/cat.png"))"))
    #expect(!result.error.contains("refreshed:"))
    let json = run(docbm, ["resolve", "--json", scratch.path("copy/board.json").description, text])
    let report = try #require(
      try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
    #expect(json.status == 4)
    #expect((report["candidates"] as? [[String: Any]])?.count == 2)
    #expect(report["resolved"] as? Bool == false)
    #expect(report["ambiguous"] as? Bool == true)
    #expect(report["path"] == nil)
    #expect(result.error.contains("--choose PATH"), "\(result.error)")

    // The user takes the copy's own file: its path, and a refreshed bookmark that keeps it.
    let copyFile = scratch.path("copy/img/cat.png")
    let chosen = run(
      docbm, ["resolve", "--choose", copyFile.description, scratch.path("copy/board.json").description, text])
    #expect(chosen.status == 0, "\(chosen.error)")
    #expect(chosen.output == "\(copyFile)\n")
    let refreshed = try #require(
      chosen.error.split(separator: "\n").first { $0.hasPrefix("refreshed: ") }?.dropFirst(
        "refreshed: ".count))
    let again = run(docbm, ["resolve", scratch.path("copy/board.json").description, String(refreshed)])
    #expect(again.status == 0 && again.output == "\(copyFile)\n" && again.error.isEmpty, "\(again.error)")
    // A path that is none of the candidates chooses nothing.
    let wrong = run(
      docbm, ["resolve", "--choose", document.description, scratch.path("copy/board.json").description, text])
    #expect(wrong.status == 4 && wrong.output.isEmpty)
    #expect(wrong.error.contains("is none of the candidates"), "\(wrong.error)")
  }
}
