import DocbmSystem
import DocbmTestSupport
import Foundation
import Glibc
import Testing

@testable import DocumentBookmarks

@Suite("Resolution of many bookmarks at once")
struct BatchResolutionTests {
  let scratch: Scratch
  let documentPath: FilePath
  let document: AnchoredDocument

  init() throws {
    scratch = try Scratch()
    // Two folders deep, so that the search area (two folders above the targets' folder)
    // stays inside the scratch folder.
    documentPath = try scratch.file("a/b/project/board.json", "{}")
    document = BookmarkService(escrow: nil).documents(anchoredOn: documentPath)
  }

  @Test("a board of unmoved, renamed, moved, deleted, tampered and foreign bookmarks: each as alone")
  func mixedBoard() throws {
    var bookmarks: [Bookmark] = []
    var expected: [String] = []
    for index in 0..<10 {
      bookmarks.append(try document.makeBookmark(to: try scratch.file("a/b/project/images/still\(index)")))
      expected.append("exact")
    }
    for index in 0..<5 {
      let target = try scratch.file("a/b/project/images/renamed\(index)")
      bookmarks.append(try document.makeBookmark(to: target))
      try scratch.move(target, scratch.path("a/b/project/images/renamed\(index).old"))
      expected.append("targetMoved")
    }
    for index in 0..<5 {
      let target = try scratch.file("a/b/project/images/moved\(index)")
      bookmarks.append(try document.makeBookmark(to: target))
      try scratch.move(target, scratch.path("a/b/project/archive/moved\(index)"))
      expected.append("targetMoved")
    }
    for index in 0..<3 {
      let target = try scratch.file("a/b/project/images/deleted\(index)")
      bookmarks.append(try document.makeBookmark(to: target))
      try scratch.remove(target)
      expected.append("missing")
    }
    var tampered = bookmarks[0].bytes
    tampered[tampered.count / 2] ^= 1
    bookmarks.append(try Bookmark(bytes: tampered))
    expected.append("tampered")
    let other = BookmarkService(escrow: nil).documents(
      anchoredOn: try scratch.file("a/b/project/other.json", "{}"))
    bookmarks.append(try other.makeBookmark(to: scratch.path("a/b/project/images/still0")))
    expected.append("keyMismatch")

    let results = document.resolve(bookmarks)
    #expect(results.count == bookmarks.count)
    for (index, (bookmark, result)) in zip(bookmarks, results).enumerated() {
      let single = Result { () throws(DocbmError) in try document.resolve(bookmark) }
      #expect(Agreement(result) == Agreement(single), "bookmark \(index)")
      let outcome: String
      switch result {
      case .success(let resolution): outcome = resolution.staleReasons.first?.rawValue ?? "exact"
      case .failure(let error): outcome = error.code.rawValue
      }
      #expect(outcome == expected[index], "bookmark \(index)")
    }
    // The moved ones come with refreshed bookmarks that resolve exactly.
    for case .success(let resolution) in results where resolution.isStale {
      let refreshed = try #require(resolution.refreshed)
      #expect(try document.resolve(refreshed).isStale == false)
      #expect(try document.resolve(refreshed).path == resolution.path)
    }
  }

