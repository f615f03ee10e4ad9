import DocumentBookmarks

/// A `docbm_relink_result`: one bookmark's ``Relink`` in C form.
final class RelinkResultHandle: CHandle {
  /// The `docbm_relink_outcome` value.
  let outcome: UInt32
  /// Where the target was looked for, if anywhere.
  let candidate: CStringCopy?
  /// Why it was not taken, or why it failed.
  let reason: CStringCopy?
  /// The refreshed bookmark's text form, when relinked.
  let refreshed: CStringCopy?
  /// The failure's `docbm_code`, 0 unless it failed.
  let code: UInt32

  /// A result with `outcome`, the target looked for at `candidate`.
  init(_ outcome: Relink.Outcome, candidate: FilePath?) {
    self.candidate = candidate.map { CStringCopy($0.bytes) }
    var refreshed: Bookmark?
    var reason: String?
    var code: UInt32 = 0
    switch outcome {
    case .relinked(let resolution):
      self.outcome = 1
      refreshed = resolution.refreshed
    case .notUnderSource: self.outcome = 2
    case .nothingThere: self.outcome = 3
    case .notTheTarget(let why):
      self.outcome = 4
      reason = why
    case .failed(let error):
      self.outcome = 5
      reason = error.message
      code = error.code.cValue
    }
    self.refreshed = refreshed.map { CStringCopy($0.text) }
    self.reason = reason.map { CStringCopy($0) }
    self.code = code
  }

  deinit {
    candidate?.release()
    reason?.release()
    refreshed?.release()
  }
}
