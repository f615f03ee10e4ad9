import DocumentBookmarks
import FoundationEssentials

// "Save As": a copy of a `docbm_document`, and its bookmarks made for the copy's place.
// See docbm.h for the C declarations.

/// `docbm_document *docbm_save_copy(const docbm_document *document,
/// const char *destination, const void *bytes, size_t length, docbm_copy_key key,
/// docbm_error **error)`
@c public func docbm_save_copy(
  _ document: OpaquePointer?, _ destination: UnsafePointer<CChar>?, _ bytes: UnsafeRawPointer?,
  _ length: UInt, _ key: UInt32, _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> OpaquePointer? {
  let function = "docbm_save_copy"
  guard
    let (anchored, destination, copyKey) = copyArguments(
      document, destination, key, function: function, error),
    length == 0 || CallOutcome.present(bytes, named: "bytes", of: function, reportingTo: error)
  else { return nil }
  let data = bytes.map { Data(bytes: $0, count: Int(length)) } ?? Data()
  return CallOutcome.run(reportingTo: error, failure: nil) { () throws(DocbmError) in
    DocumentHandle(try anchored.saveCopy(to: destination, key: copyKey, data: data)).retainedPointer()
  }
}

/// `docbm_document *docbm_save_copy_with_writer(const docbm_document *document,
/// const char *destination, docbm_copy_key key, docbm_writer writer, void *context,
/// docbm_error **error)`
@c public func docbm_save_copy_with_writer(
  _ document: OpaquePointer?, _ destination: UnsafePointer<CChar>?, _ key: UInt32,
  _ writer: (@convention(c) (UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Int32)?,
  _ context: UnsafeMutableRawPointer?, _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> OpaquePointer? {
  let function = "docbm_save_copy_with_writer"
  guard
    let (anchored, destination, copyKey) = copyArguments(
      document, destination, key, function: function, error),
    CallOutcome.present(writer, named: "a writer", of: function, reportingTo: error), let writer
  else { return nil }
  return CallOutcome.run(reportingTo: error, failure: nil) { () throws(DocbmError) in
    let copy = try anchored.saveCopyByPath(to: destination, key: copyKey) { path in
      let status = path.withCString { writer($0, context) }
      if status != 0 { throw CallbackFailure(callback: "the writer", status: status) }
    }
    return DocumentHandle(copy).retainedPointer()
  }
}

/// The document, destination and key of a save of a copy, or `nil` with the failure
/// reported when one is missing or not valid.
private func copyArguments(
  _ document: OpaquePointer?, _ destination: UnsafePointer<CChar>?, _ key: UInt32, function: String,
  _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> (AnchoredDocument, FilePath, CopyKey)? {
  guard CallOutcome.present(document, named: "a document", of: function, reportingTo: error), let document,
    let destination = CallOutcome.path(destination, named: "a destination", of: function, reportingTo: error)
  else { return nil }
  guard let copyKey = CopyKey(cValue: key) else {
    ErrorHandle.report(ErrorHandle(invalid: "\(function) got key \(key), not a docbm_copy_key"), to: error)
    return nil
  }
  return (DocumentHandle.borrow(document).document, destination, copyKey)
}

/// `long docbm_reanchor(const docbm_document *document, const char *destination,
/// const char *const *bookmarks, size_t count, docbm_reanchored **results,
/// docbm_error **error)`
@c public func docbm_reanchor(
  _ document: OpaquePointer?, _ destination: UnsafePointer<CChar>?,
  _ bookmarks: UnsafePointer<UnsafePointer<CChar>?>?, _ count: UInt,
  _ results: UnsafeMutablePointer<OpaquePointer?>?, _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> Int {
  let function = "docbm_reanchor"
  guard CallOutcome.present(document, named: "a document", of: function, reportingTo: error),
    let document,
    let destination = CallOutcome.path(destination, named: "a destination", of: function, reportingTo: error),
    CallOutcome.arrays(
      bookmarks, named: "bookmarks", results, named: "results", count: count, of: function, reportingTo: error
    )
  else { return -1 }
  guard count > 0, let bookmarks, let results else { return 0 }
  let anchored = DocumentHandle.borrow(document).document
  let outcomes = BookmarkTexts(bookmarks, count: count).map(
    { anchored.reanchor($0, for: destination).map(\.outcome) }, failed: { .failed($0) })
  var made = 0
  for (index, outcome) in outcomes.enumerated() {
    if case .reanchored = outcome { made += 1 }
    results[index] = ReanchoredHandle(outcome).retainedPointer()
  }
  return made
}

/// `docbm_reanchor_outcome docbm_reanchored_outcome(const docbm_reanchored *result)`
@c public func docbm_reanchored_outcome(_ result: OpaquePointer) -> UInt32 {
  ReanchoredHandle.borrow(result).outcome
}

/// `const char *docbm_reanchored_bookmark(const docbm_reanchored *result)`
@c public func docbm_reanchored_bookmark(_ result: OpaquePointer) -> UnsafePointer<CChar>? {
  ReanchoredHandle.borrow(result).bookmark.map { UnsafePointer($0.pointer) }
}

/// `size_t docbm_reanchored_candidate_count(const docbm_reanchored *result)`
@c public func docbm_reanchored_candidate_count(_ result: OpaquePointer) -> UInt {
  UInt(ReanchoredHandle.borrow(result).candidates.count)
}

/// `const char *docbm_reanchored_candidate(const docbm_reanchored *result, size_t index)`
@c public func docbm_reanchored_candidate(_ result: OpaquePointer, _ index: UInt) -> UnsafePointer<CChar>? {
  let candidates = ReanchoredHandle.borrow(result).candidates
  return index < candidates.count ? UnsafePointer(candidates[Int(index)].pointer) : nil
}

/// `docbm_code docbm_reanchored_code(const docbm_reanchored *result)`
@c public func docbm_reanchored_code(_ result: OpaquePointer) -> UInt32 {
  ReanchoredHandle.borrow(result).code
}

/// `const char *docbm_reanchored_message(const docbm_reanchored *result)`
@c public func docbm_reanchored_message(_ result: OpaquePointer) -> UnsafePointer<CChar>? {
  ReanchoredHandle.borrow(result).message.map { UnsafePointer($0.pointer) }
}

/// `void docbm_reanchored_free(docbm_reanchored *result)`
@c public func docbm_reanchored_free(_ result: OpaquePointer?) {
  ReanchoredHandle.release(result)
}

/// `const char *docbm_reanchor_outcome_name(docbm_reanchor_outcome outcome)`
@c public func docbm_reanchor_outcome_name(_ outcome: UInt32) -> UnsafePointer<CChar>? {
  CNames.reanchorOutcomes[outcome]
}
