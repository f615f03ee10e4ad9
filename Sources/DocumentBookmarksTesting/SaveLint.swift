public import DocumentBookmarks
public import FoundationEssentials

/// Fails the current test when `save` does not keep what a safe save keeps.
///
/// The lint makes a scratch document (a key, a bookmark inside it pointing at a sibling
/// file, two other user attributes and mode 0640; with `options.hardLink`, a second hard
/// link, and with `options.throughSymbolicLink`, a symbolic link to save through), calls
/// `save` with its
/// URL, and reports each finding (key lost, document missing, attributes lost, mode or
/// owner changed, hard link split, symbolic link replaced, temporary files left, bookmark
/// no longer resolving) with what happened and how to fix it, at the caller's line.
///
/// The scratch document is made in a hidden folder (`.docbm-probe-XXXXXX`) in `location`,
/// by default the test's working folder, and removed afterwards. Not in `/tmp`: saves that
/// depend on where a file is (editors skip their backup under `/tmp` and `$TMPDIR` and
/// write in place) would pass there and lose the key in a user's folder. The report's
/// `location` says where it was, and a test run from a temporary folder gets a note saying
/// the result may not hold for a user's folder. A save that does not write the document
/// at all fails the lint too: nothing was tested.
///
/// Works in Swift Testing tests (`Issue.record`) and in XCTest methods (`XCTFail`).
///
/// ```swift
/// @Test func savingKeepsBookmarks() {
///   expectSafeSave { url in try MyDocument.sample.save(to: url) }
/// }
/// ```
///
/// - Returns: the report, for further checks.
@discardableResult
public func expectSafeSave(
  options: ScratchDocument.Options = ScratchDocument.Options(), in location: FilePath? = nil,
  fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
  column: UInt = #column, _ save: (URL) throws -> Void
) -> SaveProbeReport? {
  let outcome = Result { () throws(DocbmError) in try SaveProbe.lint(options: options, in: location, save) }
  return reportOutcome(outcome, fileID: fileID, filePath: filePath, line: line, column: column)
}

/// Fails the current test when the async `save` does not keep what a safe save keeps; see
/// `expectSafeSave`.
@discardableResult
public func expectSafeSave(
  options: ScratchDocument.Options = ScratchDocument.Options(), in location: FilePath? = nil,
  fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
  column: UInt = #column, _ save: (URL) async throws -> Void
) async -> SaveProbeReport? {
  let outcome: Result<SaveProbeReport, DocbmError>
  do throws(DocbmError) {
    outcome = .success(try await SaveProbe.lint(options: options, in: location, save))
  } catch {
    outcome = .failure(error)
  }
  return reportOutcome(outcome, fileID: fileID, filePath: filePath, line: line, column: column)
}

/// The XCTest spelling of `expectSafeSave`.
@discardableResult
public func XCTAssertSafeSave(
  options: ScratchDocument.Options = ScratchDocument.Options(), in location: FilePath? = nil,
  file: StaticString = #filePath, line: UInt = #line, _ save: (URL) throws -> Void
) -> SaveProbeReport? {
  expectSafeSave(options: options, in: location, fileID: (file), filePath: file, line: line, column: 1, save)
}

/// The XCTest spelling of the async `expectSafeSave`.
@discardableResult
public func XCTAssertSafeSave(
  options: ScratchDocument.Options = ScratchDocument.Options(), in location: FilePath? = nil,
  file: StaticString = #filePath, line: UInt = #line, _ save: (URL) async throws -> Void
) async -> SaveProbeReport? {
  await expectSafeSave(
    options: options, in: location, fileID: (file), filePath: file, line: line, column: 1, save)
}

/// Reports the findings, or the lint's own failure, at the caller's location.
private func reportOutcome(
  _ outcome: Result<SaveProbeReport, DocbmError>, fileID: StaticString, filePath: StaticString, line: UInt,
  column: UInt
) -> SaveProbeReport? {
  switch outcome {
  case .success(let report):
    switch report.verdict {
    case .kept:
      break
    case .notSaved:
      IssueReporter.fail(
        "The save did not write the document, so nothing was tested:\n\(report.summary)", fileID: fileID,
        filePath: filePath, line: line, column: column)
    case .lost, .keptLeavingFiles:
      IssueReporter.fail(
        "The save is not safe for documents with bookmarks:\n\(report.summary)", fileID: fileID,
        filePath: filePath, line: line, column: column)
    }
    return report
  case .failure(let error):
    IssueReporter.fail(
      "the save-safety lint could not make its scratch document: \(error)", fileID: fileID,
      filePath: filePath, line: line, column: column)
    return nil
  }
}
