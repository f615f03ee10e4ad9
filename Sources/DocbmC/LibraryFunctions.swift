import DocumentBookmarks

// The library as a whole: its version, the release of returned strings, and the names of
// enumeration values. See docbm.h for the C declarations.

/// The static copy of the version string handed to C callers.
private let versionString = StaticCString(DocbmRelease.version)

/// `const char *docbm_version(void)`
@c public func docbm_version() -> UnsafePointer<CChar> {
  versionString.pointer
}

/// `void docbm_free(void *pointer)`
@c public func docbm_free(_ pointer: UnsafeMutableRawPointer?) {
  pointer?.deallocate()
}

/// `const char *docbm_code_name(docbm_code code)`
@c public func docbm_code_name(_ code: UInt32) -> UnsafePointer<CChar>? {
  CNames.codes[code]
}

/// `const char *docbm_recommendation_name(docbm_recommendation recommendation)`
@c public func docbm_recommendation_name(_ recommendation: UInt32) -> UnsafePointer<CChar>? {
  CNames.recommendations[recommendation]
}

/// `const char *docbm_stale_reason_name(docbm_stale_reason reason)`
@c public func docbm_stale_reason_name(_ reason: UInt32) -> UnsafePointer<CChar>? {
  CNames.staleReasons[reason]
}

/// `const char *docbm_verdict_name(docbm_verdict verdict)`
@c public func docbm_verdict_name(_ verdict: UInt32) -> UnsafePointer<CChar>? {
  CNames.verdicts[verdict]
}

/// `const char *docbm_repair_action_name(docbm_repair_action action)`
@c public func docbm_repair_action_name(_ action: UInt32) -> UnsafePointer<CChar>? {
  CNames.repairActions[action]
}

/// `const char *docbm_lint_verdict_name(docbm_lint_verdict verdict)`
@c public func docbm_lint_verdict_name(_ verdict: UInt32) -> UnsafePointer<CChar>? {
  CNames.lintVerdicts[verdict]
}

/// `const char *docbm_search_reach_name(docbm_search_reach reach)`
@c public func docbm_search_reach_name(_ reach: UInt32) -> UnsafePointer<CChar>? {
  CNames.searchReaches[reach]
}
