import DocbmSystem
import DocbmTestSupport
import Foundation
import Glibc
import Testing

@testable import DocumentBookmarks

@Suite("Checking and repair")
struct CheckingTests {
  let scratch: Scratch
  let escrow: KeyEscrow
  let service: BookmarkService

  init() throws {
    (scratch, escrow, service) = try EscrowScratch.make()
  }

  /// A JSON document holding its bookmarks as text forms and one as base64 `Data`.
  struct Board: Codable {
    var images: [Bookmark]
    var thumbnail: Data
  }

  /// Makes a document with three bookmarks, stored in both forms, and returns it.
  private func makeDocument(_ name: String = "board.json") throws -> (FilePath, [Bookmark]) {
    let path = try scratch.file("project/\(name)", "{}")
    let document = service.documents(anchoredOn: path)
    var bookmarks: [Bookmark] = []
    for index in 0..<3 {
      bookmarks.append(try document.makeBookmark(to: try scratch.file("project/images/\(name)-\(index).png")))
    }
    let board = Board(images: Array(bookmarks.prefix(2)), thumbnail: bookmarks[2].data)
    try document.replaceDocument(with: JSONEncoder().encode(board))
    return (path, bookmarks)
  }

  private func check(_ path: FilePath) -> DocumentCheck {
    DocumentChecker(escrow: escrow).check(path)
  }

  @Test("a document as saved by replaceDocument is ok, with every bookmark found in both forms")
  func okDocument() throws {
    let (path, bookmarks) = try makeDocument()
    let result = check(path)
    #expect(result.verdict == .ok, "\(result.message)")
    #expect(result.bookmarks.count == 3)
    // The `Data` field is standard base64; when it happens to hold no `+` or `/`, it is the
    // same string as a text form and is reported as one (docs/format.md §5).
    #expect(Set(result.bookmarks.map(\.form)).isSubset(of: [.text, .base64]))
    #expect(result.bookmarks.allSatisfy { $0.verifies && $0.resolves })
    #expect(result.keyFingerprint == bookmarks[0].keyFingerprint)
    #expect(result.escrowedFingerprint == bookmarks[0].keyFingerprint)
  }

  @Test(
    "where the verdict does not depend on the escrow, a check without it gives the same verdict: ok, mismatch, mixed, another key recorded"
  )
  func verdictWithoutEscrow() throws {
    let (healthy, _) = try makeDocument("healthy.json")
    // The document's key replaced by another document's (a copy's bookmarks no longer
    // verify): the escrow records the first key for it.
    let (other, _) = try makeDocument("other.json")
    let (replaced, _) = try makeDocument("replaced.json")
    let otherKey = try #require(
      try ExtendedAttributes.value(KeyAttribute.name, of: .path(other, followSymlinks: true)))
    try ExtendedAttributes.set(KeyAttribute.name, to: otherKey, on: .path(replaced, followSymlinks: true))
    // Bookmarks of two keys in one document.
    let (mixed, _) = try makeDocument("mixed.json")
    let foreign = try service.documents(anchoredOn: other).makeBookmark(
      to: try scratch.file("project/images/x.png"))
    let mixedBoard = try JSONDecoder().decode(Board.self, from: Data(contentsOf: mixed.url))
    try service.documents(anchoredOn: mixed).replaceDocument(
      with: JSONEncoder().encode(
        Board(images: mixedBoard.images + [foreign], thumbnail: mixedBoard.thumbnail)))
    // And where it does: no key, and no key and no bookmarks.
    let (lost, _) = try makeDocument("lost.json")
    _ = try ExtendedAttributes.remove(KeyAttribute.name, from: .path(lost, followSymlinks: true))
    let empty = try scratch.file("project/empty.json", "{}")
    _ = try service.documents(anchoredOn: empty).makeBookmark(to: try scratch.file("project/images/y.png"))
    _ = try ExtendedAttributes.remove(KeyAttribute.name, from: .path(empty, followSymlinks: true))

