import DocumentBookmarks

/// A `docbm_error`: a ``DocbmError`` (or libdocbm's own invalid-argument error) with its
/// strings in C form, made once so that the accessors can return them.
final class ErrorHandle: CHandle {
  /// The `docbm_code` value.
  let code: UInt32
  /// The `docbm_recommendation` value.
  let recommendation: UInt32
  /// The sentence that says what failed (``DocbmError/message``).
  let message: CStringCopy
  /// The error in one line: code, message, step and system call
  /// (``DocbmError/description``).
  let description: CStringCopy
  /// The path it concerns, if any.
  let path: CStringCopy?
  /// Where the document or target was last known to be, if that is not ``path``.
  let lastKnownPath: CStringCopy?
  /// The failed system call's errno, or 0.
  let errno: Int32
  /// The failed system call's name, if one failed.
  let systemCall: CStringCopy?
  /// The step of a save that failed, by name.
  let step: CStringCopy?

  init(_ error: DocbmError) {
    code = error.code.cValue
    recommendation = error.recommendation.cValue
    message = CStringCopy(error.message)
    description = CStringCopy(error.description)
    path = error.path.map { CStringCopy($0.bytes) }
    lastKnownPath = error.lastKnownPath.map { CStringCopy($0.bytes) }
    errno = error.errno ?? 0
    systemCall = error.systemCall.map { CStringCopy($0) }
    step = error.step.map { CStringCopy($0.rawValue) }
  }

  /// An invalid-argument error: `argument` of `function` was NULL or empty.
  convenience init(invalidArgument argument: String, of function: String) {
    self.init(invalid: "\(function) needs \(argument), and it was NULL or empty")
  }

  /// `DOCBM_INVALID_ARGUMENT`, saying what was wrong with the argument.
  init(invalid sentence: String) {
    code = DocbmError.Code.invalidArgumentCValue
    recommendation = 0  // DOCBM_RECOMMEND_NONE: the call itself was wrong
    message = CStringCopy(sentence)
    description = CStringCopy("invalidArgument: \(sentence)")
    path = nil
    lastKnownPath = nil
    errno = 0
    systemCall = nil
    step = nil
  }

  /// One of libdocbm's store codes (`DOCBM_STORE_*` and the like, ``StoreFailureCode``), for a store's own
  /// failure: no recommendation, since the message says what is wrong with the store.
  init(store code: UInt32, name: String, message sentence: String, path: FilePath?) {
    self.code = code
    recommendation = 0  // DOCBM_RECOMMEND_NONE
    message = CStringCopy(sentence)
    description = CStringCopy("\(name): \(sentence)")
    self.path = path.map { CStringCopy($0.bytes) }
    lastKnownPath = nil
    errno = 0
    systemCall = nil
    step = nil
  }

  deinit {
    message.release()
    description.release()
    path?.release()
    lastKnownPath?.release()
    systemCall?.release()
    step?.release()
  }

  /// Stores a new error made by `make` in `*out`, when the caller asked for errors.
  static func report(_ make: @autoclosure () -> ErrorHandle, to out: UnsafeMutablePointer<OpaquePointer?>?) {
    out?.pointee = make().retainedPointer()
  }
}
