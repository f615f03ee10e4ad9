public import FoundationEssentials

extension AnchoredDocument {
  /// The same document's calls for Swift concurrency: each runs on docbm's own threads,
  /// never on the cooperative pool, and honours cancellation.
  ///
  /// ```swift
  /// let resolution = try await document.async.resolve(bookmark)
  /// try await document.async.replaceDocument(with: contents)
  /// ```
  public var async: AsyncAnchoredDocument { AsyncAnchoredDocument(document: self) }
}

/// ``AnchoredDocument``'s calls as `async` functions, for editors built on Swift
/// concurrency: made with ``AnchoredDocument/async``.
///
/// The synchronous calls block on file-system work, and a blocked thread of the cooperative
/// pool is one fewer for every task in the process (the pool has about one per core). These
/// run the same work on a small set of threads of docbm's own, named `docbm-io`, and
/// suspend the calling task meanwhile.
///
/// Cancellation: a call whose task is cancelled before it starts throws
/// `CancellationError` and does nothing. A resolution's walk of a whole filesystem stops
/// at the next folder once its task is cancelled. Resolving and making a bookmark check
/// again before they return, and throw `CancellationError` then (a key made meanwhile stays: the
/// document has a key, which is no half state). A save checks once more just before its new
/// version is renamed into place: cancelled by then, it removes the new version, leaves the
/// document byte for byte as it was, and throws `CancellationError`; after the rename, the
/// save is done and the call returns normally, so that it never reports as not saved a
/// document that was.
///
/// Every other failure is the ``DocbmError`` the synchronous call throws.
public struct AsyncAnchoredDocument: Hashable, Sendable {
  /// The document these calls are about.
  public let document: AnchoredDocument

  /// ``AnchoredDocument/resolve(_:)-(Bookmark)`` on docbm's threads.
  ///
  /// - Throws: `CancellationError`, or ``DocbmError`` as ``AnchoredDocument/resolve(_:)-(Bookmark)``.
  public func resolve(_ bookmark: Bookmark) async throws -> Resolution {
    let document = document
    return try await AsyncAnchoredDocument.search { cancellation throws(DocbmError) in
      try document.resolve(bookmark, cancellation: cancellation)
    }
  }

  /// ``AnchoredDocument/resolve(_:)-([Bookmark])`` on docbm's threads: many bookmarks of
  /// the document resolved together, a result for each, in the same order.
  ///
  /// - Throws: `CancellationError` only; each bookmark's own failure is its result.
  public func resolve(_ bookmarks: [Bookmark]) async throws -> [Result<Resolution, DocbmError>] {
    let document = document
    return try await AsyncAnchoredDocument.search { cancellation throws(DocbmError) in
      document.resolve(bookmarks, cancellation: cancellation)
    }
  }

  /// ``AnchoredDocument/makeBookmark(to:)-(FilePath)`` on docbm's threads.
  ///
  /// - Throws: `CancellationError`, or ``DocbmError`` as the synchronous call.
  public func makeBookmark(to target: FilePath) async throws -> Bookmark {
    let document = document
    return try await AsyncAnchoredDocument.perform { () throws(DocbmError) in
      try document.makeBookmark(to: target)
    }
  }

  /// ``AnchoredDocument/makeBookmark(to:)-(URL)`` on docbm's threads.
  public func makeBookmark(to target: URL) async throws -> Bookmark {
    try await makeBookmark(to: FilePath(target))
  }

  /// ``AnchoredDocument/replaceDocument(options:_:)`` on docbm's threads: `write` runs on
  /// one of them.
  ///
  /// - Throws: `CancellationError` when cancelled before the new version is renamed into
  ///   place (the document is unchanged), or ``DocbmError`` as the synchronous call.
  public func replaceDocument(
    options: ReplaceOptions = ReplaceOptions(), _ write: @escaping @Sendable (URL) throws -> Void
  ) async throws {
    let document = document
    try await AsyncAnchoredDocument.save { (cancellation) throws(DocbmError) in
      try document.replaceDocument(options: options, cancellation: cancellation, write)
    }
  }

  /// ``AnchoredDocument/replaceDocument(with:options:)`` on docbm's threads.
  ///
  /// - Throws: `CancellationError` when cancelled before the new version is renamed into
  ///   place (the document is unchanged), or ``DocbmError`` as the synchronous call.
  public func replaceDocument(with data: Data, options: ReplaceOptions = ReplaceOptions()) async throws {
    let document = document
    try await AsyncAnchoredDocument.save { (cancellation) throws(DocbmError) in
      try document.replaceDocument(with: data, options: options, cancellation: cancellation)
    }
  }

