import DocbmTestSupport
import DocumentBookmarks
import DocumentBookmarksTesting
import Foundation
import Testing

@Suite("The lint under Swift Testing")
struct SwiftTestingLintTests {
  let new = Data("{}".utf8)

  @Test("a safe save passes and returns its report")
  func passes() throws {
    let report = expectSafeSave { url in
      try BookmarkService().documents(anchoredOn: url).replaceDocument(with: new)
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
      try BookmarkService().documents(anchoredOn: url).replaceDocument(with: new)
    }
    #expect(report?.isSafe == true)
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
    let document = BookmarkService().documents(anchoredOn: path)
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
    let document = BookmarkService().documents(anchoredOn: path)
    let error = withSaveFault(.crashBeforeRename) {
      #expect(throws: DocbmError.self) { try document.replaceDocument(with: Data("new".utf8)) }
    }
    #expect(error?.step == .swap)
    #expect(try String(contentsOfFile: path.description, encoding: .utf8) == "old")
    let left = try FileManager.default.contentsOfDirectory(atPath: scratch.root.description)
      .filter { $0.contains(".docbm-save-") }
    #expect(left.count == 1)
  }

  @Test("faults apply to async code on the same task")
  func asyncScope() async throws {
    let scratch = try Scratch()
    let path = try scratch.file("doc.json", "old")
    let document = BookmarkService().documents(anchoredOn: path)
    await withSaveFault(.diskFull()) {
      await Task.yield()
      #expect(throws: DocbmError.self) { try document.replaceDocument(with: Data("new".utf8)) }
    }
  }
}
