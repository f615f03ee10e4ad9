import DocbmSystem
import DocbmTestSupport
import Foundation
import Testing

@testable import DocumentBookmarks

/// The `async` forms of the first save, Save As, repair and the tree check: each does what
/// the synchronous call does, on docbm's threads, and a task cancelled before it starts
/// does nothing.
@Suite("Async forms of saving, repair and checking")
struct AsyncFormsTests {
  @Test("createDocument: the first save creates the document with the key its bookmarks name")
  func createDocument() async throws {
    let scratch = try Scratch()
    let draft = BookmarkService(escrow: nil).newDocument(at: scratch.path("board.json"))
    let cat = try draft.makeBookmark(to: try scratch.file("cat.png"))
    let document = try await draft.async.createDocument(with: Data("{}".utf8))
    #expect(try document.resolve(cat).path == scratch.path("cat.png"))
    // The writer form, and its refusal of a path where something is now.
    let second = BookmarkService(escrow: nil).newDocument(at: scratch.path("notes.txt"))
    try await second.async.createDocument { url in try Data("notes".utf8).write(to: url) }
    let created = BookmarkService(escrow: nil).documents(anchoredOn: scratch.path("notes.txt"))
    #expect(try created.keyFingerprint() == second.keyFingerprint)
    let again = BookmarkService(escrow: nil).newDocument(at: scratch.path("notes.txt"))
    await #expect(throws: DocbmError.self) { try await again.async.createDocument(with: Data("x".utf8)) }
    #expect(try String(contentsOf: scratch.path("notes.txt").url, encoding: .utf8) == "notes")
  }

  @Test("a task cancelled before the first save starts creates nothing")
  func cancelledCreate() async throws {
    let scratch = try Scratch()
    let draft = BookmarkService(escrow: nil).newDocument(at: scratch.path("board.json"))
    let task = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      return try await draft.async.createDocument(with: Data("{}".utf8))
    }
    await #expect(throws: CancellationError.self) { try await task.value }
    #expect(!FileManager.default.fileExists(atPath: scratch.path("board.json").description))
  }

  @Test("saveCopy: data, writer, and Save As with re-anchored bookmarks")
  func saveCopy() async throws {
    let scratch = try Scratch()
    let document = BookmarkService(escrow: nil).documents(
      anchoredOn: try scratch.file("project/board.json", "{}"))
    let cat = try document.makeBookmark(to: try scratch.file("project/cat.png"))
    let copy = try await document.async.saveCopy(to: scratch.path("project/copy.json"), data: Data("{}".utf8))
    #expect(try copy.resolve(cat).path == scratch.path("project/cat.png"))
    let stripped = try await document.async.saveCopy(to: scratch.path("project/stripped.json"), key: .strip) {
      url in try Data("{}".utf8).write(to: url)
    }
    #expect(try stripped.keyFingerprint() == nil)
    _ = try scratch.folder("archive")
    let saved = try await document.async.saveCopy(to: scratch.path("archive/board.json"), bookmarks: [cat]) {
      url, bookmarks in
      try Data("\(bookmarks.count)".utf8).write(to: url)
    }
    guard case .reanchored(let moved) = saved.bookmarks[0].outcome else {
      Issue.record("not re-anchored: \(saved.bookmarks[0].outcome)")
      return
    }
    let resolution = try saved.document.resolve(moved)
    #expect(resolution.path == scratch.path("project/cat.png"))
    #expect(!resolution.isStale)
  }

  @Test("repair puts an escrowed key back; a tree check reports each document")
  func repairAndTreeCheck() async throws {
    let (scratch, escrow, service) = try EscrowScratch.make()
    let path = try scratch.file("docs/board.json", "{}")
    let document = service.documents(anchoredOn: path)
    let cat = try document.makeBookmark(to: try scratch.file("docs/cat.png"))
    try document.replaceDocument(with: Data(cat.text.utf8))
    try Data(cat.text.utf8).write(to: path.url, options: .atomic)  // a save that drops the key
    #expect(try document.keyFingerprint() == nil)

    let checks = Checks()
    let unreadable = try await TreeChecker(checker: DocumentChecker(escrow: escrow)).async.check(
      scratch.path("docs"), found: { checks.add($0) })
    #expect(unreadable.isEmpty)
    #expect(checks.all.first { $0.document == path }?.verdict == .keyLost)
    #expect(checks.all.count == 2)

    let report = try await DocumentRepairer(escrow: escrow).async.repair(path)
    #expect(report.action == .restored, "\(report.message)")
    #expect(try document.resolve(cat).path == scratch.path("docs/cat.png"))
  }
}

/// Checks delivered on a docbm thread, read by the test afterwards.
private final class Checks: Sendable {
  private let lock = ConditionLock<[DocumentCheck]>([])
  func add(_ check: DocumentCheck) { lock.withLock { $0.append(check) } }
  var all: [DocumentCheck] { lock.withLock { $0 } }
}
