/// A C callback's non-zero return, as the error its Swift closure throws: a writer's, which
/// a save reports as `writerFailed`, or a linted save's, which the lint reports as
/// `saveFailed`.
struct CallbackFailure: Error, CustomStringConvertible {
  /// What the callback is, for the message ("the writer").
  let callback: String
  /// What it returned.
  let status: Int32

  var description: String { "\(callback) returned \(status)" }
}
