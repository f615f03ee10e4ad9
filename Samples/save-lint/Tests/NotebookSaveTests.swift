import DocumentBookmarksTesting
import Foundation
import Testing

@testable import SaveLintSample

@Suite("The notebook's saves")
struct NotebookSaveTests {
  let notebook = Notebook(text: "hello")

  @Test("the right save keeps the key and everything else")
  func rightSave() {
    expectSafeSave { url in try notebook.saveRight(to: url) }
  }

  @Test("the wrong save is caught by the lint")
  func wrongSave() {
    // In an app's own suite this would simply be `expectSafeSave { … saveWrong … }`, and
    // the test would fail. Here the failure is the point, so it is expected.
    withKnownIssue {
      expectSafeSave { url in try notebook.saveWrong(to: url) }
    } matching: { issue in
      issue.comments.map(\.rawValue).joined().contains("keyLost")
    }
  }
}
