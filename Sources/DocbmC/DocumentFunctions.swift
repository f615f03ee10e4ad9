import DocumentBookmarks

// `docbm_document`: opening, making bookmarks, resolving. See docbm.h for the C
// declarations.

/// `docbm_document *docbm_document_open(const char *path, docbm_error **error)`
@c public func docbm_document_open(
  _ path: UnsafePointer<CChar>?, _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> OpaquePointer? {
  guard let path = CallOutcome.path(path, named: "a path", of: "docbm_document_open", reportingTo: error)
  else { return nil }
  return DocumentHandle(path: path).retainedPointer()
}

/// `docbm_document *docbm_document_open_searching(const char *path, docbm_search_reach reach,
/// double time_limit_seconds, docbm_error **error)`
@c public func docbm_document_open_searching(
  _ path: UnsafePointer<CChar>?, _ reach: UInt32, _ timeLimit: Double,
  _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> OpaquePointer? {
  openDocument(path, reach, timeLimit, escrow: 0, of: "docbm_document_open_searching", reportingTo: error)
}

/// `docbm_document *docbm_document_open_with(const char *path, docbm_search_reach reach,
/// double time_limit_seconds, docbm_escrow_use escrow, docbm_error **error)`
@c public func docbm_document_open_with(
  _ path: UnsafePointer<CChar>?, _ reach: UInt32, _ timeLimit: Double, _ escrow: UInt32,
  _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> OpaquePointer? {
  openDocument(path, reach, timeLimit, escrow: escrow, of: "docbm_document_open_with", reportingTo: error)
}

/// A document opened with the search and escrow settings of `function`'s arguments, or
/// `nil` with the error reported for an argument that is none of its values.
private func openDocument(
  _ path: UnsafePointer<CChar>?, _ reach: UInt32, _ timeLimit: Double, escrow: UInt32, of function: String,
  reportingTo error: UnsafeMutablePointer<OpaquePointer?>?
) -> OpaquePointer? {
  guard let path = CallOutcome.path(path, named: "a path", of: function, reportingTo: error) else {
    return nil
  }
  var budget = SearchBudget.standard
  guard let chosen = SearchBudget.Reach(cValue: reach) else {
    ErrorHandle.report(
      ErrorHandle(invalid: "\(function) got reach \(reach), not a docbm_search_reach"), to: error)
    return nil
  }
  // DOCBM_USER_ESCROW is 0, DOCBM_NO_ESCROW 1.
  guard escrow <= 1 else {
    ErrorHandle.report(
      ErrorHandle(invalid: "\(function) got escrow \(escrow), not a docbm_escrow_use"), to: error)
    return nil
  }
  budget.reach = chosen
  budget.filesystemTimeLimit =
    timeLimit.isNaN || timeLimit < 0 || timeLimit > 1e9
    ? nil : .milliseconds(Int64((timeLimit * 1000).rounded()))
  return DocumentHandle(path: path, searchBudget: budget, escrow: escrow == 0 ? .default : nil)
    .retainedPointer()
}

/// `void docbm_document_close(docbm_document *document)`
@c public func docbm_document_close(_ document: OpaquePointer?) {
  DocumentHandle.release(document)
}

/// `char *docbm_make_bookmark(const docbm_document *document, const char *target,
/// docbm_error **error)`
@c public func docbm_make_bookmark(
  _ document: OpaquePointer?, _ target: UnsafePointer<CChar>?, _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> UnsafeMutablePointer<CChar>? {
  guard CallOutcome.present(document, named: "a document", of: "docbm_make_bookmark", reportingTo: error),
    let document,
    let target = CallOutcome.path(target, named: "a target", of: "docbm_make_bookmark", reportingTo: error)
  else { return nil }
  let anchored = DocumentHandle.borrow(document).document
  return CallOutcome.run(reportingTo: error, failure: nil) { () throws(DocbmError) in
    CStringCopy(try anchored.makeBookmark(to: target).text).pointer
  }
}

/// `docbm_resolution *docbm_resolve(const docbm_document *document, const char *bookmark,
/// docbm_error **error)`
@c public func docbm_resolve(
  _ document: OpaquePointer?, _ bookmark: UnsafePointer<CChar>?,
  _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> OpaquePointer? {
  guard CallOutcome.present(document, named: "a document", of: "docbm_resolve", reportingTo: error),
    CallOutcome.present(bookmark, named: "a bookmark", of: "docbm_resolve", reportingTo: error),
    let document, let bookmark
  else { return nil }
  let anchored = DocumentHandle.borrow(document).document
  return CallOutcome.run(reportingTo: error, failure: nil) { () throws(DocbmError) in
    let resolution = try anchored.resolve(try Bookmark(text: String(cString: bookmark)))
    return ResolutionHandle(resolution).retainedPointer()
  }
}

/// `long docbm_resolve_all(const docbm_document *document, const char *const *bookmarks,
/// size_t count, docbm_resolution **resolutions, docbm_error **errors, docbm_error **error)`
@c public func docbm_resolve_all(
  _ document: OpaquePointer?, _ bookmarks: UnsafePointer<UnsafePointer<CChar>?>?, _ count: UInt,
  _ resolutions: UnsafeMutablePointer<OpaquePointer?>?, _ errors: UnsafeMutablePointer<OpaquePointer?>?,
  _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> Int {
  let function = "docbm_resolve_all"
  guard CallOutcome.present(document, named: "a document", of: function, reportingTo: error),
    CallOutcome.arrays(
      bookmarks, named: "bookmarks", resolutions, named: "resolutions", count: count, of: function,
      reportingTo: error),
    let document
  else { return -1 }
  guard count > 0, let bookmarks, let resolutions else { return 0 }
  let anchored = DocumentHandle.borrow(document).document
  let outcomes = BookmarkTexts(bookmarks, count: count).map(
    { anchored.resolve($0) }, failed: { .failure($0) })
  var resolved = 0
  for (index, outcome) in outcomes.enumerated() {
    switch outcome {
    case .success(let resolution):
      resolutions[index] = ResolutionHandle(resolution).retainedPointer()
      errors?[index] = nil
      resolved += 1
    case .failure(let failure):
      resolutions[index] = nil
      errors?[index] = ErrorHandle(failure).retainedPointer()
    }
  }
  return resolved
}
