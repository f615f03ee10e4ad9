import DocbmCLI
import DocbmTestSupport
import DocumentBookmarks
import Foundation
import Testing

/// `docbm probe` against real programs' saves.
@Suite("docbm probe end to end")
struct ProbeEndToEndTests {
  let docbm = Capabilities.docbmExecutable

  /// Runs the probe with `--json` in a user's folder and returns its exit status and findings.
  private func probe(_ command: [String], options: [String] = []) throws -> (
    status: Int32, kinds: Set<String>, notes: [String], fixes: [String]
  ) {
    let folder = try #require(Scratch.inUserFolder(), "no folder outside /tmp to probe in")
    let result = run(
      docbm, ["probe", "--json", "--in", folder.root.description] + options + ["--"] + command)
    let json = try #require(
      try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any], "\(result.error)")
    let findings = json["findings"] as? [[String: Any]] ?? []
    print(
      "probe-row | \(command.joined(separator: " ")) | \(result.status) | \(findings.compactMap { $0["kind"] as? String }.sorted())"
    )
    return (
      result.status, Set(findings.compactMap { $0["kind"] as? String }), json["notes"] as? [String] ?? [],
      findings.compactMap { $0["fix"] as? String }
    )
  }

  @Test("sed -i loses the key and the attributes (exit 2), and with --with-hard-link the hard link")
  func sedInPlace() throws {
    let seen = try probe(["/bin/sed", "-i", "s/sibling/other/", "{}"])
    #expect(seen.status == 2)
    #expect(seen.kinds == ["keyLost", "attributesLost", "bookmarkNoLongerResolves"])
    // The fixes name the command line's save, not a library's.
    #expect(seen.fixes.count == 3)
    for fix in seen.fixes {
      #expect(fix.contains("docbm save"), "\(fix)")
      #expect(!fix.contains("replaceDocument") && !fix.contains("docbm_"), "\(fix)")
    }
    let linked = try probe(["/bin/sed", "-i", "s/sibling/other/", "{}"], options: ["--with-hard-link"])
    #expect(linked.kinds == ["keyLost", "attributesLost", "hardLinkSplit", "bookmarkNoLongerResolves"])
    #expect(linked.notes.contains { $0.hasPrefix("the document had a second name") }, "\(linked.notes)")
  }

  @Test("cp over the document writes in place and keeps everything (exit 0)")
  func copyOver() throws {
    let scratch = try Scratch()
    let source = try scratch.file("new.json", "{\"new\": true}")
    let seen = try probe(["/bin/cp", source.description, "{}"])
    #expect(seen.status == 0)
    #expect(seen.kinds.isEmpty)
    #expect(seen.notes.contains("the document kept its inode (written in place)"))
  }

  @Test("dd conv=notrunc writes in place and keeps everything (exit 0)")
  func ddInPlace() throws {
    let seen = try probe(["/bin/dd", "conv=notrunc", "if=/etc/hostname", "of={}", "status=none"])
    #expect(seen.status == 0)
    #expect(seen.kinds.isEmpty)
  }

  @Test("Python's atomic save pattern (write a temporary, os.replace) loses the key and the mode (exit 2)")
  func pythonAtomicSave() throws {
    let python = ["/usr/bin/python3", "/usr/local/bin/python3"].first {
      FileManager.default.isExecutableFile(atPath: $0)
    }
    guard let python else {
      print("skipped: python3 is not installed")
      return
    }
    let script = "import os,sys; p=sys.argv[1]; t=p+'.tmp'; open(t,'w').write('{}'); os.replace(t,p)"
    let seen = try probe([python, "-c", script, "{}"])
    #expect(seen.status == 2)
    #expect(seen.kinds.isSuperset(of: ["keyLost", "attributesLost", "modeChanged"]))
  }

  @Test("through a symbolic link, Python's atomic save replaces the link")
  func pythonThroughLink() throws {
    let script = "import os,sys; p=sys.argv[1]; t=p+'.tmp'; open(t,'w').write('{}'); os.replace(t,p)"
    let seen = try probe(["/usr/bin/env", "python3", "-c", script, "{}"], options: ["--through-link"])
    #expect(seen.status == 2)
    #expect(seen.kinds.contains("symbolicLinkReplaced"))
  }

  @Test("docbm save keeps everything; it refuses to split hard links unless told, and says so")
  func docbmSave() throws {
    let kept = try probe([docbm, "save", "--from", "/etc/hostname", "{}"])
    #expect(kept.status == 0)
    #expect(kept.kinds.isEmpty)
    let refused = try probe([docbm, "save", "--from", "/etc/hostname", "{}"], options: ["--with-hard-link"])
    #expect(refused.status == 2)
    #expect(refused.kinds == ["saveFailed"])
    let split = try probe(
      [docbm, "save", "--split-hard-links", "--from", "/etc/hostname", "{}"], options: ["--with-hard-link"])
    #expect(split.kinds == ["hardLinkSplit"])
    let viaLink = try probe([docbm, "save", "--from", "/etc/hostname", "{}"], options: ["--through-link"])
    #expect(viaLink.status == 0)
  }

  @Test("the path is appended when the command has no {}, and text output names what was lost")
  func appendedPathAndText() throws {
    let folder = try #require(Scratch.inUserFolder())
    let result = run(docbm, ["probe", "--in", folder.root.description, "/bin/sed", "-i", "s/a/b/"])
    #expect(result.status == 2)
    #expect(result.output.contains("LOST keyLost"))
    // A shell user's fix is a command: the same sed, written through docbm save.
    let words = result.output.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    #expect(words.contains("sed s/a/b/ FILE | docbm save FILE"), "\(result.output)")
    let usage = run(docbm, ["probe"])
    #expect(usage.status == 64)
    #expect(usage.error.contains("Missing expected argument 'COMMAND'"))
  }
}

/// What a probed program leaves behind must not outlive the probe: its scratch document
/// carries a key.
@Suite("docbm probe cleans up")
struct ProbeCleanupTests {
  let docbm = Capabilities.docbmExecutable

  @Test(
    "the scratch folder is removed when the program made the document immutable or the folder mode 000",
    arguments: [
      "chattr +i \"$1\"", "chattr +a \"$1\"", "chmod 000 \"$(dirname \"$1\")\"",
      "chattr +i \"$(dirname \"$1\")\"",
    ])
  func hostileProgram(script: String) throws {
    guard Capabilities.isRoot else {
      print("skipped: immutable files need root to make and to clear")
      return
    }
    let scratch = try Scratch()
    let result = run(
      docbm, ["probe", "--in", scratch.root.description, "--", "/bin/sh", "-c", script, "sh", "{}"])
    let left = try FileManager.default.contentsOfDirectory(atPath: scratch.root.description)
    #expect(left.isEmpty, "left behind: \(left); \(result.error)")
    #expect(!result.error.contains("could not remove"), "\(result.error)")
    if !left.isEmpty { _ = run("/usr/bin/chattr", ["-R", "-i", "-a", scratch.root.description]) }
  }
}
