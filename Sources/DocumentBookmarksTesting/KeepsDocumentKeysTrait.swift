import DocumentBookmarks
public import Testing

/// A Swift Testing trait that checks that every document the test made bookmarks on or
/// resolved bookmarks against keeps the key it had then, for the whole test.
///
/// From the moment a document goes through docbm, the trait follows it with inotify: a
/// save that replaces it with a file without the key, or that strips the key in place, is
/// caught when the file leaves the document's path or when the test ends, even when the
/// test deletes its files at the end (the usual `defer` cleanup): the trait holds the file
/// open and reads the key through it. It checks keys, not the rest of what a safe save
/// keeps; for that, lint the save function itself with `expectSafeSave`. A file renamed
/// over a document and deleted before the trait could open it (microseconds) is reported
/// as not checkable, unless `replaceDocument` wrote it.
/// What it catches is the ordinary regression: a test that anchors bookmarks, calls the
/// app's save, and never notices that the save dropped the key.
///
/// ```swift
/// @Test(.keepsDocumentKeys) func editingAndSaving() throws {
///   let document = BookmarkService().documents(anchoredOn: url)
///   _ = try document.makeBookmark(to: imageURL)
///   try app.save(to: url)          // a save that loses the key fails this test
/// }
/// ```
public struct KeepsDocumentKeysTrait: TestTrait, SuiteTrait, TestScoping {
  /// Applies to every test of a suite it is attached to.
  public var isRecursive: Bool { true }

  public func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    // Issues point at the test the trait is attached to.
    try await recordingLostKeys(function) { message in
      Issue.record(Comment(rawValue: message), sourceLocation: test.sourceLocation)
    }
  }
}

extension Trait where Self == KeepsDocumentKeysTrait {
  /// Checks after the test that the documents it anchored bookmarks on still have their keys.
  public static var keepsDocumentKeys: Self { KeepsDocumentKeysTrait() }
}

/// Runs `body`, then records an issue for every document that `body` made bookmarks on or
/// resolved bookmarks against and that no longer carries the same key.
public func expectDocumentKeysKept(
  fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
  column: UInt = #column, _ body: () async throws -> Void
) async rethrows {
  try await recordingLostKeys(body) { message in
    IssueReporter.fail(message, fileID: fileID, filePath: filePath, line: line, column: column)
  }
}

/// Runs `body` with a recorder installed, then calls `fail` for each document it saw that
/// no longer carries the key it had.
private func recordingLostKeys(
  _ body: () async throws -> Void, fail: (String) -> Void
) async rethrows {
  let watcher = DocumentKeyWatcher()
  let recorder = AnchoredDocumentRecorder(onNote: { path, fingerprint in watcher.follow(path, fingerprint) })
  let watched: [FilePath: String]
  do {
    try await AnchoredDocumentRecorder.$current.withValue(recorder) {
      try await body()
    }
    watched = watcher.finish()
  } catch {
    _ = watcher.finish()
    throw error
  }
  for (_, message) in watched.sorted(by: { $0.key.description < $1.key.description }) {
    fail(message)
  }
  let reported = Set(watched.keys)
  for (path, fingerprint) in recorder.documents.sorted(by: { $0.key.description < $1.key.description })
  where !reported.contains(path.absolute.lexicallyNormalized) {
    let now = Result { () throws(DocbmError) in
      try BookmarkService(escrow: nil).documents(anchoredOn: path).keyFingerprint()
    }
    switch now {
    case .success(let current?) where current == fingerprint:
      continue
    case .success(let current?):
      fail("\(path) carries key \(current) at the end of the test, not \(fingerprint)")
    case .success(nil):
      fail(
        "\(path) lost its key (\(fingerprint)) during the test: a save dropped user.docbm.key; save with replaceDocument"
      )
    case .failure(let error) where error.code == .notFound:
      continue  // removed by the test's own cleanup; a vanished document is the lint's to find
    case .failure(let error):
      fail("\(path) cannot be checked at the end of the test: \(error)")
    }
  }
}
