import DocumentBookmarks
import DocumentBookmarksTesting
import Foundation
import XCTest

/// The lint inside XCTest: failures must reach XCTest (on Linux a Swift Testing issue
/// recorded here would be dropped). Failures are captured by overriding `recordFailure`, so
/// that the test can assert they happened, at the caller's line.
final class XCTestLintTests: XCTestCase {
  private var captured: [(description: String, file: String, line: Int)] = []
  private var capturing = false

  override func recordFailure(
    withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool
  ) {
    if capturing {
      captured.append((description, filePath, lineNumber))
    } else {
      super.recordFailure(
        withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
    }
  }

  func testAtomicSaveFailsTheTestAtTheCallersLine() {
    capturing = true
    let line = #line + 1
    XCTAssertSafeSave { url in try Data("{}".utf8).write(to: url, options: .atomic) }
    capturing = false
    XCTAssertEqual(captured.count, 1)
    XCTAssertEqual(captured.first?.line, line)
    XCTAssertEqual(
      captured.first.map { URL(fileURLWithPath: $0.file).lastPathComponent }, "XCTestLintTests.swift")
    XCTAssertTrue(captured.first?.description.contains("keyLost") == true)
  }

  func testExpectSpellingReportsToXCTestToo() {
    capturing = true
    expectSafeSave { url in try "{}".write(to: url, atomically: true, encoding: .utf8) }
    capturing = false
    XCTAssertEqual(captured.count, 1)
  }

  func testSafeSavePasses() {
    capturing = true
    let report = XCTAssertSafeSave { url in
      try BookmarkService(escrow: nil).documents(anchoredOn: url).replaceDocument(with: Data("{}".utf8))
    }
    capturing = false
    XCTAssertTrue(captured.isEmpty, "\(captured)")
    XCTAssertEqual(report?.isSafe, true)
  }
}
