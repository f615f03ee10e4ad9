import DocbmTestSupport
import DocumentBookmarks
import DocumentBookmarksTesting
import Foundation
import Glibc
import Testing

@Suite("The lint under Swift Testing")
struct SwiftTestingLintTests {
  let new = Data("{}".utf8)

  @Test("a safe save passes and returns its report")
  func passes() throws {
    let report = expectSafeSave { url in
      try BookmarkService(escrow: nil).documents(anchoredOn: url).replaceDocument(with: new)
    }
    #expect(report?.isSafe == true)
  }

  @Test("an atomic save really fails the test (an issue is recorded)")
  func failsAtomicSave() {
    withKnownIssue {
      expectSafeSave { url in try new.write(to: url, options: .atomic) }
    } matching: { issue in
      let text = issue.comments.map(\.rawValue).joined()
      return text.contains("keyLost") && text.contains("replaceDocument")
        && issue.sourceLocation?.fileName == "SwiftTestingLintTests.swift"
    }
  }

  @Test("the XCTest spelling also records a Swift Testing issue inside a Swift Testing test")
  func xctSpellingInSwiftTesting() {
    withKnownIssue {
      XCTAssertSafeSave { url in try "{}".write(to: url, atomically: true, encoding: .utf8) }
    }
  }

  @Test("async save functions are linted too")
  func asyncSave() async {
    await withKnownIssue {
      await expectSafeSave { url async throws in
        await Task.yield()
        try new.write(to: url, options: .atomic)
      }
    }
    let report = await expectSafeSave { url async throws in
      try BookmarkService(escrow: nil).documents(anchoredOn: url).replaceDocument(with: new)
    }
    #expect(report?.isSafe == true)
  }

  // The time limit catches a hang (a FIFO opened for reading waits for a writer for ever),
  // not slowness: in the whole suite on two cores this test can wait minutes for a thread
  // before its first line runs, and the limit counts that wait too.
  @Test(
    "a save that leaves a FIFO at the document's path is reported, not waited on", .timeLimit(.minutes(10)))
  func fifoLeft() throws {
    let report = try SaveProbe.lint { url in
      try FileManager.default.removeItem(at: url)
      guard mkfifo(url.path, 0o600) == 0 else { throw CocoaError(.fileWriteUnknown) }
    }
    #expect(report.findings.map(\.kind) == [.documentNotAFile])
    #expect(report.findings.first?.message.contains("FIFO (named pipe)") == true)
    #expect(!report.isSafe)
  }

  @Test("through a symbolic link, a save that replaces the link is caught")
  func throughLink() {
    withKnownIssue {
      expectSafeSave(options: ScratchDocument.Options(throughSymbolicLink: true)) { url in
        try new.write(to: url, options: .atomic)
      }
    } matching: { issue in
      issue.comments.map(\.rawValue).joined().contains("symbolicLinkReplaced")
    }
  }
}

@Suite("Fault injection")
struct FaultInjectionTests {
  @Test("the next save fails at the chosen step, the document is intact, the save after succeeds")
  func nextSaveFails() throws {
    let scratch = try Scratch()
    let path = try scratch.file("doc.json", "old")
    let document = BookmarkService(escrow: nil).documents(anchoredOn: path)
    _ = try document.makeBookmark(to: try scratch.file("t"))
    for (fault, code, step) in [
      (SaveFault.diskFull(), DocbmError.Code.noSpace, SaveStep.write),
      (.ioError(), .ioError, .syncFile),
      (.failing(at: .copyAttributes, errno: 1), .immutable, .copyAttributes),
    ] {
      try withSaveFault(fault) {
        let error = #expect(throws: DocbmError.self) { try document.replaceDocument(with: Data("new".utf8)) }
        #expect(error?.code == code)
        #expect(error?.step == step)
        #expect(try String(contentsOfFile: path.description, encoding: .utf8) == "old")
        try document.replaceDocument(with: Data("old".utf8))
      }
    }
    #expect(try document.keyFingerprint() != nil)
  }

  @Test("a crash before the rename leaves the new version beside the old document")
  func crashBeforeRename() throws {
    let scratch = try Scratch()
    let path = try scratch.file("doc.json", "old")
    let document = BookmarkService(escrow: nil).documents(anchoredOn: path)
    let leftovers = {
      try FileManager.default.contentsOfDirectory(atPath: scratch.root.description)
        .filter { $0.contains(".docbm-save-") }
    }
    let error = withSaveFault(.crashBeforeRename) {
      let error = #expect(throws: DocbmError.self) { try document.replaceDocument(with: Data("new".utf8)) }
      #expect((try? leftovers().count) == 1, "the new version is left beside the document inside the scope")
      return error
    }
    #expect(error?.step == .swap)
    #expect(try String(contentsOfFile: path.description, encoding: .utf8) == "old")
    #expect(try leftovers().isEmpty, "the testing product removes what its own fault left")
  }

}

