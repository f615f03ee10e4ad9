extension DocbmError {
  /// A pattern that matches a ``DocbmError`` with one of some codes, for `catch` clauses
  /// and `switch` cases: made with ``code(_:)``.
  public struct CodePattern: Hashable, Sendable {
    /// The codes the pattern matches.
    public let codes: Set<Code>

    /// A pattern matching any of `codes`.
    public init(_ codes: Set<Code>) { self.codes = codes }

    /// Whether `error` is a ``DocbmError`` with one of the pattern's codes, or an error
    /// that carries one (``DocbmErrorCarrying``: a store's error from a docbm call).
    public static func ~= (pattern: CodePattern, error: any Error) -> Bool {
      if let error = error as? DocbmError { return pattern.codes.contains(error.code) }
      guard let carried = (error as? any DocbmErrorCarrying)?.docbmError else { return false }
      return pattern.codes.contains(carried.code)
    }

    /// Whether `error` has one of the pattern's codes.
    public static func ~= (pattern: CodePattern, error: DocbmError) -> Bool {
      pattern.codes.contains(error.code)
    }
  }

  /// A pattern matching a ``DocbmError`` with any of `codes`, whether the error is typed
  /// or, as inside a closure, `any Error`:
  ///
  /// ```swift
  /// do {
  ///   _ = try document.resolve(bookmark)
  /// } catch DocbmError.code(.missing) {
  ///   forget()
  /// } catch DocbmError.code(.volumeUnavailable, .ioError) {
  ///   retryLater()
  /// }
  /// ```
  ///
  /// The pattern matches the errors of the other docbm modules too when they carry a
  /// ``DocbmError`` (``DocbmErrorCarrying``): a `BookmarkStoreError.docbm(_:)` from a store's
  /// `resolve` is caught by `catch DocbmError.code(.missing)`, as the resolve's own error is.
  ///
  /// (`catch DocbmError.Code.missing` does not compile: Swift reads it as an enum case
  /// pattern, and the error is not a ``Code``.)
  public static func code(_ codes: Code...) -> CodePattern { CodePattern(Set(codes)) }
}

/// An error that may carry a ``DocbmError``: a failure of another module (a store's) that
/// came from a docbm call. ``DocbmError/code(_:)`` patterns match the error it carries, so
/// that one `catch DocbmError.code(.missing)` handles a missing target however it was
/// reached.
public protocol DocbmErrorCarrying: Error {
  /// The ``DocbmError`` behind this error, or `nil` when it did not come from a docbm call.
  var docbmError: DocbmError? { get }
}
