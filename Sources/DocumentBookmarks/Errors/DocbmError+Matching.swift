extension DocbmError {
  /// A pattern that matches a ``DocbmError`` with one of some codes, for `catch` clauses
  /// and `switch` cases: made with ``code(_:)``.
  public struct CodePattern: Hashable, Sendable {
    /// The codes the pattern matches.
    public let codes: Set<Code>

    /// A pattern matching any of `codes`.
    public init(_ codes: Set<Code>) { self.codes = codes }

    /// Whether `error` is a ``DocbmError`` with one of the pattern's codes.
    public static func ~= (pattern: CodePattern, error: any Error) -> Bool {
      guard let error = error as? DocbmError else { return false }
      return pattern.codes.contains(error.code)
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
  /// (`catch DocbmError.Code.missing` does not compile: Swift reads it as an enum case
  /// pattern, and the error is not a ``Code``.)
  public static func code(_ codes: Code...) -> CodePattern { CodePattern(Set(codes)) }
}
