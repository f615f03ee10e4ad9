import DocbmTestSupport
import DocumentBookmarks
import DocumentBookmarksTesting
import Foundation
import Testing

/// The ``DocbmError`` `body` throws, or `nil` when it throws none (or another error).
func failure(_ body: () throws -> Void) -> DocbmError? {
  do {
    try body()
    return nil
  } catch {
    return error as? DocbmError
  }
}

/// A document with two targets in a scratch folder, one of them in `images/`.
private struct Board {
  let scratch: Scratch
  let document: AnchoredDocument
  let picture: FilePath
  let notes: FilePath
  let pictureBookmark: Bookmark
  let notesBookmark: Bookmark

  init() throws {
    scratch = try Scratch()
    document = BookmarkService(escrow: nil).documents(anchoredOn: try scratch.file("board.json", "{}"))
    picture = try scratch.file("images/cat.png")
    notes = try scratch.file("notes.txt")
    pictureBookmark = try document.makeBookmark(to: picture)
    notesBookmark = try document.makeBookmark(to: notes)
  }
}

@Suite("Resolution faults")
struct ResolutionFaultTests {
  @Test("each fault fails a resolve with the code, path and recommendation of the real failure")
  func eachFault() throws {
    let board = try Board()
    let cases: [(ResolutionFault, DocbmError.Code, Recommendation)] = [
      (.missing, .missing, .forget), (.volumeUnavailable, .volumeUnavailable, .retryLater),
      (.keyMissing, .keyMissing, .repairKey), (.ioError, .ioError, .retryLater),
    ]
    for (fault, code, recommendation) in cases {
      let error = withResolutionFault(fault) {
        failure { _ = try board.document.resolve(board.pictureBookmark) }
      }
      #expect(error?.code == code)
      #expect(error?.recommendation == recommendation, "\(code)")
      #expect(
        error?.message.hasSuffix("(a fault injected for a test)") == true, "\(String(describing: error))")
      if code == .keyMissing {
        #expect(error?.path == board.document.path)
      } else {
        #expect(error?.path == board.picture)
        #expect(error?.lastKnownPath == board.picture)
      }
      if code == .ioError { #expect(error?.errno == 5) }
    }
    // Outside the closure, the same bookmark resolves.
    #expect(try board.document.resolve(board.pictureBookmark).path == board.picture)
  }

  @Test("a fault reaches the batch resolve, the async calls on docbm's threads, and child tasks")
  func reachesAsyncAndBatch() async throws {
    let board = try Board()
    try await withResolutionFault(.volumeUnavailable) {
      let batch = board.document.resolve([board.pictureBookmark, board.notesBookmark])
      #expect(batch.allSatisfy { (try? $0.get()) == nil })
      await #expect(throws: DocbmError.self) { try await board.document.async.resolve(board.pictureBookmark) }
      let results = try await board.document.async.resolve([board.notesBookmark])
      #expect((try? results[0].get()) == nil)
      async let child = failure { _ = try board.document.resolve(board.notesBookmark) }
      #expect(await child?.code == .volumeUnavailable)
    }
    #expect(try await board.document.async.resolve(board.pictureBookmark).path == board.picture)
  }

  @Test("a fault narrowed to a folder of targets fails only their bookmarks")
  func onlyForTargets() throws {
    let board = try Board()
    let images = board.scratch.path("images")
    let (failed, other) = try withResolutionFault(.missing.onlyForTargets(in: images)) {
      (
        failure { _ = try board.document.resolve(board.pictureBookmark) },
        try board.document.resolve(board.notesBookmark)
      )
    }
    #expect(failed?.code == .missing)
    #expect(other.path == board.notes)
    // A folder whose name merely starts the same does not hold the target.
    let unaffected = try withResolutionFault(.missing.onlyForTargets(in: board.scratch.path("imag"))) {
      try board.document.resolve(board.pictureBookmark)
    }
    #expect(unaffected.path == board.picture)
  }

  @Test("a task-local fault does not reach a detached task; a process-wide one does, for its folder only")
  func processWide() async throws {
    let board = try Board()
    let other = try Board()
    let document = board.document
    let bookmark = board.pictureBookmark
    let detached: @Sendable () async -> DocbmError.Code? = {
      await Task.detached { failure { _ = try document.resolve(bookmark) }?.code }.value
    }
    #expect(await withResolutionFault(.missing) { await detached() } == nil)
    let (reached, elsewhere, second) = try await withProcessWideResolutionFault(
      .missing, in: board.scratch.root
    ) {
      let elsewhere = try other.document.resolve(other.pictureBookmark)
      // Another test's folder may hold a fault at the same time; the same folder may not.
      let second = try withProcessWideResolutionFault(.ioError, in: other.scratch.root) {
        failure { _ = try other.document.resolve(other.pictureBookmark) }
      }
      #expect(throws: SaveFaultScopeError.alreadyActive) {
        try withProcessWideResolutionFault(.ioError, in: board.scratch.path("images")) {}
      }
      return (await detached(), elsewhere, second)
    }
    #expect(reached == .missing)
    #expect(elsewhere.path == other.picture, "a document in another folder is not reached")
    #expect(second?.code == .ioError)
    #expect(await detached() == nil, "the fault ends with the closure")
  }

  @Test("a gate holds a resolve until the test opens it; the resolve then finds its target")
  func gate() async throws {
    let board = try Board()
    let gate = ResolutionGate()
    let (first, later) = try await withResolutionFault(.gate(gate)) {
      async let resolved = board.document.async.resolve(board.pictureBookmark)
      await gate.waitUntilHeld()
      #expect(gate.heldCount == 1)
      gate.open()
      // Once open, later resolves pass.
      return (try await resolved, try board.document.resolve(board.notesBookmark))
    }
    #expect(first.path == board.picture)
    #expect(later.path == board.notes)
    #expect(gate.heldCount == 2)
  }

  @Test("a gate's blocking wait, for tests that are not async")
  func gateBlocking() throws {
    let board = try Board()
    let gate = ResolutionGate()
    let document = board.document
    let bookmark = board.pictureBookmark
    let done = DispatchSemaphore(value: 0)
    try withProcessWideResolutionFault(.gate(gate), in: board.scratch.root) {
      Thread.detachNewThread {
        _ = try? document.resolve(bookmark)
        done.signal()
      }
      gate.waitUntilHeldBlocking()
      gate.open()
      done.wait()
    }
    #expect(gate.heldCount == 1)
  }
}
