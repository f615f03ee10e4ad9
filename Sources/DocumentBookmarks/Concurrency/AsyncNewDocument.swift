public import FoundationEssentials

extension NewDocument {
  /// The first save for Swift concurrency, run on docbm's own threads.
  ///
  /// ```swift
  /// let document = try await draft.async.createDocument(with: contents)
  /// ```
  public var async: AsyncNewDocument { AsyncNewDocument(draft: self) }
}

/// ``NewDocument``'s first save as `async` functions: made with ``NewDocument/async``.
///
/// Cancellation is checked before the save starts; once started, the document is created
/// (or the save fails) and the call returns what happened: it never reports as not created
/// a document that was.
public struct AsyncNewDocument: Sendable {
  /// The document about to be created.
  public let draft: NewDocument

  /// ``NewDocument/createDocument(options:_:)`` on docbm's threads: `write` runs on one of
  /// them.
  ///
  /// - Throws: `CancellationError` when cancelled before the save started, or
  ///   ``DocbmError`` as the synchronous call.
  @discardableResult
  public func createDocument(
    options: ReplaceOptions = ReplaceOptions(), _ write: @escaping @Sendable (URL) throws -> Void
  ) async throws -> AnchoredDocument {
    let draft = draft
    return try await AsyncAnchoredDocument.write { () throws(DocbmError) in
      try draft.createDocument(options: options, write)
    }
  }

  /// ``NewDocument/createDocument(with:options:)`` on docbm's threads.
  ///
  /// - Throws: `CancellationError` when cancelled before the save started, or
  ///   ``DocbmError`` as the synchronous call.
  @discardableResult
  public func createDocument(with data: Data, options: ReplaceOptions = ReplaceOptions()) async throws
    -> AnchoredDocument
  {
    let draft = draft
    return try await AsyncAnchoredDocument.write { () throws(DocbmError) in
      try draft.createDocument(with: data, options: options)
    }
  }
}