  /// ``AnchoredDocument/saveCopy(to:key:options:_:)`` on docbm's threads: `write` runs on
  /// one of them.
  ///
  /// Cancellation is checked before the copy is started; once started, it is saved to the
  /// end and the call returns it (it never reports as not saved a copy that was).
  ///
  /// - Throws: `CancellationError` when cancelled before it started, or ``DocbmError`` as
  ///   the synchronous call.
  @discardableResult
  public func saveCopy(
    to destination: FilePath, key: CopyKey = .carry, options: ReplaceOptions = ReplaceOptions(),
    _ write: @escaping @Sendable (URL) throws -> Void
  ) async throws -> AnchoredDocument {
    let document = document
    return try await AsyncAnchoredDocument.write { () throws(DocbmError) in
      try document.saveCopy(to: destination, key: key, options: options, write)
    }
  }

  /// ``AnchoredDocument/saveCopy(to:key:options:data:)`` on docbm's threads; cancellation
  /// as ``saveCopy(to:key:options:_:)``.
  @discardableResult
  public func saveCopy(
    to destination: FilePath, key: CopyKey = .carry, options: ReplaceOptions = ReplaceOptions(), data: Data
  ) async throws -> AnchoredDocument {
    let document = document
    return try await AsyncAnchoredDocument.write { () throws(DocbmError) in
      try document.saveCopy(to: destination, key: key, options: options, data: data)
    }
  }

  /// ``AnchoredDocument/saveCopy(to:bookmarks:options:_:)`` ("Save As" with re-anchored
  /// bookmarks) on docbm's threads: the bookmarks are resolved and `write` runs on one of
  /// them; cancellation as ``saveCopy(to:key:options:_:)``.
  @discardableResult
  public func saveCopy(
    to destination: FilePath, bookmarks: [Bookmark], options: ReplaceOptions = ReplaceOptions(),
    _ write: @escaping @Sendable (URL, [ReanchoredBookmark]) throws -> Void
  ) async throws -> SavedCopy {
    let document = document
    return try await AsyncAnchoredDocument.write { () throws(DocbmError) in
      try document.saveCopy(to: destination, bookmarks: bookmarks, options: options, write)
    }
  }

  /// Runs `work`, which writes, on docbm's threads: not started when cancelled already,
  /// and, once started, run to the end with its result returned, whatever happens to the
  /// task meanwhile.
  static func write<Value: Sendable>(
    _ work: @escaping @Sendable () throws(DocbmError) -> Value
  ) async throws -> Value {
    try Task.checkCancellation()
    return try await DocbmThreads.run { try work() }
  }

  /// Runs `work` on docbm's threads, checking for cancellation before and after.
  static func perform<Value: Sendable>(
    _ work: @escaping @Sendable () throws(DocbmError) -> Value
  ) async throws -> Value {
    try Task.checkCancellation()
    let value = try await DocbmThreads.run { try work() }
    try Task.checkCancellation()
    return value
  }

  /// Runs a resolution on docbm's threads, checking for cancellation before and after,
  /// and telling its walks of filesystems to stop as soon as the task is cancelled.
  static func search<Value: Sendable>(
    _ work: @escaping @Sendable (SearchCancellation) throws(DocbmError) -> Value
  ) async throws -> Value {
    try Task.checkCancellation()
    let cancellation = SearchCancellation()
    let value = try await withTaskCancellationHandler {
      try await DocbmThreads.run { try work(cancellation) }
    } onCancel: {
      cancellation.cancel()
    }
    try Task.checkCancellation()
    return value
  }

  /// Runs a save on docbm's threads: not started when cancelled already, and stopped before
  /// the rename when cancelled by then.
  static func save(
    _ work: @escaping @Sendable (SaveCancellation) throws(DocbmError) -> Void
  ) async throws {
    try Task.checkCancellation()
    let cancellation = SaveCancellation()
    do {
      try await withTaskCancellationHandler {
        try await DocbmThreads.run { try work(cancellation) }
      } onCancel: {
        cancellation.cancel()
      }
    } catch  where cancellation.stoppedBeforeSwap {
      throw CancellationError()
    }
  }
}
