import DocbmSystem
import DocbmTestSupport
import Foundation
import Glibc
import Synchronization
import Testing

@testable import DocumentBookmarks

@Suite("Editor flows: new documents, Save As with bookmarks, error patterns, async calls")
struct EditorFlowTests {
  let scratch: Scratch

  init() throws {
    scratch = try Scratch()
  }

  private func contents(_ path: FilePath) throws -> String {
    String(decoding: try readWholeFile(path), as: UTF8.self)
  }

  private func leftovers(in folder: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: scratch.path(folder).description)
      .filter { $0.contains(".docbm-save-") }
  }

  // MARK: New documents

  @Test("bookmarks made for a new document resolve, not stale, after its first save")
  func newDocumentBookmarksResolve() throws {
    let cat = try scratch.file("project/cat.png")
    let folder = try scratch.folder("project/sources")
    let path = scratch.path("project/board.json")
    let draft = BookmarkService(escrow: nil).newDocument(at: path)
    let bookmarks = [try draft.makeBookmark(to: cat), try draft.makeBookmark(to: folder)]
    #expect(!FileManager.default.fileExists(atPath: path.description))
    #expect(bookmarks.allSatisfy { $0.keyFingerprint == draft.keyFingerprint })

    let document = try draft.createDocument(with: Data(bookmarks.map(\.text).joined(separator: "\n").utf8))
    #expect(try document.keyFingerprint() == draft.keyFingerprint)
    let first = try document.resolve(bookmarks[0])
    #expect(first.path == cat && !first.isStale)
    let second = try document.resolve(bookmarks[1])
    #expect(second.path == folder && !second.isStale && second.kind == .folder)
    #expect(
      try FileStatus.of(path, followSymlinks: false).permissions == 0o666 & ~FileModeCreationMask.current)
    #expect(try leftovers(in: "project").isEmpty)
  }

  @Test("a new document's writer can write the file itself")
  func newDocumentWriter() throws {
    let cat = try scratch.file("cat.png")
    let draft = BookmarkService(escrow: nil).newDocument(at: scratch.path("board.txt"))
    let bookmark = try draft.makeBookmark(to: cat)
    let document = try draft.createDocument { url in try Data(bookmark.text.utf8).write(to: url) }
    #expect(try contents(scratch.path("board.txt")) == bookmark.text)
    #expect(try document.resolve(bookmark).path == cat)
  }

  @Test("a document created at the path while the first save runs makes it fail, and keeps its own key")
  func documentCreatedMeanwhile() throws {
    let cat = try scratch.file("cat.png")
    let path = scratch.path("board.json")
    let draft = BookmarkService(escrow: nil).newDocument(at: path)
    let bookmark = try draft.makeBookmark(to: cat)
    var otherFingerprint: KeyFingerprint?
    do {
      try draft.createDocument { url in
        // Someone else saves a document at the path, and anchors a bookmark on it.
        try scratch.write("theirs", to: path)
        otherFingerprint = try BookmarkService(escrow: nil).documents(anchoredOn: path).makeBookmark(to: cat)
          .keyFingerprint
        try Data("mine".utf8).write(to: url)
      }
      Issue.record("the first save replaced a document made meanwhile")
    } catch {
      #expect(error.code == .documentExists)
      #expect(error.step != nil)
      #expect(error.recommendation == .saveElsewhere)
    }
    #expect(try contents(path) == "theirs")
    let theirs = BookmarkService(escrow: nil).documents(anchoredOn: path)
    #expect(try theirs.keyFingerprint() == otherFingerprint)
    #expect(otherFingerprint != draft.keyFingerprint)
    #expect(throws: DocbmError.self) { try theirs.resolve(bookmark) }
    #expect(try leftovers(in: ".").isEmpty)
  }

  @Test("a first save refuses a file, or a dangling symbolic link, already at the path")
  func documentThereBefore() throws {
    let path = try scratch.file("board.json", "theirs")
    let draft = BookmarkService(escrow: nil).newDocument(at: path)
    var wrote = false
    #expect(throws: DocbmError.self) {
      try draft.createDocument { url in
        wrote = true
        try Data("mine".utf8).write(to: url)
      }
    }
    #expect(!wrote)
    #expect(try contents(path) == "theirs")
    #expect(try KeyAttribute.read(atPath: path).key(of: path) == nil)

    let link = scratch.path("link.json")
    #expect(symlink(scratch.path("nowhere.json").description, link.description) == 0)
    do {
      try BookmarkService(escrow: nil).newDocument(at: link).createDocument(with: Data("mine".utf8))
      Issue.record("saved through a symbolic link")
    } catch {
      #expect(error.code == .documentExists)
    }
    #expect(!FileManager.default.fileExists(atPath: scratch.path("nowhere.json").description))
  }

  @Test("a new document's key is escrowed with the document where it is")
  func newDocumentEscrowed() throws {
    let (scratch, escrow, service) = try EscrowScratch.make()
    let cat = try scratch.file("cat.png")
    let path = scratch.path("board.json")
    let draft = service.newDocument(at: path)
    _ = try draft.makeBookmark(to: cat)
    #expect(escrow.entry(for: draft.keyFingerprint) == nil)
    try draft.createDocument(with: Data("x".utf8))
    let entry = try #require(escrow.entry(for: draft.keyFingerprint))
    #expect(entry.documents.map(\.path) == [path])
    #expect(entry.documents.first?.inode == (try FileStatus.of(path, followSymlinks: false)).inode)
  }

  @Test("a new document never shows its key")
  func newDocumentHidesKey() throws {
    let path = scratch.path("board.json")
    let draft = BookmarkService(escrow: nil).newDocument(at: path)
    try draft.createDocument(with: Data("x".utf8))
    let key = try #require(try KeyAttribute.read(atPath: path).key(of: path))
    #expect(key.fingerprint == draft.keyFingerprint)
    var dumped = ""
    dump(draft, to: &dumped)
    #expect(String(describing: draft).contains(draft.keyFingerprint.description))
    let forms = [Hex.encode(key.bytes), Base64URL.encode(key.bytes), "\(key.bytes)"]
    for text in [dumped, String(describing: draft), String(reflecting: draft)] {
      #expect(!forms.contains { text.contains($0) }, "\(text)")
    }
  }

  // MARK: Save As with bookmarks

  @Test("Save As into another folder gives bookmarks that resolve from the copy, not stale")
  func saveAsReanchors() throws {
    let cat = try scratch.file("project/cat.png")
    let dog = try scratch.file("project/images/dog.png")
    let gone = try scratch.file("project/gone.png")
    let documentPath = try scratch.file("project/board.json", "board")
    _ = try scratch.folder("archive/2024")
    let document = BookmarkService(escrow: nil).documents(anchoredOn: documentPath)
    let originals = try [cat, dog, gone].map { try document.makeBookmark(to: $0) }
    unlink(gone.description)

    // Without re-anchoring, the copy's bookmarks resolve stale: their relative paths start
    // from the original's folder.
    let plain = try document.saveCopy(to: scratch.path("archive/plain.json"), data: Data("board".utf8))
    #expect(try plain.resolve(originals[0]).isStale)

    let copyPath = scratch.path("archive/2024/board.json")
    var handed: [ReanchoredBookmark] = []
    let saved = try document.saveCopy(to: copyPath, bookmarks: originals) { url, reanchored in
      handed = reanchored
      let stored = reanchored.map { ($0.bookmark ?? $0.original).text }
      try Data(stored.joined(separator: "\n").utf8).write(to: url)
    }
    #expect(handed == saved.bookmarks)
    #expect(saved.bookmarks.map(\.original) == originals)
    #expect(try saved.document.keyFingerprint() == document.keyFingerprint())
    for (bookmark, target) in zip(saved.bookmarks.prefix(2), [cat, dog]) {
      let resolution = try saved.document.resolve(try #require(bookmark.bookmark))
      #expect(resolution.path == target)
      #expect(!resolution.isStale, "\(resolution.staleReasons)")
    }
    #expect(saved.notReanchored.map(\.original) == [originals[2]])
    guard case .failed(let error) = saved.notReanchored.first?.outcome else {
      Issue.record("the missing target was not reported")
      return
    }
    #expect(error.code == .missing)
    // The copy holds what the writer stored; the original is untouched.
    #expect(try contents(copyPath).split(separator: "\n").count == 3)
    #expect(try contents(documentPath) == "board")
    #expect(try !document.resolve(originals[0]).isStale)
  }

  // MARK: Error patterns

  @Test("DocbmError.code(...) matches in catch clauses, typed or inside closures")
  func codePatterns() throws {
    let cat = try scratch.file("cat.png")
    let document = BookmarkService(escrow: nil).documents(anchoredOn: try scratch.file("board.json"))
    let bookmark = try document.makeBookmark(to: cat)
    unlink(cat.description)

    var typed = ""
    do {
      _ = try document.resolve(bookmark)
    } catch DocbmError.code(.volumeUnavailable) {
      typed = "offline"
    } catch DocbmError.code(.missing, .notFound) {
      typed = "gone"
    } catch {
      typed = "other \(error.code)"
    }
    #expect(typed == "gone")

    let inClosure: @Sendable () -> String = {
      do {
        _ = try document.resolve(bookmark)
        return "resolved"
      } catch DocbmError.code(.missing) {
        return "gone"
      } catch {
        return "other"
      }
    }
    #expect(inClosure() == "gone")
    let untyped: any Error = DocbmError(.keyMissing, message: "x")
    #expect(DocbmError.code(.keyMissing) ~= untyped)
    #expect(!(DocbmError.code(.missing) ~= untyped))
    #expect(!(DocbmError.code(.missing) ~= (CancellationError() as any Error)))
  }

  // MARK: Async

  @Test("async calls resolve, make bookmarks, save and check like the synchronous ones")
  func asyncCalls() async throws {
    let cat = try scratch.file("cat.png")
    let path = try scratch.file("board.json", "old")
    let document = BookmarkService(escrow: nil).documents(anchoredOn: path)
    let bookmark = try await document.async.makeBookmark(to: cat)
    try await document.async.replaceDocument(with: Data(bookmark.text.utf8))
    #expect(try contents(path) == bookmark.text)
    let resolution = try await document.async.resolve(bookmark)
    #expect(resolution.path == cat && !resolution.isStale)
    let check = try await DocumentChecker(escrow: nil).async.check(path)
    #expect(check.verdict == .ok)
  }

  @Test("async work runs on docbm's own threads, not the cooperative pool's")
  func asyncThreads() async throws {
    let path = try scratch.file("board.json", "old")
    let document = BookmarkService(escrow: nil).documents(anchoredOn: path)
    #expect(!DocbmThreads.isCurrent)
    let seen = Mutex<(name: String?, marked: Bool)?>(nil)
    try await document.async.replaceDocument { url in
      // The kernel's name of the thread (what ps and debuggers show), not Foundation's copy
      // of it, which may still hold the name of the thread that started this one.
      let comm = try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)
      let kernelName = comm?.trimmingCharacters(in: .newlines)
      seen.withLock { $0 = (kernelName, DocbmThreads.isCurrent) }
      try Data("new".utf8).write(to: url)
    }
    let observed = try #require(seen.withLock { $0 })
    #expect(observed.name == DocbmThreads.threadName)
    #expect(observed.marked)
    let onPool = try await DocbmThreads.run { DocbmThreads.isCurrent }
    #expect(onPool)
    #expect(!DocbmThreads.isCurrent)
  }

  @Test("a cancelled async save leaves the document intact and throws CancellationError")
  func cancelledSave() async throws {
    let cat = try scratch.file("project/cat.png")
    let path = try scratch.file("project/board.json", "old")
    let document = BookmarkService(escrow: nil).documents(anchoredOn: path)
    let bookmark = try document.makeBookmark(to: cat)
    let writing = Atomic<Bool>(false)
    let proceed = Atomic<Bool>(false)
    let save = Task {
      try await document.async.replaceDocument { url in
        try Data("half".utf8).write(to: url)
        writing.store(true, ordering: .sequentiallyConsistent)
        while !proceed.load(ordering: .sequentiallyConsistent) { usleep(1000) }
        try Data("new".utf8).write(to: url)
      }
    }
    while !writing.load(ordering: .sequentiallyConsistent) { try await Task.sleep(for: .milliseconds(1)) }
    save.cancel()
    proceed.store(true, ordering: .sequentiallyConsistent)
    await #expect(throws: CancellationError.self) { try await save.value }
    #expect(try contents(path) == "old")
    #expect(try document.resolve(bookmark).path == cat)
    #expect(try leftovers(in: "project").isEmpty)
  }

  @Test("an async call cancelled before it starts does nothing")
  func cancelledBeforeStart() async throws {
    let path = try scratch.file("board.json", "old")
    let cat = try scratch.file("cat.png")
    let document = BookmarkService(escrow: nil).documents(anchoredOn: path)
    let wrote = Atomic<Bool>(false)
    let task = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      try await document.async.replaceDocument { url in
        wrote.store(true, ordering: .relaxed)
        try Data("new".utf8).write(to: url)
      }
    }
    await #expect(throws: CancellationError.self) { try await task.value }
    let didWrite = wrote.load(ordering: .relaxed)
    #expect(!didWrite)
    #expect(try contents(path) == "old")
    let bookmarking = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      return try await document.async.makeBookmark(to: cat)
    }
    await #expect(throws: CancellationError.self) { try await bookmarking.value }
    #expect(try document.keyFingerprint() == nil)
  }
}
