import DocumentBookmarks

/// A `docbm_error`: a ``DocbmError`` (or libdocbm's own invalid-argument error) with its
/// strings in C form, made once so that the accessors can return them.
final class ErrorHandle: CHandle {
  /// The `docbm_code` value.
  let code: UInt32
  /// The `docbm_recommendation` value.
  let recommendation: UInt32
  /// The error in one line.
  let message: CStringCopy
  /// The path it concerns, if any.
  let path: CStringCopy?
  /// The failed system call's errno, or 0.
  let errno: Int32

  init(_ error: DocbmError) {
    code = error.code.cValue
    recommendation = error.recommendation.cValue
    message = CStringCopy(error.description)
    path = error.path.map { CStringCopy($0.bytes) }
    errno = error.errno ?? 0
  }

  /// An invalid-argument error: `argument` of `function` was NULL or empty.
  convenience init(invalidArgument argument: String, of function: String) {
    self.init(invalid: "\(function) needs \(argument), and it was NULL or empty")
  }

  /// `DOCBM_INVALID_ARGUMENT`, saying what was wrong with the argument.
  init(invalid sentence: String) {
    code = DocbmError.Code.invalidArgumentCValue
    recommendation = 0  // DOCBM_RECOMMEND_NONE: the call itself was wrong
    message = CStringCopy("invalidArgument: \(sentence)")
    path = nil
    errno = 0
  }

  deinit {
    message.release()
    path?.release()
  }

  /// Stores a new error made by `make` in `*out`, when the caller asked for errors.
  static func report(_ make: @autoclosure () -> ErrorHandle, to out: UnsafeMutablePointer<OpaquePointer?>?) {
    out?.pointee = make().retainedPointer()
  }
}
