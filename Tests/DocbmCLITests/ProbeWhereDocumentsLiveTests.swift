import DocbmTestSupport
import DocumentBookmarks
import Foundation
import Glibc
import Testing

/// `docbm probe` tests saves where a user's documents are, says when it did not, says when
/// nothing was tested, and never leaves its keyed scratch document behind.
@Suite("docbm probe where documents live")
struct ProbeWhereDocumentsLiveTests {
  let docbm = Capabilities.docbmExecutable
  static let vim = ["/usr/bin/vim.basic", "/usr/bin/vim"].first {
    FileManager.default.isExecutableFile(atPath: $0)
  }

  private func json(_ result: ProcessResult) throws -> [String: Any] {
    try #require(
      try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any],
      "\(result.output) \(result.error)")
  }

  private func kinds(_ report: [String: Any]) -> Set<String> {
    Set((report["findings"] as? [[String: Any]] ?? []).compactMap { $0["kind"] as? String })
  }

  @Test("by default the scratch folder is made in the current folder, hidden, and removed afterwards")
  func currentFolderByDefault() throws {
    let folder = try #require(Scratch.inUserFolder())
    let result = run(
      "/bin/sh",
      [
        "-c", "cd \"$1\" && exec \"$2\" probe --json -- /bin/sed -i s/a/b/ {}", "sh", folder.root.description,
        docbm,
      ])
    let report = try json(result)
    let scratch = try #require(report["scratchFolder"] as? String)
    #expect(scratch.hasPrefix(folder.root.description + "/.docbm-probe-"))
    #expect(report["underTemporaryFolder"] as? Bool == false)
    #expect(report["verdict"] as? String == "lost")
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.root.description).isEmpty)
  }

  @Test(
    "Vim's default save in a user's folder loses the key; under /tmp the probe says the result may not hold")
  func vimDependsOnTheFolder() throws {
    guard let vim = Self.vim else {
      print("skipped: vim is not installed")
      return
    }
    let save = [vim, "-u", "NONE", "-N", "-E", "-s", "-c", "normal! Ax", "-c", "wq", "{}"]
    let folder = try #require(Scratch.inUserFolder())
    // The default: an ordinary document, one name.
    let user = run(docbm, ["probe", "--json", "--in", folder.root.description, "--"] + save)
    #expect(user.status == 2)
    let userReport = try json(user)
    #expect(kinds(userReport).isSuperset(of: ["keyLost", "attributesLost", "bookmarkNoLongerResolves"]))
    #expect(userReport["underTemporaryFolder"] as? Bool == false)
    // With a second name Vim writes in place and keeps everything: the report says that the
    // result depends on the link.
    let linked = run(
      docbm, ["probe", "--with-hard-link", "--in", folder.root.description, "--"] + save)
    #expect(linked.status == 0, "\(linked.output)")
    #expect(linked.output.contains("the document had a second name"), "\(linked.output)")

    let temporary = try Scratch(in: "/tmp")
    let inTemporary = run(
      docbm, ["probe", "--in", temporary.root.description, "--"] + save)
    #expect(inTemporary.output.contains("warning: the scratch document was under /tmp or $TMPDIR"))
    let inTemporaryJSON = run(
      docbm, ["probe", "--json", "--in", temporary.root.description, "--"] + save)
    #expect(try json(inTemporaryJSON)["underTemporaryFolder"] as? Bool == true)
  }

  @Test("a program that does not save is 'not tested' (exit 3), never 'kept'")
  func nothingTested() throws {
    let folder = try #require(Scratch.inUserFolder())
    var programs: [[String]] = [["/bin/true"], ["/usr/bin/test", "-s", "{}"]]
    if let vim = Self.vim { programs.append([vim, "-u", "NONE", "-N", "-E", "-s", "-c", "q", "{}"]) }
    for program in programs {
      let result = run(docbm, ["probe", "--json", "--in", folder.root.description, "--"] + program)
      #expect(result.status == 3, "\(program): \(result.output)")
      let report = try json(result)
      #expect(report["verdict"] as? String == "notSaved")
      let text = run(docbm, ["probe", "--in", folder.root.description, "--"] + program)
      #expect(text.status == 3)
      #expect(text.output.contains("NOT TESTED"))
      #expect(!text.output.contains("kept:"))
    }
  }

  @Test("a backup left beside an intact document is reported but exit 0; with --strict, exit 2")
  func leftoversAloneAreNotLosses() throws {
    let folder = try #require(Scratch.inUserFolder())
    let save = ["/bin/sh", "-c", "cp \"$1\" \"$1~\" && printf x >> \"$1\"", "sh", "{}"]
    let lenient = run(docbm, ["probe", "--json", "--in", folder.root.description, "--"] + save)
    #expect(lenient.status == 0)
    let report = try json(lenient)
    #expect(kinds(report) == ["temporaryFilesLeft"])
    #expect(report["verdict"] as? String == "keptLeavingFiles")
    #expect(report["safe"] as? Bool == true)
    let strict = run(docbm, ["probe", "--strict", "--in", folder.root.description, "--"] + save)
    #expect(strict.status == 2)
    #expect(strict.output.contains("LEFT temporaryFilesLeft"))
  }

  @Test(
    "a program that leaves a FIFO or a socket where the document was is reported, never waited on",
    .timeLimit(.minutes(1)))
  func specialFileLeft() throws {
    let folder = try #require(Scratch.inUserFolder())
    let programs: [(String, [String])] = [
      ("FIFO (named pipe)", ["/bin/sh", "-c", "rm \"$1\" && mkfifo \"$1\"", "sh", "{}"]),
      (
        "socket",
        [
          "/usr/bin/python3", "-c",
          "import os, socket, sys; os.remove(sys.argv[1]); socket.socket(socket.AF_UNIX).bind(sys.argv[1])",
          "{}",
        ]
      ),
    ]
    for (kind, program) in programs {
      let result = run(docbm, ["probe", "--json", "--in", folder.root.description, "--"] + program)
      #expect(result.status == 2, "\(kind): \(result.output) \(result.error)")
      let report = try json(result)
      #expect(kinds(report) == ["documentNotAFile"])
      let findings = report["findings"] as? [[String: Any]] ?? []
      #expect((findings.first?["message"] as? String)?.contains("a \(kind) is at") == true, "\(findings)")
      #expect(report["verdict"] as? String == "lost")
      #expect(try FileManager.default.contentsOfDirectory(atPath: folder.root.description).isEmpty)
    }
  }

  @Test("--in a folder that does not exist is a typed error (exit 1); --in without a value is a usage error")
  func badLocation() throws {
    let missing = run(docbm, ["probe", "--in", "/nonexistent-docbm-folder", "--", "/bin/true"])
    #expect(missing.status == 1)
    #expect(missing.error.contains("/nonexistent-docbm-folder"))
    let usage = run(docbm, ["probe", "--in"])
    #expect(usage.status == 64)
  }

  @Test("Ctrl-C during the probe stops the program, removes the scratch folder, and exits 130")
  func interruptCleansUp() throws {
    let folder = try #require(Scratch.inUserFolder())
    let process = Process()
    process.executableURL = URL(fileURLWithPath: docbm)
    process.environment = childEnvironment()
    process.arguments = [
      "probe", "--in", folder.root.description, "--", "/bin/sh", "-c",
      "touch \"$1.running\"; exec tail -f /dev/null",
      "sh",
      "{}",
    ]
    let errors = Pipe()
    process.standardError = errors
    process.standardOutput = Pipe()
    try process.run()
    defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
    // Wait until the program runs: it marks its document.
    let running = waitUntil {
      let entries = (try? FileManager.default.contentsOfDirectory(atPath: folder.root.description)) ?? []
      return entries.contains { scratch in
        scratch.hasPrefix(".docbm-probe-")
          && ((try? FileManager.default.contentsOfDirectory(atPath: folder.root.description + "/" + scratch))
            ?? []).contains { $0.hasSuffix(".running") }
      }
    }
    try #require(running, "the program did not start")
    let sent = Date()
    kill(process.processIdentifier, SIGINT)
    process.waitUntilExit()
    #expect(Date().timeIntervalSince(sent) < 50, "the signal is passed on to the program, which stops")
    let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    #expect(process.terminationStatus == 130)
    #expect(message.contains("interrupted by SIGINT"))
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.root.description).isEmpty)
  }
}
