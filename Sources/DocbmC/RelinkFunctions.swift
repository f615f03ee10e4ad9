import DocumentBookmarks

/// `long docbm_relink(const docbm_document *document, const char *const *bookmarks,
/// size_t count, const char *from, const char *to, docbm_relink_result **results,
/// docbm_error **error)`
@c public func docbm_relink(
  _ document: OpaquePointer?, _ bookmarks: UnsafePointer<UnsafePointer<CChar>?>?, _ count: UInt,
  _ from: UnsafePointer<CChar>?, _ to: UnsafePointer<CChar>?,
  _ results: UnsafeMutablePointer<OpaquePointer?>?, _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> Int {
  let function = "docbm_relink"
  guard CallOutcome.present(document, named: "a document", of: function, reportingTo: error),
    let document,
    let source = CallOutcome.path(from, named: "the old folder", of: function, reportingTo: error),
    let destination = CallOutcome.path(to, named: "the new folder", of: function, reportingTo: error),
    CallOutcome.arrays(
      bookmarks, named: "bookmarks", results, named: "results", count: count, of: function, reportingTo: error
    )
  else { return -1 }
  guard count > 0, let bookmarks, let results else { return 0 }
  let anchored = DocumentHandle.borrow(document).document
  let relinks = BookmarkTexts(bookmarks, count: count).map(
    { anchored.relink($0, from: source, to: destination).map { ($0.outcome, $0.candidate) } },
    failed: { (.failed($0), nil) })
  var relinked = 0
  for (index, (outcome, candidate)) in relinks.enumerated() {
    if case .relinked = outcome { relinked += 1 }
    results[index] = RelinkResultHandle(outcome, candidate: candidate).retainedPointer()
  }
  return relinked
}

/// `docbm_relink_outcome docbm_relink_result_outcome(const docbm_relink_result *result)`
@c public func docbm_relink_result_outcome(_ result: OpaquePointer) -> UInt32 {
  RelinkResultHandle.borrow(result).outcome
}

/// `const char *docbm_relink_result_candidate(const docbm_relink_result *result)`
@c public func docbm_relink_result_candidate(_ result: OpaquePointer) -> UnsafePointer<CChar>? {
  RelinkResultHandle.borrow(result).candidate.map { UnsafePointer($0.pointer) }
}

/// `const char *docbm_relink_result_reason(const docbm_relink_result *result)`
@c public func docbm_relink_result_reason(_ result: OpaquePointer) -> UnsafePointer<CChar>? {
  RelinkResultHandle.borrow(result).reason.map { UnsafePointer($0.pointer) }
}

/// `const char *docbm_relink_result_refreshed(const docbm_relink_result *result)`
@c public func docbm_relink_result_refreshed(_ result: OpaquePointer) -> UnsafePointer<CChar>? {
  RelinkResultHandle.borrow(result).refreshed.map { UnsafePointer($0.pointer) }
}

/// `docbm_code docbm_relink_result_code(const docbm_relink_result *result)`
@c public func docbm_relink_result_code(_ result: OpaquePointer) -> UInt32 {
  RelinkResultHandle.borrow(result).code
}

/// `void docbm_relink_result_free(docbm_relink_result *result)`
@c public func docbm_relink_result_free(_ result: OpaquePointer?) {
  RelinkResultHandle.release(result)
}

/// `const char *docbm_relink_outcome_name(docbm_relink_outcome outcome)`
@c public func docbm_relink_outcome_name(_ outcome: UInt32) -> UnsafePointer<CChar>? {
  CNames.relinkOutcomes[outcome]
}
