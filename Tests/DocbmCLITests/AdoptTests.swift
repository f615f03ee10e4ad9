import DocbmTestSupport
import DocumentBookmarks
import Foundation
import Glibc
import Testing

/// `docbm adopt`: a copy that travelled without its key makes its bookmarks its own, only
/// when the user says so; repair never does.
@Suite("docbm adopt")
struct AdoptTests {
  let docbm = Capabilities.docbmExecutable

  /// A project (a board holding bookmarks to two images, one of them also in base64 as
  /// `Data` is encoded) escrowed in `first`, and its copy by `cp -r` (no attributes) at
  /// `copy/`, whose machine has the escrow `second`, which never saw the key.
  private func copiedProject(_ scratch: Scratch) throws -> (board: FilePath, copy: FilePath) {
    let first = ["DOCBM_ESCROW_DIR": scratch.path("first").description]
    let board = try scratch.file("project/board.json", "{}")
    try scratch.file("project/images/cat.png", "PNG cat")
    try scratch.file("project/images/dog.png", "PNG dog")
    var marks: [String] = []
    for image in ["cat", "dog"] {
      let made = run(
        docbm, ["bookmark", board.description, scratch.path("project/images/\(image).png").description],
        environment: first)
      try #require(made.status == 0, "\(made.error)")
      marks.append(made.output.trimmingCharacters(in: .whitespacesAndNewlines))
    }
    let binary = try Bookmark(text: marks[1]).bytes
    try scratch.write(
      "{\"cat\": \"\(marks[0])\", \"dog\": \"\(marks[1])\", \"dogData\": \"\(Data(binary).base64EncodedString())\"}",
      to: board)
    #expect(
      run("/bin/cp", ["-r", scratch.path("project").description, scratch.path("copy").description]).status
        == 0)
    return (board, scratch.path("copy/board.json"))
  }

  @Test("a copy without its key adopts its bookmarks with --yes: they resolve to the copy's own files")
  func adoptCopy() throws {
    let scratch = try Scratch()
    let (_, copy) = try copiedProject(scratch)
    let second = ["DOCBM_ESCROW_DIR": scratch.path("second").description]
    let checked = run(docbm, ["check", copy.description], environment: second)
    #expect(checked.status == 2)
    #expect(checked.output.contains("'docbm adopt'"), "\(checked.output)")
    // Repair, as check said, refuses, and leaves the file as it was.
    let before = try Data(contentsOf: copy.url)
    #expect(run(docbm, ["repair", copy.description], environment: second).status == 2)
    #expect(try Data(contentsOf: copy.url) == before)

    let adopted = run(docbm, ["adopt", "--yes", "--json", copy.description], environment: second)
    #expect(adopted.status == 0, "\(adopted.error)")
    let report = try #require(
      try JSONSerialization.jsonObject(with: Data(adopted.output.utf8)) as? [String: Any])
    #expect(report["adopted"] as? Bool == true)
    let items = try #require(report["bookmarks"] as? [[String: Any]])
    #expect(items.map { $0["form"] as? String } == ["text", "text", "base64"])
    #expect(items.map { $0["rewritten"] as? Bool } == [true, true, false])
    #expect(
      items.map { $0["target"] as? String }
        == ["cat", "dog", "dog"].map { scratch.path("copy/images/\($0).png").description })

    let after = run(docbm, ["check", "--json", copy.description], environment: second)
    let documents = try #require(
      (try JSONSerialization.jsonObject(with: Data(after.output.utf8)) as? [String: Any])?["documents"]
        as? [[String: Any]])
    // The base64 copy of the dog's bookmark was not rewritten: it still names the old key.
    #expect(documents.first?["verdict"] as? String == "mixed", "\(after.output)")
    let json = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: copy.url)) as? [String: String])
    for (field, image) in [("cat", "cat"), ("dog", "dog")] {
      let text = try #require(json[field])
      let resolved = run(docbm, ["resolve", copy.description, text], environment: second)
      #expect(resolved.status == 0, "\(resolved.error)")
      #expect(
        resolved.output.trimmingCharacters(in: .whitespacesAndNewlines)
          == scratch.path("copy/images/\(image).png").description)
    }
    // The new text form printed for the base64 one resolves too.
    let printed = run(docbm, ["adopt", "--yes", copy.description], environment: second)
    #expect(printed.status == 0, "\(printed.error)")
    let text = try #require(
      printed.output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.last {
        $0.hasPrefix("docbmRec")
      })
    let resolved = run(docbm, ["resolve", copy.description, text], environment: second)
    #expect(
      resolved.output.trimmingCharacters(in: .whitespacesAndNewlines)
        == scratch.path("copy/images/dog.png").description)
  }

  @Test("without --yes and without a terminal, or with a no, nothing changes")
  func notConfirmed() throws {
    let scratch = try Scratch()
    let (_, copy) = try copiedProject(scratch)
    let second = ["DOCBM_ESCROW_DIR": scratch.path("second").description]
    let before = try Data(contentsOf: copy.url)
    let refused = run(docbm, ["adopt", copy.description], input: "y\n", environment: second)
    #expect(refused.status == 1)
    #expect(refused.error.contains("--yes"), "\(refused.error)")
    #expect(
      refused.output.contains(scratch.path("copy/images/cat.png").description), "the targets are listed")
    #expect(try Data(contentsOf: copy.url) == before)
    #expect(try BookmarkService(escrow: nil).documents(anchoredOn: copy).keyFingerprint() == nil)
  }

  @Test("adoption keeps a key the document carries and never touches the original")
  func keepsKey() throws {
    let scratch = try Scratch()
    let (board, copy) = try copiedProject(scratch)
    let second = KeyEscrow(folder: scratch.path("second"))
    // The copy got a key of its own meanwhile (a bookmark to something else).
    let document = BookmarkService(escrow: second).documents(anchoredOn: copy)
    _ = try document.makeBookmark(to: try scratch.file("copy/notes.txt"))
    let key = try #require(try document.keyFingerprint())
    let candidates = try document.adoptionCandidates()
    #expect(candidates.count == 3)
    #expect(Set(candidates.map(\.keyFingerprint)).count == 1)
    #expect(!candidates.contains { $0.keyFingerprint == key })
    let adopted = try document.adopt(candidates)
    #expect(adopted.allSatisfy { $0?.keyFingerprint == key })
    // The dog's record, there twice (text and base64), gets one new bookmark.
    #expect(adopted[1] != nil && adopted[1] == adopted[2])
    #expect(adopted[0] != adopted[1])
    #expect(try document.keyFingerprint() == key)
    // The original, with its own key, is untouched and still resolves its own files.
    let original = BookmarkService(escrow: nil).documents(anchoredOn: board)
    #expect(try original.adoptionCandidates().isEmpty)
  }

  @Test("a target reached through a link, out of the project: listed as it really is, and --yes leaves it")
  func linkOutOfTheProject() throws {
    let scratch = try Scratch()
    let (_, copy) = try copiedProject(scratch)
    let second = ["DOCBM_ESCROW_DIR": scratch.path("second").description]
    // The clone's cat is a relative link to a private file outside the project.
    let secret = try scratch.file("secret/id_ed25519", "PRIVATE KEY")
    try scratch.remove(scratch.path("copy/images/cat.png"))
    try scratch.symlink("../../secret/id_ed25519", at: scratch.path("copy/images/cat.png"))

    let candidates = try BookmarkService(escrow: nil).documents(anchoredOn: copy).adoptionCandidates()
    let cat = try #require(candidates.first { $0.recordedRelativePath == FilePath("images/cat.png") })
    #expect(cat.target == secret)
    #expect(cat.reachedThroughLink && cat.isOutsideDocumentFolder && cat.needsItsOwnConfirmation)
    #expect(
      candidates.filter { $0.recordedRelativePath == FilePath("images/dog.png") }.allSatisfy {
        !$0.needsItsOwnConfirmation
      })

    let listed = run(docbm, ["adopt", copy.description], environment: second)
    // The listing is wrapped at the terminal's width: compared word by word.
    let words = listed.output.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    #expect(
      words.contains("\(secret.description) (file, through a symbolic link, outside the document's folder)"),
      "\(listed.output)")
    let adopted = run(docbm, ["adopt", "--yes", "--json", copy.description], environment: second)
    #expect(adopted.status == 0, "\(adopted.error)")
    let report = try #require(
      try JSONSerialization.jsonObject(with: Data(adopted.output.utf8)) as? [String: Any])
    let items = try #require(report["bookmarks"] as? [[String: Any]])
    #expect(items.map { $0["throughLink"] as? Bool } == [true, false, false])
    #expect(items.map { $0["outsideFolder"] as? Bool } == [true, false, false])
    #expect(items.map { $0["bookmark"] == nil || $0["bookmark"] is NSNull } == [true, false, false])
    #expect(items.map { $0["rewritten"] as? Bool } == [false, true, false])
    // The document's new bookmarks point at its own files only; the private file has none.
    let json = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: copy.url)) as? [String: String])
    let resolved = run(docbm, ["resolve", copy.description, try #require(json["cat"])], environment: second)
    #expect(resolved.status != 0, "the old cat bookmark still names the old key: \(resolved.output)")
  }

  @Test("at a terminal, a target through a link takes a question of its own (in tmux)")
  func linkAtATerminal() throws {
    guard TmuxSession.isAvailable else {
      print("skipped: tmux or python3 is not installed, adopt was not tried in a terminal")
      return
    }
    let scratch = try Scratch()
    let (_, copy) = try copiedProject(scratch)
    _ = try scratch.file("secret/id_ed25519", "PRIVATE KEY")
    try scratch.remove(scratch.path("copy/images/cat.png"))
    try scratch.symlink("../../secret/id_ed25519", at: scratch.path("copy/images/cat.png"))
    let session = TmuxSession(
      "DOCBM_ESCROW_DIR='\(scratch.path("second"))' '\(docbm)' adopt '\(copy)'; echo exit=$?; exec tail -f /dev/null",
      in: scratch.root)
    defer {
      session.stop()
      withExtendedLifetime(scratch) {}  // the socket lives in it
    }
    try #require(
      session.screen(showing: "in its folder and save", joined: true) != nil, "\(session.screen())")
    session.send("y", "Enter")
    let asked = try #require(
      session.screen(showing: "through a symbolic link, outside the document's folder)?", joined: true))
    #expect(asked.contains("images/cat.png, which leads to"), "\(asked)")
    session.send("n", "Enter")
    let done = try #require(session.screen(showing: "exit=0", joined: true), "\(session.screen())")
    #expect(done.contains("Adopted 2 bookmarks"), "\(done)")
    #expect(done.contains("Left 1 bookmark"), "\(done)")
  }

  @Test("the old bytes checked out again after an adopt, in a shared folder: the refusal names each key")
  func checkedOutAgain() throws {
    let scratch = try Scratch()
    let (_, copy) = try copiedProject(scratch)
    let second = ["DOCBM_ESCROW_DIR": scratch.path("second").description]
    chmod(scratch.path("copy").description, 0o777)
    let old = try Data(contentsOf: copy.url)
    let oldKey = try #require(
      try BookmarkService(escrow: nil).documents(anchoredOn: copy).adoptionCandidates().first
    )
    .keyFingerprint
    try #require(run(docbm, ["adopt", "--yes", copy.description], environment: second).status == 0)
    let adopted = try #require(try BookmarkService(escrow: nil).documents(anchoredOn: copy).keyFingerprint())
    // `git checkout` of the old bytes: a new file, no key, the old bookmarks.
    try scratch.replaceAtomically(copy, with: String(decoding: old, as: UTF8.self))
    let refused = run(docbm, ["adopt", "--yes", copy.description], environment: second)
    #expect(refused.status != 0)
    let words = refused.error.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    #expect(words.contains("the escrow records key \(adopted) for this document"), "\(refused.error)")
    #expect(words.contains("its bookmarks name key \(oldKey)"), "\(refused.error)")
  }

  @Test(
    "a project copied again where an adopted copy was deleted: check says to forget the old record and adopt, and that works"
  )
  func copiedAgain() throws {
    let scratch = try Scratch()
    let (_, copy) = try copiedProject(scratch)
    let first = ["DOCBM_ESCROW_DIR": scratch.path("first").description]
    try #require(run(docbm, ["adopt", "--yes", copy.description], environment: first).status == 0)
    let adopted = try #require(try BookmarkService(escrow: nil).documents(anchoredOn: copy).keyFingerprint())
    try FileManager.default.removeItem(atPath: scratch.path("copy").description)
    try #require(
      run("/bin/cp", ["-r", scratch.path("project").description, scratch.path("copy").description]).status
        == 0)
    let checked = run(docbm, ["check", copy.description], environment: first)
    let words = checked.output.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    #expect(words.contains("the escrow records key \(adopted) for this path"), "\(checked.output)")
    #expect(words.contains("'docbm escrow forget \(copy)' and then 'docbm adopt'"), "\(checked.output)")
    let repaired = run(docbm, ["repair", "--json", copy.description], environment: first)
    let object = try #require(
      JSONSerialization.jsonObject(with: Data(repaired.output.utf8)) as? [String: Any], "\(repaired.output)")
    #expect((object["repairs"] as? [[String: Any]])?.first?["remedy"] as? String == "forgetThenAdopt")
    // Adopting alone is refused, and says the same; the two steps work.
    let refused = run(docbm, ["adopt", "--yes", copy.description], environment: first)
    #expect(refused.status != 0)
    #expect(
      refused.error.split(whereSeparator: \.isWhitespace).joined(separator: " ").contains(
        "'docbm escrow forget \(copy)' and then 'docbm adopt'"), "\(refused.error)")
    #expect(run(docbm, ["escrow", "forget", copy.description], environment: first).status == 0)
    let followed = run(docbm, ["adopt", "--yes", copy.description], environment: first)
    #expect(followed.status == 0, "\(followed.output)\(followed.error)")
    // The base64 form of the dog's bookmark is not rewritten (see adoptCopy): mixed, not keyLost.
    #expect(run(docbm, ["check", copy.description], environment: first).output.hasPrefix("mixed"))
    #expect(
      run(docbm, ["check", scratch.path("project/board.json").description], environment: first).status == 0)
  }

  @Test(
    "after an adopt that left a bookmark whose target was not there, a save that drops the key is repaired")
  func partialAdoptThenLossySave() throws {
    let scratch = try Scratch()
    let (_, copy) = try copiedProject(scratch)
    let first = ["DOCBM_ESCROW_DIR": scratch.path("first").description]
    try FileManager.default.removeItem(atPath: scratch.path("copy/images/dog.png").description)
    try #require(run(docbm, ["adopt", "--yes", copy.description], environment: first).status == 0)
    let adopted = try #require(try BookmarkService(escrow: nil).documents(anchoredOn: copy).keyFingerprint())
    #expect(run(docbm, ["check", copy.description], environment: first).output.hasPrefix("mixed"))
    // Another program's plain atomic save: a new file without the key.
    try scratch.replaceAtomically(
      copy, with: String(decoding: try Data(contentsOf: copy.url), as: UTF8.self) + " ")
    let checked = run(docbm, ["check", copy.description], environment: first)
    #expect(checked.output.contains("'docbm repair' can put it back"), "\(checked.output)")
    let repaired = run(docbm, ["repair", copy.description], environment: first)
    #expect(repaired.status == 0 && repaired.output.hasPrefix("restored"), "\(repaired.output)")
    #expect(try BookmarkService(escrow: nil).documents(anchoredOn: copy).keyFingerprint() == adopted)
    #expect(run(docbm, ["check", copy.description], environment: first).output.hasPrefix("mixed"))
  }

  @Test("adopt never gives a key to another user's file, even one you may write")
  func anotherUsersFile() throws {
    guard Capabilities.isRoot else {
      print("skipped: chown needs root")
      return
    }
    let scratch = try Scratch()
    let (_, copy) = try copiedProject(scratch)
    let second = ["DOCBM_ESCROW_DIR": scratch.path("second").description]
    #expect(chown(copy.description, 65534, 65534) == 0)
    #expect(chmod(copy.description, 0o666) == 0)
    let before = try Data(contentsOf: copy.url)
    let refused = run(docbm, ["adopt", "--yes", copy.description], environment: second)
    #expect(refused.status != 0)
    #expect(refused.error.contains("belongs to user 65534"), "\(refused.error)")
    #expect(try BookmarkService(escrow: nil).documents(anchoredOn: copy).keyFingerprint() == nil)
    #expect(try Data(contentsOf: copy.url) == before)
  }
}