  @Test("the searches of one call list each folder at most once")
  func foldersListedOnce() throws {
    for index in 0..<30 { _ = try scratch.file("a/b/project/images/filler\(index)") }
    var bookmarks: [Bookmark] = []
    for index in 0..<20 {
      let target = try scratch.file("a/b/project/images/moved\(index)")
      bookmarks.append(try document.makeBookmark(to: target))
      try scratch.move(target, scratch.path("a/b/project/archive/deep/moved\(index)"))
    }
    let gone = try scratch.file("a/b/project/images/gone")
    let missing = try document.makeBookmark(to: gone)
    try scratch.remove(gone)
    // One missing target's search lists every folder of the area.
    let wholeArea = try reads { #expect(throws: DocbmError.self) { try document.resolve(missing) } }
    var results: [Result<Resolution, DocbmError>] = []
    let batch = try reads { results = document.resolve(bookmarks) }
    for result in results { #expect(try result.get().staleReasons == [.targetMoved]) }
    let one = try reads { for bookmark in bookmarks { _ = try document.resolve(bookmark) } }
    #expect(batch <= wholeArea, "the batch read \(batch) entries, the whole area has \(wholeArea)")
    #expect(one > 5 * batch, "20 single resolves read \(one) entries, the batch \(batch)")
  }

  @Test("a target not found says how far the search looked, and is missing only after every folder")
  func budgetSaid() throws {
    let target = try scratch.file("a/b/project/images/cat.png")
    let bookmark = try document.makeBookmark(to: target)
    for index in 0..<50 { _ = try scratch.file("a/b/project/images/filler\(index).png") }
    try scratch.remove(target)
    let tight = BookmarkService(
      searchBudget: SearchBudget(maximumEntries: 10, maximumDepth: 4, ascent: 2, reach: .nearby), escrow: nil
    )
    .documents(anchoredOn: documentPath)
    for result in tight.resolve([bookmark]) {
      #expect(throws: DocbmError.self) { try result.get() }
      #expect(result.failure?.code == .notFoundNearby)
      #expect(result.failure?.message.contains("in the 10 folder entries the nearby search read") == true)
    }
    let nearby = BookmarkService(searchBudget: .nearby, escrow: nil).documents(anchoredOn: documentPath)
    let near = #expect(throws: DocbmError.self) { try nearby.resolve(bookmark) }
    #expect(near?.code == .notFoundNearby)
    #expect(near?.message.contains("in the folders near its old place") == true)
    // No time at all for the walk: it stops before its first folder.
    let hurried = BookmarkService(searchBudget: SearchBudget(filesystemTimeLimit: .zero), escrow: nil)
      .documents(anchoredOn: documentPath)
    let cut = #expect(throws: DocbmError.self) { try hurried.resolve(bookmark) }
    #expect(cut?.code == .notFoundNearby)
    #expect(cut?.message.contains("before the search's time limit") == true)
    let error = #expect(throws: DocbmError.self) { try document.resolve(bookmark) }
    #expect(error?.code == .missing)
    #expect(error?.recommendation == .forget)
    #expect(error?.message.contains("in any folder of its filesystem") == true)
  }

  @Test("a document without a key fails every bookmark with keyMissing; an empty batch reads nothing")
  func keyMissing() throws {
    let bookmark = try document.makeBookmark(to: try scratch.file("a/b/project/images/cat.png"))
    try scratch.replaceAtomically(documentPath, with: "{}")  // a plain save drops the key
    let results = document.resolve([bookmark, bookmark])
    #expect(results.map { $0.failure?.code } == [.keyMissing, .keyMissing])
    #expect(document.resolve([]).isEmpty)
  }

  @Test("the async form gives the synchronous results")
  func asyncForm() async throws {
    let target = try scratch.file("a/b/project/images/cat.png")
    let bookmark = try document.makeBookmark(to: target)
    try scratch.move(target, scratch.path("a/b/project/images/kitten.png"))
    let results = try await document.async.resolve([bookmark])
    #expect(results.map(Agreement.init) == document.resolve([bookmark]).map(Agreement.init))
    #expect(try results[0].get().path == scratch.path("a/b/project/images/kitten.png"))
  }

  /// How many folder entries `body` reads.
  private func reads(_ body: () throws -> Void) throws -> Int {
    let counter = DirectoryStream.ReadCounter()
    try DirectoryStream.$readCounter.withValue(counter) { try body() }
    return counter.count
  }
}

extension Result {
  fileprivate var failure: Failure? {
    if case .failure(let failure) = self { return failure }
    return nil
  }
}