/// Process-wide faults are narrowed to each test's own folder, so that they do not conflict
/// with those of tests running at the same time.
@Suite("Process-wide faults")
struct ProcessWideFaultTests {
  @Test(
    "a process-wide fault reaches saves on other threads and detached tasks; a task-local one does not",
    arguments: ["dispatch", "thread", "detached"])
  func processWide(runner: String) async throws {
    let scratch = try Scratch()
    let path = try scratch.file("doc.json", "old")
    let document = BookmarkService(escrow: nil).documents(anchoredOn: path)
    _ = try document.makeBookmark(to: try scratch.file("t"))
    let elsewhere: @Sendable () async -> DocbmError.Code? = {
      await withCheckedContinuation { (continuation: CheckedContinuation<DocbmError.Code?, Never>) in
        let save: @Sendable () -> Void = {
          do {
            try document.replaceDocument(with: Data("new".utf8))
            continuation.resume(returning: nil)
          } catch {
            continuation.resume(returning: (error as? DocbmError)?.code)
          }
        }
        switch runner {
        case "dispatch": DispatchQueue.global().async(execute: save)
        case "thread": Thread.detachNewThread(save)
        default: Task.detached { save() }
        }
      }
    }
    let escaped = await withSaveFault(.diskFull()) { await elsewhere() }
    #expect(escaped == nil, "a task-local fault does not reach a save elsewhere")
    let reached = try await withProcessWideSaveFault(.diskFull(), in: scratch.root) { await elsewhere() }
    #expect(reached == .noSpace)
    #expect(await elsewhere() == nil, "the fault ends with the closure")
  }

  @Test("process-wide faults for the same or nested folders are refused; for separate folders, both hold")
  func overlappingProcessWide() throws {
    let scratch = try Scratch()
    let first = try scratch.folder("first")
    let second = try scratch.folder("second")
    try withProcessWideSaveFault(.diskFull(), in: first) {
      #expect(throws: SaveFaultScopeError.alreadyActive) {
        try withProcessWideSaveFault(.ioError(), in: first) {}
      }
      #expect(throws: SaveFaultScopeError.alreadyActive) {
        try withProcessWideSaveFault(.ioError(), in: first.appending("inner")) {}
      }
      #expect(throws: SaveFaultScopeError.alreadyActive) {
        try withProcessWideSaveFault(.ioError(), in: scratch.root) {}
      }
      // A sibling whose name starts with the first folder's is not inside it.
      let sibling = try scratch.folder("first-sibling")
      try withProcessWideSaveFault(.ioError(), in: sibling) {}
      try withProcessWideSaveFault(.ioError(at: .write), in: second) {
        let one = BookmarkService(escrow: nil).documents(anchoredOn: try scratch.file("first/doc", "old"))
        let two = BookmarkService(escrow: nil).documents(anchoredOn: try scratch.file("second/doc", "old"))
        #expect(failure { try one.replaceDocument(with: Data("new".utf8)) }?.code == .noSpace)
        #expect(failure { try two.replaceDocument(with: Data("new".utf8)) }?.code == .ioError)
      }
    }
  }

  @Test("faults apply to async code on the same task")
  func asyncScope() async throws {
    let scratch = try Scratch()
    let path = try scratch.file("doc.json", "old")
    let document = BookmarkService(escrow: nil).documents(anchoredOn: path)
    await withSaveFault(.diskFull()) {
      await Task.yield()
      #expect(throws: DocbmError.self) { try document.replaceDocument(with: Data("new".utf8)) }
    }
  }

  @Test("a task's fault reaches the async API's save, which runs on a docbm thread, and ends with it")
  func asyncAPI() async throws {
    let scratch = try Scratch()
    let path = try scratch.file("doc.json", "old")
    let document = BookmarkService(escrow: nil).documents(anchoredOn: path)
    let failed = await withSaveFault(.diskFull()) { () async -> DocbmError.Code? in
      do {
        try await document.async.replaceDocument(with: Data("new".utf8))
        return nil
      } catch {
        return (error as? DocbmError)?.code
      }
    }
    #expect(failed == .noSpace)
    #expect(try String(contentsOfFile: path.description, encoding: .utf8) == "old")
    try await document.async.replaceDocument(with: Data("newer".utf8))
    #expect(try String(contentsOfFile: path.description, encoding: .utf8) == "newer")
  }
}

@Suite("The lint's scratch document and what it tests")
struct LintLocationTests {
  let single = ScratchDocument.Options(hardLink: false)

  @Test(
    "by default the scratch document is made in the test's working folder, not /tmp, and the report says where"
  )
  func workingFolderByDefault() throws {
    let report = try #require(expectSafeSave(options: single) { url in try replaceWithDocbm(url) })
    let here = try #require(realpath(FileManager.default.currentDirectoryPath, nil))
    defer { free(here) }
    #expect(report.location?.description == String(cString: here))
    #expect(report.isInTemporaryFolder == ScratchDocument.isTemporaryFolder(FilePath(String(cString: here))))
  }

  @Test("a folder can be chosen; under /tmp the report says the result may not hold for a user's folder")
  func chosenFolder() throws {
    let scratch = try Scratch(in: "/tmp")
    let report = try #require(
      expectSafeSave(options: single, in: scratch.root) { url in try replaceWithDocbm(url) })
    #expect(report.location == scratch.root)
    #expect(report.isInTemporaryFolder)
    #expect(report.summary.contains("under /tmp or $TMPDIR"))
  }

  @Test("a save function that does not write the document fails the lint: nothing was tested")
  func saveThatDoesNothing() {
    withKnownIssue {
      expectSafeSave { _ in }
    } matching: { issue in
      issue.comments.map(\.rawValue).joined().contains("did not write the document")
    }
  }

  private func replaceWithDocbm(_ url: URL) throws {
    let document = BookmarkService(escrow: nil).documents(anchoredOn: FilePath(url.path))
    try document.replaceDocument(with: Data("{\"new\": true}".utf8))
  }
}
