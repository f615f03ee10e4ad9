import DocumentBookmarks

/// How a C entry point reports what happened: the value on success; on failure `failure`,
/// with the error stored in the caller's `docbm_error **` when it passed one.
enum CallOutcome {
  /// Runs `body`, turning a thrown error (a ``DocbmError``, or a store's) into `failure`
  /// and a stored error.
  static func run<Value, Failure: CReportableError>(
    reportingTo error: UnsafeMutablePointer<OpaquePointer?>?, failure: Value,
    _ body: () throws(Failure) -> Value
  ) -> Value {
    do {
      return try body()
    } catch let thrown {
      ErrorHandle.report(thrown.errorHandle, to: error)
      return failure
    }
  }

  /// The path in `argument`, or `nil` (with an invalid-argument error stored) when it is
  /// NULL or empty.
  static func path(
    _ argument: UnsafePointer<CChar>?, named name: String, of function: String,
    reportingTo error: UnsafeMutablePointer<OpaquePointer?>?
  ) -> FilePath? {
    guard let argument, argument.pointee != 0 else {
      ErrorHandle.report(ErrorHandle(invalidArgument: name, of: function), to: error)
      return nil
    }
    return FilePath(platformString: argument)
  }

  /// `true`, or `false` with an invalid-argument error stored when `argument` is NULL.
  static func present(
    _ argument: (some Any)?, named name: String, of function: String,
    reportingTo error: UnsafeMutablePointer<OpaquePointer?>?
  ) -> Bool {
    guard argument != nil else {
      ErrorHandle.report(ErrorHandle(invalidArgument: name, of: function), to: error)
      return false
    }
    return true
  }

  /// Whether the two arrays of `count` elements a call takes were given: both may be NULL
  /// when `count` is 0; otherwise an invalid-argument error names the first one missing.
  static func arrays(
    _ first: (some Any)?, named firstName: String, _ second: (some Any)?, named secondName: String,
    count: UInt, of function: String, reportingTo error: UnsafeMutablePointer<OpaquePointer?>?
  ) -> Bool {
    count == 0
      || (present(first, named: firstName, of: function, reportingTo: error)
        && present(second, named: secondName, of: function, reportingTo: error))
  }
}

/// An error a C call reports as a `docbm_error`.
protocol CReportableError: Error {
  /// A new `docbm_error` for it.
  var errorHandle: ErrorHandle { get }
}

extension DocbmError: CReportableError {
  var errorHandle: ErrorHandle { ErrorHandle(self) }
}
