import DocbmTestSupport
import DocumentBookmarks
import Foundation
import Glibc
import Testing

/// The attacks of docs/security.md run with the built `docbm`, by two users: the owner
/// (the test, as root) and a stranger (`nobody`, through `setpriv`).
@Suite("docbm under attack")
struct TrustEndToEndTests {
  let docbm = Capabilities.docbmExecutable

  private func asNobody(_ executable: String, _ arguments: [String], escrow: String) -> ProcessResult {
    runAsNobody(executable, arguments, environment: ["DOCBM_ESCROW_DIR": escrow, "HOME": "/nonexistent"])
  }

  @Test("a stranger pastes the owner's bookmark into a shared file: check finds it, repair refuses it")
  func pastedIntoSharedFile() throws {
    guard Capabilities.canDropPrivileges else {
      print(Capabilities.cannotDropPrivileges)
      return
    }
    let scratch = try Scratch()
    chmod(scratch.root.description, 0o755)
    let escrow = scratch.path("escrow").description
    let mine = ["DOCBM_ESCROW_DIR": escrow]
    let home = try scratch.folder("a")
    chmod(home.description, 0o700)
    let board = try scratch.file("a/board.json", "{}")
    chmod(board.description, 0o600)
    let image = try scratch.file("a/img.png")
    let made = run(docbm, ["bookmark", board.description, image.description], environment: mine)
    try #require(made.status == 0, "\(made.error)")
    let text = made.output.trimmingCharacters(in: .whitespacesAndNewlines)

    let shared = try scratch.folder("shared")
    chmod(shared.description, 0o1777)
    // Under the document's name, a file that may be its copy: repair's rules decide.
    let notes = shared.appending("board.json")
    let pasted = asNobody(
      "/bin/sh",
      ["-c", "printf '{\"img\":\"%s\"}' \"$1\" > \"$2\" && chmod 666 \"$2\"", "sh", text, notes.description],
      escrow: "/nonexistent")
    try #require(pasted.status == 0, "\(pasted.error)")

    let check = run(docbm, ["check", "--recursive", shared.description], environment: mine)
    #expect(check.status == 2)
    #expect(check.output.contains("keyLost"))
    for arguments in [
      ["repair", "--json", notes.description], ["repair", "--json", "--allow-unrecorded", notes.description],
    ] {
      let repair = run(docbm, arguments, environment: mine)
      #expect(repair.status == 2, "\(repair.output)")
      let json = try #require(
        try JSONSerialization.jsonObject(with: Data(repair.output.utf8)) as? [String: Any])
      let report = try #require((json["repairs"] as? [[String: Any]])?.first)
      #expect(report["action"] as? String == "refused")
      #expect(report["refusal"] as? String == "notOwned")
    }
    #expect(try BookmarkService(escrow: nil).documents(anchoredOn: notes).keyFingerprint() == nil)
    // The stranger reads no key from the file: there is none to read.
    let read = asNobody(
      "/usr/bin/getfattr", ["-n", "user.docbm.key", notes.description], escrow: "/nonexistent")
    #expect(read.status != 0)
  }

  @Test("a stranger's escrow folder is refused by check and repair, with a typed message")
  func strangersEscrowFolder() throws {
    guard Capabilities.canDropPrivileges else {
      print(Capabilities.cannotDropPrivileges)
      return
    }
    let scratch = try Scratch()
    chmod(scratch.root.description, 0o755)
    let strangersHome = try scratch.folder("stranger")
    chown(strangersHome.description, 65534, 65534)
    let planted = strangersHome.appending("escrow").description
    // The stranger makes an escrow of its own, with a key for its own document, and opens
    // the folder to everyone.
    let theirs = try scratch.file("theirs/doc.json", "{}")
    let target = try scratch.file("theirs/t")
    chown(scratch.path("theirs").description, 65534, 65534)
    chown(theirs.description, 65534, 65534)
    let made = asNobody(docbm, ["bookmark", theirs.description, target.description], escrow: planted)
    try #require(made.status == 0, "\(made.error)")
    #expect(asNobody("/bin/chmod", ["0777", planted], escrow: planted).status == 0)

    let victim = try scratch.file("victim.json", "{}")
    let environment = ["DOCBM_ESCROW_DIR": planted]
    let check = run(docbm, ["check", victim.description], environment: environment)
    // One sentence, the folder named once, its owner said once.
    #expect(
      check.error.contains(
        "warning: the escrow cannot be used: the escrow folder \(planted) belongs to user 65534, not to you (0); refused."
      ), "\(check.error)")
    #expect(!check.error.contains("immutable"))
    let save = run(docbm, ["bookmark", victim.description, target.description], environment: environment)
    #expect(save.error.contains("escrowUntrusted"), "\(save.error)")
  }

  @Test("a bookmark on another user's file says that its key was not escrowed")
  func bookmarkOnAStrangersFile() throws {
    guard Capabilities.canDropPrivileges else {
      print(Capabilities.cannotDropPrivileges)
      return
    }
    let scratch = try Scratch()
    chmod(scratch.root.description, 0o755)
    let theirs = try scratch.file("theirs.json", "{}")
    chown(theirs.description, 65534, 65534)
    let target = try scratch.file("t.txt")
    let made = run(
      docbm, ["bookmark", theirs.description, target.description],
      environment: ["DOCBM_ESCROW_DIR": scratch.path("escrow").description])
    #expect(made.status == 0, "\(made.error)")
    #expect(
      made.error.contains(
        "warning: the key of \(theirs) was not escrowed, so repair cannot put it back if a save drops it: the document is not a file of yours"
      ), "\(made.error)")
  }

  @Test("a FIFO in the escrow, as its database or as a 0.1.0 entry, never blocks check or repair")
  func fifoInEscrow() throws {
    let scratch = try Scratch()
    let escrow = scratch.path("escrow")
    let environment = ["DOCBM_ESCROW_DIR": escrow.description]
    let document = try scratch.file("doc.json", "{}")
    let made = run(
      docbm, ["bookmark", document.description, try scratch.file("t").description], environment: environment)
    try #require(made.status == 0, "\(made.error)")
    // A 0.1.0 entry that is a FIFO: not read, reported, and kept aside with the others.
    #expect(mkfifo(escrow.appending("00000009-00000009.json").description, 0o600) == 0)
    let upgrade = run(
      "/usr/bin/timeout", ["20", docbm, "check", document.description], environment: environment)
    #expect(upgrade.status == 0, "\(upgrade.output) \(upgrade.error)")
    #expect(upgrade.error.contains("00000009-00000009.json"), "\(upgrade.error)")
    #expect(upgrade.error.contains("not a regular file"), "\(upgrade.error)")
    // The database itself a FIFO: refused as untrusted, never opened by SQLite.
    #expect(unlink(escrow.appending("escrow.sqlite").description) == 0)
    #expect(mkfifo(escrow.appending("escrow.sqlite").description, 0o600) == 0)
    for arguments in [["check", document.description], ["repair", document.description]] {
      let result = run("/usr/bin/timeout", ["20", docbm] + arguments, environment: environment)
      #expect(result.status != 124, "docbm \(arguments[0]) blocked on a FIFO")
      #expect(result.status == 0, "\(result.output) \(result.error)")
    }
    let check = run(
      "/usr/bin/timeout", ["20", docbm, "check", document.description], environment: environment)
    #expect(check.error.contains("escrow.sqlite"), "\(check.error)")
    #expect(check.error.contains("not a regular file"), "\(check.error)")
  }

  @Test("another user's database in your escrow folder, unreadable to you, is named as theirs")
  func foreignDatabaseUnreadable() throws {
    guard Capabilities.canDropPrivileges else {
      print(Capabilities.cannotDropPrivileges)
      return
    }
    let scratch = try Scratch()
    chmod(scratch.root.description, 0o755)
    // Nobody's escrow folder holds root's database, mode 0600.
    let folder = try scratch.folder("escrow")
    let rootsEscrow = ["DOCBM_ESCROW_DIR": folder.description]
    let mine = try scratch.file("mine.json", "{}")
    try #require(
      run(docbm, ["bookmark", mine.description, try scratch.file("t").description], environment: rootsEscrow)
        .status == 0)
    chmod(folder.description, 0o700)
    chown(folder.description, 65534, 65534)
    let theirs = try scratch.file("nobody/doc.json", "{}")
    chown(scratch.path("nobody").description, 65534, 65534)
    chown(theirs.description, 65534, 65534)
    let check = asNobody(docbm, ["check", theirs.description], escrow: folder.description)
    #expect(check.error.contains("escrow.sqlite belongs to user 0, not to you (65534)"), "\(check.error)")
    #expect(!check.error.contains("opening the document"), "\(check.error)")
  }
}
