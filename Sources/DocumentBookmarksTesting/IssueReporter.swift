import Testing
import XCTest

/// Reports a failure to whichever framework runs the current test.
///
/// On Linux with Swift 6.3, a failure reported to the other framework is silently dropped
/// (XCTFail inside a Swift Testing test, or Issue.record inside an XCTest method), so the
/// framework is chosen at run time: Swift Testing when `Test.current` is set, XCTest
/// otherwise. `Test.current` is task-local, so report from the test's own task.
enum IssueReporter {
  static func fail(
    _ message: String, fileID: StaticString, filePath: StaticString, line: UInt, column: UInt
  ) {
    if Test.current != nil {
      Issue.record(
        Comment(rawValue: message),
        sourceLocation: SourceLocation(
          fileID: String(describing: fileID), filePath: String(describing: filePath), line: Int(line),
          column: Int(column)))
    } else {
      XCTFail(message, file: filePath, line: line)
    }
  }
}
