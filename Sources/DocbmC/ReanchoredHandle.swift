import DocumentBookmarks

/// A `docbm_reanchored`: one ``ReanchoredBookmark`` in C form.
final class ReanchoredHandle: CHandle {
  /// The `docbm_reanchor_outcome` value.
  let outcome: UInt32
  /// The bookmark's text form for the copy, when re-anchored.
  let bookmark: CStringCopy?
  /// The paths of an ambiguous bookmark's candidates.
  let candidates: [CStringCopy]
  /// The failure's `docbm_code`, 0 unless it failed.
  let code: UInt32
  /// The failure's message, when it failed.
  let message: CStringCopy?

  init(_ outcome: ReanchoredBookmark.Outcome) {
    var bookmark: Bookmark?
    var candidates: [Resolution.Candidate] = []
    var failure: DocbmError?
    switch outcome {
    case .reanchored(let reanchored):
      self.outcome = 1
      bookmark = reanchored
    case .ambiguous(let found):
      self.outcome = 2
      candidates = found
    case .failed(let error):
      self.outcome = 3
      failure = error
    }
    self.bookmark = bookmark.map { CStringCopy($0.text) }
    self.candidates = candidates.map { CStringCopy($0.path.bytes) }
    code = failure?.code.cValue ?? 0
    message = failure.map { CStringCopy($0.message) }
  }

  deinit {
    bookmark?.release()
    candidates.forEach { $0.release() }
    message?.release()
  }
}
