import DocbmTestSupport
import DocumentBookmarks
import Foundation
import Glibc
import Testing

/// The escrow with the built `docbm`: a swapped file refused, many processes at once, and
/// a first escrow that fails or is killed.
@Suite("docbm and the escrow's database")
struct EscrowEndToEndTests {
  let docbm = Capabilities.docbmExecutable

  @Test("another user swaps a file into a document's path in a shared folder: repair and bookmark refuse it")
  func swapInSharedFolder() throws {
    guard Capabilities.canDropPrivileges else {
      print(Capabilities.cannotDropPrivileges)
      return
    }
    let scratch = try Scratch()
    chmod(scratch.root.description, 0o755)
    let mine = ["DOCBM_ESCROW_DIR": scratch.path("escrow").description]
    let shared = try scratch.folder("project")
    chmod(shared.description, 0o777)
    // Another of the owner's files, made earlier, readable by everyone; then the document.
    let notes = try scratch.file("project/notes.txt", "notes\n")
    chmod(notes.description, 0o644)
    FileClock.waitForNextTick()
    let board = try scratch.file("project/board.json", "{}")
    chmod(board.description, 0o600)
    let image = try scratch.file("img.png")
    let made = run(docbm, ["bookmark", board.description, image.description], environment: mine)
    try #require(made.status == 0, "\(made.error)")
    let text = made.output.trimmingCharacters(in: .whitespacesAndNewlines)
    try scratch.write("{\"img\":\"\(text)\"}", to: board)

    // The stranger, who may write the folder, moves the document away and the file in.
    let swapped = runAsNobody(
      "/bin/sh",
      [
        "-c", "mv \"$1/board.json\" \"$1/away.json\" && mv \"$1/notes.txt\" \"$1/board.json\"", "sh",
        shared.description,
      ],
      environment: ["HOME": "/nonexistent"])
    try #require(swapped.status == 0, "\(swapped.error)")

    let repair = run(docbm, ["repair", "--json", board.description], environment: mine)
    #expect(repair.status == 2, "\(repair.output) \(repair.error)")
    let json = try #require(
      try JSONSerialization.jsonObject(with: Data(repair.output.utf8)) as? [String: Any])
    let report = try #require((json["repairs"] as? [[String: Any]])?.first)
    #expect(report["refusal"] as? String == "unprovenSuccessor", "\(report)")
    let bookmark = run(docbm, ["bookmark", board.description, image.description], environment: mine)
    #expect(bookmark.status == 1)
    #expect(bookmark.error.contains("documentUnproven"), "\(bookmark.error)")
    #expect(try BookmarkService(escrow: nil).documents(anchoredOn: board).keyFingerprint() == nil)
    // The document itself, found where the stranger put it, still works.
    let away = shared.appending("away.json")
    let resolved = run(docbm, ["resolve", away.description, text], environment: mine)
    #expect(resolved.status == 0, "\(resolved.error)")
  }

  @Test("1,000 checks while 100 documents get their first bookmarks print no warning")
  func concurrentChecksAndFirstBookmarks() throws {
    let scratch = try Scratch()
    let folder = try scratch.folder("docs")
    let escrow = scratch.path("escrow")
    try (1...100).forEach { _ = try scratch.file("docs/d\($0).json", "{}") }
    _ = try scratch.file("docs/t.png")
    let script = """
      set -u
      cd '\(folder)'; docbm='\(docbm)'
      export DOCBM_ESCROW_DIR='\(escrow)'
      ( for i in $(seq 100); do "$docbm" bookmark "d$i.json" t.png > /dev/null 2>> bookmarks.err || echo "bookmark $i failed" >> bookmarks.err; done ) &
      maker=$!
      for i in $(seq 1000); do
        "$docbm" check "d$(( i % 100 + 1 )).json" > /dev/null 2>> checks.err &
        if [ $(( i % 8 )) -eq 0 ]; then wait $(jobs -p | grep -v "^$maker$") 2>/dev/null; fi
      done
      wait
      cat bookmarks.err checks.err
      "$docbm" check d1.json d100.json | head -c 0
      """
    let result = run("/bin/bash", ["-c", script])
    #expect(result.status == 0, "\(result.error)")
    #expect(result.output.isEmpty, "\(result.output)")
    let entries = KeyEscrow(folder: escrow).entries()
    #expect(entries.problems.isEmpty)
    #expect(entries.entries.count == 100)
    #expect(try FileManager.default.contentsOfDirectory(atPath: escrow.description) == ["escrow.sqlite"])
  }

  @Test("a first escrow killed as it is made leaves nothing behind, and the next command sees no damage")
  func killedFirstEscrow() throws {
    let scratch = try Scratch()
    let document = try scratch.file("doc.json", "{}")
    let target = try scratch.file("t.png")
    for round in 0..<30 {
      let escrow = scratch.path("escrow\(round)")
      let environment = ["DOCBM_ESCROW_DIR": escrow.description]
      let process = Process()
      process.executableURL = URL(fileURLWithPath: docbm)
      process.arguments = ["bookmark", document.description, target.description]
      process.environment = childEnvironment(environment)
      process.standardOutput = FileHandle.nullDevice
      process.standardError = FileHandle.nullDevice
      try process.run()
      // Killed at once, once the escrow folder exists, or once a database file is in it.
      let moment: (() -> Bool)? =
        switch round % 3 {
        case 0: nil
        case 1: { FileManager.default.fileExists(atPath: escrow.description) }
        default:
          {
            ((try? FileManager.default.contentsOfDirectory(atPath: escrow.description)) ?? []).contains {
              $0.hasPrefix("escrow.sqlite") || $0.hasPrefix(".escrow.sqlite")
            }
          }
        }
      while let moment, process.isRunning, !moment() { sched_yield() }
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
      let check = run(docbm, ["check", document.description], environment: environment)
      #expect(check.error.isEmpty, "round \(round): \(check.error)")
      // What a kill can leave is the database (whole: made under another name) and SQLite's
      // journal of a write it interrupted, which the next reader rolls back, or, when the
      // kill came before the journal's header was written, the next writer removes.
      let left = (try? FileManager.default.contentsOfDirectory(atPath: escrow.description)) ?? []
      #expect(
        left.allSatisfy { ["escrow.sqlite", "escrow.sqlite-journal"].contains($0) }, "round \(round): \(left)"
      )
      let next = try scratch.file("next\(round).json", "{}")
      let made = run(docbm, ["bookmark", next.description, target.description], environment: environment)
      #expect(made.status == 0 && made.error.isEmpty, "round \(round): \(made.error)")
      #expect(try FileManager.default.contentsOfDirectory(atPath: escrow.description) == ["escrow.sqlite"])
      #expect(KeyEscrow(folder: escrow).entries().problems.isEmpty, "round \(round)")
    }
  }

  @Test("a first escrow on a full disk fails, says so, and leaves nothing behind")
  func fullDiskFirstEscrow() throws {
    guard Capabilities.canMountPrivately else {
      print("skipped: mounting test filesystems needs root and unshare -m")
      return
    }
    let scratch = try Scratch()
    let escrow = try scratch.folder("escrow")
    let document = try scratch.file("doc.json", "{}")
    let target = try scratch.file("t.png")
    let script = """
      set -u
      e='\(escrow)'
      mount -t tmpfs -o size=64k,mode=0700 none "$e" || exit 77
      dd if=/dev/zero of="$e/fill" bs=4k count=64 2>/dev/null
      DOCBM_ESCROW_DIR="$e" '\(docbm)' bookmark '\(document)' '\(target)' > /dev/null
      echo "exit=$?"
      ls -A "$e"
      umount "$e"
      """
    let result = run("/usr/bin/unshare", ["-m", "--propagation", "private", "/bin/sh", "-c", script])
    if result.status == 77 {
      print("skipped: tmpfs cannot be mounted here: \(result.error)")
      return
    }
    #expect(result.output == "exit=0\nfill\n", "\(result.output) \(result.error)")
    #expect(result.error.contains("was not escrowed") && result.error.contains("noSpace"), "\(result.error)")
  }
}