    var verdicts: [CheckVerdict] = []
    for path in [healthy, replaced, mixed, lost, empty] {
      let withEscrow = check(path)
      let without = DocumentChecker(escrow: nil).check(path)
      verdicts.append(withEscrow.verdict)
      if DocumentChecker.verdictDependsOnEscrow(without) {
        #expect([lost, empty].contains(path), "\(path): \(without.message)")
      } else {
        #expect(without.verdict == withEscrow.verdict, "\(path): \(without.message) / \(withEscrow.message)")
        #expect(without.message == withEscrow.message)
      }
    }
    #expect(verdicts == [.ok, .keyMismatch, .mixed, .keyLost, .keyLost], "\(verdicts)")
    // Without the escrow, the empty document that lost its key has nothing to say so.
    #expect(DocumentChecker(escrow: nil).check(empty).verdict == .noBookmarks)
  }

  @Test(
    "real programs' saves lose the key; the checker says keyLost and repair restores it",
    arguments: [
      "Data.write(.atomic)", "sed -i", "python os.replace", "cp without --preserve", "zip and back",
    ])
  func realLosses(program: String) throws {
    let (original, bookmarks) = try makeDocument()
    var path = original
    switch program {
    case "Data.write(.atomic)":
      let contents = try Data(contentsOf: path.url)
      try contents.write(to: path.url, options: .atomic)
    case "sed -i":
      #expect(run("/bin/sed", ["-i", "s/images/images/", path.description]).status == 0)
    case "python os.replace":
      let script =
        "import os,sys; p=sys.argv[1]; d=open(p,'rb').read(); t=p+'.tmp'; open(t,'wb').write(d); os.replace(t,p)"
      #expect(run("/usr/bin/python3", ["-c", script, path.description]).status == 0)
    case "cp without --preserve":
      path = scratch.path("project/copy.json")
      #expect(run("/bin/cp", [original.description, path.description]).status == 0)
    default:
      let archive = scratch.path("board.zip").description
      let unpacked = try scratch.folder("unpacked")
      let zip = "import zipfile,sys; zipfile.ZipFile(sys.argv[1],'w').write(sys.argv[2], 'board.json')"
      let unzip = "import zipfile,sys; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])"
      #expect(run("/usr/bin/python3", ["-c", zip, archive, path.description]).status == 0)
      #expect(run("/usr/bin/python3", ["-c", unzip, archive, unpacked.description]).status == 0)
      path = unpacked.appending("board.json")
    }
    let lost = check(path)
    #expect(lost.verdict == .keyLost, "\(program): \(lost.message)")
    #expect(lost.bookmarks.count == 3)
    // Not verified, still reported where they point, as the records say.
    #expect(
      Set(lost.bookmarks.compactMap(\.recordedTarget))
        == Set(try bookmarks.map { try $0.decodeUnverified().absolutePath }))

    // A copy made without the key is a file the escrow never recorded: refused, unless
    // the user says it is their own copy. The original still carries the key: the remedy
    // is to adopt a copy whose targets are beside it, else to give it the same key.
    let isCopy = path != original
    var repair = DocumentRepairer(escrow: escrow).repair(path)
    if isCopy {
      #expect(repair.action == .refused && repair.refusal == .notRecorded, "\(repair.message)")
      #expect(repair.recordedDocument == original, "\(repair.message)")
      if path.removingLastComponent == original.removingLastComponent {
        #expect(repair.remedy == .adopt, "\(repair.message)")
        #expect(repair.message.hasSuffix("'docbm adopt' gives this copy a key of its own"))
      } else {
        #expect(repair.remedy == .repairAllowingUnrecorded, "\(repair.message)")
        #expect(repair.message.hasSuffix("'docbm repair --allow-unrecorded' gives it the same key"))
      }
      repair = DocumentRepairer(escrow: escrow, policy: .init(allowsUnrecordedDocuments: true)).repair(path)
    }
    #expect(repair.action == .restored, "\(repair.message)")
    #expect(repair.after?.verdict == .ok)
    let document = BookmarkService(escrow: nil).documents(anchoredOn: path)
    for bookmark in bookmarks {
      #expect(throws: Never.self) { try document.resolve(bookmark) }
    }
  }

  @Test(
    "a file that only quotes bookmarks (a shell history, a store's journal) is quotesBookmarks, not a problem; copies of the document stay keyLost"
  )
  func quotedBookmarks() throws {
    let (path, bookmarks) = try makeDocument()
    let text = bookmarks[0].text
    let repairer = DocumentRepairer(escrow: escrow)
    // A history in the home folder, where the bookmark's relative path leads nowhere.
    let history = try scratch.file("home/.bash_history", "ls\ndocbm resolve \(path) \(text)\n")
    let quoted = check(history)
    #expect(quoted.verdict == .quotesBookmarks, "\(quoted.message)")
    #expect(!quoted.verdict.isProblem)
    #expect(quoted.message.contains("made on another document (\(path))"), "\(quoted.message)")
    #expect(quoted.bookmarks.first?.recordedDocument == path)
    #expect(repairer.repair(history).action == .nothingToDo)
    #expect(try BookmarkService(escrow: nil).documents(anchoredOn: history).keyFingerprint() == nil)
    // A store's journal quotes its store's bookmarks, wherever they lead.
    let store = try scratch.file("project/recents.json", "{}")
    let storeBookmark = try service.documents(anchoredOn: store).makeBookmark(
      to: try scratch.file("project/images/recent.png"))
    let journal = try scratch.file(
      "project/recents.json.journal", "{\"bookmark\":\"\(storeBookmark.text)\"}\n")
    #expect(check(journal).verdict == .quotesBookmarks, "\(check(journal).message)")

    // A copy without the key keeps the document's name: still the document's copy.
    try scratch.folder("elsewhere")
    let copy = scratch.path("elsewhere/board.json")
    #expect(run("/bin/cp", [path.description, copy.description]).status == 0)
    #expect(check(copy).verdict == .keyLost)
    // A copy renamed beside the original: its bookmarks' relative paths lead to their targets.
    let renamed = scratch.path("project/board-v2.json")
    #expect(run("/bin/cp", [path.description, renamed.description]).status == 0)
    #expect(check(renamed).verdict == .keyLost, "\(check(renamed).message)")
  }

  @Test("bookmarks signed with another document's key: keyMismatch, and repair refuses")
  func mismatch() throws {
    let (path, _) = try makeDocument()
    let other = try scratch.file("project/other.json", "{}")
    _ = try service.documents(anchoredOn: other).makeBookmark(to: path)  // other gets a key of its own
    let stolen = try Data(contentsOf: path.url)
    try service.documents(anchoredOn: other).replaceDocument(with: stolen)
    let result = check(other)
    #expect(result.verdict == .keyMismatch, "\(result.message)")
    let repair = DocumentRepairer(escrow: escrow).repair(other)
    #expect(repair.action == .refused)
    #expect(
      try BookmarkService(escrow: nil).documents(anchoredOn: other).keyFingerprint()
        != result.bookmarks.first?.fingerprint)
  }

  @Test("some bookmarks verify and some are tampered: mixed")
  func mixedDocument() throws {
    let (path, bookmarks) = try makeDocument()
    var tampered = bookmarks[1].bytes
    tampered[40] ^= 1
    let board = Board(images: [bookmarks[0], try Bookmark(bytes: tampered)], thumbnail: Data())
    try service.documents(anchoredOn: path).replaceDocument(with: JSONEncoder().encode(board))
    let result = check(path)
    #expect(result.verdict == .mixed, "\(result.message)")
    #expect(result.bookmarks.filter(\.verifies).count == 1)
    #expect(result.bookmarks.contains { $0.problem == .tampered })
  }

  @Test("the escrow is evidence: a compressed document that lost its key is keyLost, and repaired")
  func escrowEvidence() throws {
    let path = try scratch.file("project/drawing.gz", "x")
    let document = service.documents(anchoredOn: path)
    let bookmark = try document.makeBookmark(to: try scratch.file("project/texture.png"))
    // The app stores its bookmarks compressed: nothing readable in the bytes.
    #expect(run("/bin/sh", ["-c", "echo '\(bookmark.text)' | gzip -c > '\(path)'"]).status == 0)
    #expect(check(path).verdict == .noBookmarks)  // compressed: nothing to see, and the key is there
    try scratch.replaceAtomically(path, with: "compressed bytes")
    let result = check(path)
    #expect(result.verdict == .keyLost, "\(result.message)")
    #expect(result.bookmarks.isEmpty)
    let repair = DocumentRepairer(escrow: escrow).repair(path)
    #expect(repair.action == .restored)
    #expect(try document.resolve(bookmark).path == scratch.path("project/texture.png"))
  }

  @Test("repair never invents a key: a document without a key nor evidence stays without")
  func noInventing() throws {
    let path = try scratch.file("project/plain.txt", "no bookmarks here")
    #expect(check(path).verdict == .noBookmarks)
    let repair = DocumentRepairer(escrow: escrow).repair(path)
    #expect(repair.action == .nothingToDo)
    #expect(try BookmarkService(escrow: nil).documents(anchoredOn: path).keyFingerprint() == nil)
    // Bookmarks naming a key the escrow does not have: refused.
    let foreign = BookmarkService(escrow: nil)  // no escrow
    let lonely = try scratch.file("project/lonely.json", "{}")
    let bookmark = try foreign.documents(anchoredOn: lonely).makeBookmark(to: path)
    try scratch.replaceAtomically(lonely, with: bookmark.text)
    let refused = DocumentRepairer(escrow: escrow).repair(lonely)
    #expect(refused.action == .refused)
    #expect(refused.message.contains("escrow has no key"))
  }

  @Test("a forged record naming an escrowed key's fingerprint does not get that key")
  func forgedFingerprint() throws {
    let (_, bookmarks) = try makeDocument()
    // Anyone can read a fingerprint; a record with it in its header and a made-up tag
    // must not earn the key.
    var forged = bookmarks[0].bytes
    forged[forged.count - 1] ^= 0xFF
    // Under the document's name (a file that may be its copy), repair verifies it: forged.
    let victim = try scratch.file("elsewhere/board.json", try Bookmark(bytes: forged).text)
    #expect(check(victim).verdict == .keyLost)
    let repair = DocumentRepairer(escrow: escrow).repair(victim)
    #expect(repair.action == .refused)
    #expect(repair.message.contains("not verify"))
    #expect(try BookmarkService(escrow: nil).documents(anchoredOn: victim).keyFingerprint() == nil)
    // Under another name it only quotes a bookmark of that document: no key either.
    let quoting = try scratch.file("elsewhere/forged.json", try Bookmark(bytes: forged).text)
    #expect(check(quoting).verdict == .quotesBookmarks)
    #expect(DocumentRepairer(escrow: escrow).repair(quoting).action == .nothingToDo)
    #expect(try BookmarkService(escrow: nil).documents(anchoredOn: quoting).keyFingerprint() == nil)
  }

  @Test("a tree check's hints come from its own reading of each document, and agree with repair's")
  func hintsFromTheCheck() throws {
    let (path, bookmarks) = try makeDocument()
    let contents = String(
      decoding: try Data(contentsOf: URL(fileURLWithPath: path.description)), as: UTF8.self)
    try scratch.replaceAtomically(path, with: contents)  // a plain save: the key is gone
    var forged = bookmarks[0].bytes
    forged[forged.count - 1] ^= 0xFF
    let victim = try scratch.file("elsewhere/board.json", try Bookmark(bytes: forged).text)
    let fingerprint = bookmarks[0].keyFingerprint
    var seen: [FilePath: (DocumentCheck, DocumentRepairer.Report?)] = [:]
    let repairer = DocumentRepairer(escrow: escrow)
    _ = TreeChecker(repairer: repairer, concurrency: 2).check(scratch.path("")) { check, prospect in
      seen[check.document] = (check, prospect)
    }
    let lost = try #require(seen[path])
    #expect(lost.0.verdict == .keyLost)
    #expect(lost.0.escrowedKeyTally?.counts[fingerprint] == EscrowedKeyTally.Count(verified: 3, forged: 0))
    #expect(lost.0.escrowedKeyTally?.isComplete == true)
    #expect(lost.1?.action == .restored, "\(String(describing: lost.1?.message))")
    // The prospect is decided on the file the check read, found at its real path.
    #expect(lost.0.sighting?.record.path == (try TargetSnapshot.canonicalPath(path)))
    #expect(lost.0.sighting?.status.inode == (try FileStatus.of(path, followSymlinks: false)).inode)
    let fake = try #require(seen[victim])
    #expect(fake.0.escrowedKeyTally?.counts[fingerprint] == EscrowedKeyTally.Count(verified: 0, forged: 1))
    #expect(fake.1?.refusal == .forgedBookmarks, "\(String(describing: fake.1?.message))")
    // A prospect decided by scanning again (a single check counts nothing) says the same.
    for document in [path, victim] {
      let single = DocumentChecker(escrow: escrow).check(document)
      #expect(single.escrowedKeyTally == nil)
      #expect(single.sighting == nil)
      let again = repairer.prospect(single)
      #expect(again.action == seen[document]?.1?.action)
      #expect(again.message == seen[document]?.1?.message)
    }
    // A plain tree check counts nothing, and a prospect writes nothing.
    _ = TreeChecker(checker: DocumentChecker(escrow: escrow)).check(scratch.path("")) { check in
      #expect(check.escrowedKeyTally == nil)
      #expect(check.sighting == nil)
    }
    // Without the key in the escrow, nothing is taken of the file for a prospect.
    let empty = try scratch.folder("empty-escrow")
    chmod(empty.description, 0o700)
    let stranger = DocumentRepairer(escrow: KeyEscrow(folder: empty))
    _ = TreeChecker(repairer: stranger).check(scratch.path("")) { check, prospect in
      #expect(check.sighting == nil)
      if check.document == path { #expect(prospect?.refusal == .notEscrowed) }
    }
    #expect(try BookmarkService(escrow: nil).documents(anchoredOn: path).keyFingerprint() == nil)
  }

  @Test(
    "a tree given through a link or with '..' is checked as its documents are one by one, and hinted at their real paths"
  )
  func treeThroughALink() throws {
    let (path, _) = try makeDocument()
    let (lost, _) = try makeDocument("lost.json")
    let contents = String(
      decoding: try Data(contentsOf: URL(fileURLWithPath: lost.description)), as: UTF8.self)
    try scratch.replaceAtomically(lost, with: contents)  // a plain save: the key is gone
    try scratch.symlink("project", at: scratch.path("link"))
    let real = try TargetSnapshot.canonicalPath(lost)
    let repairer = DocumentRepairer(escrow: escrow)
    for (root, concurrency) in [("link/", 1), ("link/", 2), ("project/images/../../project", 1)] {
      var seen: [FilePath: (DocumentCheck, DocumentRepairer.Report?)] = [:]
      let walk = TreeChecker(repairer: repairer, concurrency: concurrency)
      let unreadable = walk.check(scratch.path(root)) {
        seen[$0.document] = ($0, $1)
      }
      #expect(unreadable.isEmpty, "\(unreadable)")
      #expect(seen.count == 8, "\(root): \(seen.keys)")
      for (document, (tree, prospect)) in seen {
        // The same verdict, evidence and sentence as a check of that path alone.
        let single = check(document)
        #expect(tree.verdict == single.verdict, "\(document)")
        #expect(tree.bookmarks == single.bookmarks, "\(document)")
        #expect(tree.message == single.message, "\(document)")
        #expect(prospect?.message == (single.verdict == .keyLost ? repairer.prospect(single).message : nil))
      }
      let hinted = try #require(seen.first { $0.value.0.verdict == .keyLost }?.value)
      #expect(hinted.0.document.lastComponent == lost.lastComponent)
      #expect(hinted.0.sighting?.record.path == real)
      #expect(hinted.1?.action == .restored, "\(String(describing: hinted.1?.message))")
    }
    #expect(check(path).verdict == .ok)
  }

  @Test(
    "a damaged key value (a key byte or a stored fingerprint byte changed) is unreadable, with bookmarks or without"
  )
  func damagedKeyValue() throws {
    let (path, _) = try makeDocument()
    let plain = try scratch.file("project/plain.json", "{}")
    _ = try service.documents(anchoredOn: plain).makeBookmark(to: try scratch.file("project/images/p.png"))
    let keyName = KeyAttribute.name
    for document in [path, plain] {
      let intact = try #require(
        try ExtendedAttributes.value(keyName, of: .path(document, followSymlinks: true)))
      #expect(check(document).verdict == (document == path ? .ok : .noBookmarks))
      // A byte of the key (its stored fingerprint kept), then a byte of the stored fingerprint.
      for index in [6 + 5, KeyAttribute.valueLength - 2] {
        var damaged = intact
        damaged[index] ^= 0x10
        try ExtendedAttributes.set(keyName, to: damaged, on: .path(document, followSymlinks: true))
        let result = check(document)
        #expect(result.verdict == .unreadable, "\(document) byte \(index): \(result.message)")
        #expect(result.message.contains("damaged value"), "\(result.message)")
        #expect(result.keyFingerprint == nil)
      }
      try ExtendedAttributes.set(keyName, to: intact, on: .path(document, followSymlinks: true))
    }
  }

  @Test(
    "a key stored with a borrowed fingerprint, and a bookmark signed under it naming that fingerprint, is not ok"
  )
  func borrowedFingerprint() throws {
    // The user's document and key, as the escrow recorded them.
    let (path, bookmarks) = try makeDocument()
    let userFingerprint = bookmarks[0].keyFingerprint
    #expect(check(path).verdict == .ok)
    // Someone who can write the document replaces its key with their own, keeps the
    // user's fingerprint beside it, and signs a bookmark under their key whose header
    // names the user's fingerprint: the tag verifies, the names agree, the key is not the
    // user's.
    let stranger = DocumentKey.random()
    var value = KeyAttribute.encode(stranger)
    value.replaceSubrange(
      (KeyAttribute.valueLength - KeyFingerprint.byteCount)..., with: userFingerprint.bytes)
    try ExtendedAttributes.set(KeyAttribute.name, to: value, on: .path(path, followSymlinks: true))
    var record = bookmarks[0].bytes
    record.replaceSubrange(10..<18, with: userFingerprint.bytes)
    let signed = record[..<(record.count - BookmarkRecord.tagLength)]
    let tag = stranger.authenticate(context: BookmarkRecord.macContext, signed).prefix(
      BookmarkRecord.tagLength)
    record.replaceSubrange((record.count - BookmarkRecord.tagLength)..., with: tag)
    try scratch.write(try Bookmark(bytes: record).text, to: path)
    let result = check(path)
    #expect(result.verdict == .unreadable, "\(result.message)")
    #expect(result.keyFingerprint == nil)
    #expect(result.message.contains("damaged value"), "\(result.message)")
  }

  @Test("the escrow: a database of mode 0600 in a folder of mode 0700, one record per document")
  func escrowFiles() throws {
    let (_, bookmarks) = try makeDocument()
    let folder = try FileStatus.of(escrow.folder, followSymlinks: false)
    #expect(folder.permissions == 0o700)
    let entry = try #require(escrow.entry(for: bookmarks[0].keyFingerprint))
    #expect(entry.file == escrow.databasePath)
    #expect(try FileStatus.of(entry.file, followSymlinks: false).permissions == 0o600)
    #expect(entry.documents.count == 1)
    #expect(entry.documents.first?.permissions != nil)
    #expect(entry.documents.first?.birthTime != nil)
    let (entries, problems) = escrow.entries()
    #expect(entries.count == 1)
    #expect(problems.isEmpty)
  }

  @Test("concurrent writers never corrupt the escrow")
  func concurrentEscrow() async throws {
    let documents = try (0..<16).map { try scratch.file("many/doc\($0).json", "{}") }
    let target = try scratch.file("many/target.png")
    try await withThrowingTaskGroup(of: Void.self) { group in
      for document in documents {
        group.addTask { _ = try service.documents(anchoredOn: document).makeBookmark(to: target) }
      }
      try await group.waitForAll()
    }
    let (entries, problems) = escrow.entries()
    #expect(problems.isEmpty)
    #expect(entries.count == 16)
  }

  @Test("a tree check finds targets beside, below and outside a document's folder, as a check by path does")
  func treeCheckTargetsAround() throws {
    let path = try scratch.file("project/notes/board.json", "{}")
    let document = service.documents(anchoredOn: path)
    let targets = [
      "project/notes/beside.png", "project/notes/figures/below.png", "project/outside.png",
      "elsewhere/far.png", "project/notes/figures",
    ]
    var bookmarks: [Bookmark] = []
    for target in targets {
      let made = target.hasSuffix("figures") ? scratch.path(target) : try scratch.file(target)
      bookmarks.append(try document.makeBookmark(to: made))
    }
    try document.replaceDocument(with: Data(bookmarks.map(\.text).joined(separator: "\n").utf8))
    // A target gone since, beside the document: not found from the folder either.
    let gone = try document.makeBookmark(to: try scratch.file("project/notes/gone.png"))
    try document.replaceDocument(with: Data((bookmarks + [gone]).map(\.text).joined(separator: "\n").utf8))
    try FileManager.default.removeItem(atPath: scratch.path("project/notes/gone.png").description)
    var fromTree: [DocumentCheck] = []
    for concurrency in [1, 2] {
      _ = TreeChecker(checker: DocumentChecker(escrow: escrow), concurrency: concurrency).check(
        scratch.path("project/notes")
      ) { fromTree.append($0) }
    }
    let byPath = check(path)
    #expect(byPath.bookmarks.map(\.resolves) == [true, true, true, true, true, false])
    #expect(
      byPath.bookmarks.map(\.recordedTarget) == targets.map { scratch.path($0) } + [
        scratch.path("project/notes/gone.png")
      ])
    let boards = fromTree.filter { $0.document == path }
    #expect(boards.count == 2)
    for board in boards {
      #expect(board.verdict == .ok, "\(board.message)")
      #expect(board.bookmarks == byPath.bookmarks)
    }
    // The quick way itself (a miss there is caught by the full resolve, which answers the
    // same, only slower): every target still in place is found from the open folder.
    let key = DocumentKeyCache.Entry(try #require(try KeyAttribute.read(atPath: path).key(of: path)))
    let folder = try FileDescriptor.open(scratch.path("project/notes"), [.readOnly, .directory])
    defer { folder.close() }
    let anchored = service.documents(anchoredOn: path)
    for (bookmark, target) in zip(bookmarks, targets) {
      let found = UnmovedResolver.locate(bookmark, on: anchored, key: key, portal: nil, folder: folder).found
      #expect(found?.path == scratch.path(target), "\(target)")
    }
    let attempt = UnmovedResolver.locate(gone, on: anchored, key: key, portal: nil, folder: folder)
    #expect(attempt.verified && attempt.found == nil)
  }

  @Test("checking a folder's documents side by side gives the same answers, in the same order")
  func concurrentTreeCheck() throws {
    for index in 0..<12 {
      let (path, _) = try makeDocument("doc\(index).json")
      if index % 3 == 0 {
        try scratch.replaceAtomically(path, with: try String(contentsOf: path.url, encoding: .utf8))
      }
    }
    func run(_ concurrency: Int) -> [String] {
      var lines: [String] = []
      _ = TreeChecker(checker: DocumentChecker(escrow: escrow), concurrency: concurrency).check(
        scratch.path("project")
      ) {
        lines.append("\($0.document) \($0.verdict.rawValue) \($0.bookmarks.count)")
      }
      return lines
    }
    let alone = run(1)
    #expect(alone.count == 12 + 36)  // the documents and their images
    #expect(alone.filter { $0.hasSuffix("keyLost 3") }.count == 4)
    #expect(run(4) == alone)
  }

  @Test(
    "a tree larger than the checks in flight, in more folders than are kept open, is checked whole, in order, with no descriptor left open"
  )
  func largeTreeCheck() throws {
    let (source, _) = try makeDocument("source.json")
    let signed = try String(contentsOf: source.url, encoding: .utf8)
    // 90 folders (more than the open-folder limit) nested three deep, 1,080 documents (more
    // than two workers keep in flight); every ninth holds bookmarks signed with another
    // document's key.
    var expected: [String] = []
    for outer in 0..<10 {
      for inner in 0..<9 {
        for index in 0..<12 {
          let name = "tree/o\(outer)/i\(inner)/doc\(String(format: "%02d", index)).json"
          let signedHere = (outer + inner + index) % 9 == 0
          _ = try scratch.file(name, signedHere ? signed : "{\"index\": \(index)}")
          // Files that hold another document's bookmark under names of their own quote it.
          expected.append("\(scratch.path(name)) \(signedHere ? "quotesBookmarks" : "noBookmarks")")
        }
      }
    }
    #expect(expected.count > 2 * TreeChecker.documentsInFlight)
    #expect(90 > TreeChecker.openFolderLimit)
    // Descriptors open on the tree's folders (other tests run beside this one, so only
    // these are counted; documents being read are not).
    func descriptorsOnTree() throws -> Int {
      let tree = URL(fileURLWithPath: scratch.path("tree").description).resolvingSymlinksInPath().path
      return try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").filter {
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")
        else { return false }
        return target.hasPrefix(tree) && !target.hasSuffix(".json")
      }.count
    }
    func run(_ concurrency: Int) throws -> [String] {
      var lines: [String] = []
      var mostOpen = 0
      let unreadable = TreeChecker(checker: DocumentChecker(escrow: escrow), concurrency: concurrency).check(
        scratch.path("tree")
      ) {
        lines.append("\($0.document) \($0.verdict.rawValue)")
        if lines.count % 20 == 0 { mostOpen = max(mostOpen, (try? descriptorsOnTree()) ?? 0) }
      }
      #expect(unreadable.isEmpty)
      // The folders kept open, and the one being listed.
      #expect(mostOpen <= TreeChecker.openFolderLimit + 1)
      return lines
    }
    #expect(try run(1) == expected)
    #expect(try run(2) == expected)
    #expect(try run(5) == expected)
    #expect(try descriptorsOnTree() == 0)
  }

  @Test("a tree check opens a listed document by name and never through a link put in its place")
  func listedEntryReplacedByLink() throws {
    let (document, _) = try makeDocument("listed.json")
    let folder = try FileDescriptor.open(scratch.path("project"), [.directory])
    defer { folder.close() }
    let checker = DocumentChecker(escrow: escrow)
    #expect(checker.check(document, in: folder, named: Array("listed.json".utf8)).verdict == .ok)
    try scratch.symlink("listed.json", at: scratch.path("project/swapped.json"))
    let swapped = checker.check(
      scratch.path("project/swapped.json"), in: folder, named: Array("swapped.json".utf8))
    #expect(swapped.verdict == .unreadable)
    #expect(swapped.document == scratch.path("project/swapped.json"))
    #expect(swapped.message.contains("swapped.json"), "\(swapped.message)")
    // Without the folder (past the open-folder bound), by its whole path: the same.
    #expect(
      checker.check(swapped.document, in: nil, named: Array("swapped.json".utf8)).verdict == .unreadable)
    #expect(checker.check(document, in: nil, named: Array("listed.json".utf8)).verdict == .ok)
  }

  @Test("a tree check finds every document, reports unreadable entries, and never loops")
  func treeCheck() throws {
    let (good, _) = try makeDocument("good.json")
    let (bad, _) = try makeDocument("bad.json")
    try scratch.replaceAtomically(bad, with: try String(contentsOf: bad.url, encoding: .utf8))
    try scratch.symlink("..", at: scratch.path("project/loop"))
    var verdicts: [FilePath: CheckVerdict] = [:]
    let unreadable = TreeChecker(checker: DocumentChecker(escrow: escrow)).check(scratch.path("project")) {
      verdicts[$0.document] = $0.verdict
    }
    #expect(verdicts[good] == .ok)
    #expect(verdicts[bad] == .keyLost)
    #expect(unreadable.isEmpty)
    #expect(verdicts.keys.allSatisfy { !$0.description.contains("/loop/") })
  }
}
