import DocumentBookmarks

// The save-safety lint for C: an app's save function run against a scratch document. See
// docbm.h for the C declarations.

/// `docbm_lint_report *docbm_lint_save(docbm_save_function save, void *context,
/// const char *folder, docbm_error **error)`
@c public func docbm_lint_save(
  _ save: (@convention(c) (UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Int32)?,
  _ context: UnsafeMutableRawPointer?, _ folder: UnsafePointer<CChar>?,
  _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> OpaquePointer? {
  guard CallOutcome.present(save, named: "a save function", of: "docbm_lint_save", reportingTo: error),
    let save
  else { return nil }
  let base = folder.flatMap { $0.pointee == 0 ? nil : FilePath(platformString: $0) }
  return CallOutcome.run(reportingTo: error, failure: nil) { () throws(DocbmError) in
    let report = try SaveProbe.lintByPath(in: base) { path in
      let status = path.withCString { save($0, context) }
      if status != 0 { throw CallbackFailure(callback: "the save", status: status) }
    }
    return LintReportHandle(report).retainedPointer()
  }
}

/// `docbm_lint_verdict docbm_lint_report_verdict(const docbm_lint_report *report)`
@c public func docbm_lint_report_verdict(_ report: OpaquePointer) -> UInt32 {
  LintReportHandle.borrow(report).verdict.cValue
}

/// `int docbm_lint_report_is_safe(const docbm_lint_report *report)`
@c public func docbm_lint_report_is_safe(_ report: OpaquePointer) -> Int32 {
  LintReportHandle.borrow(report).verdict == .kept ? 1 : 0
}

/// `const char *docbm_lint_report_summary(const docbm_lint_report *report)`
@c public func docbm_lint_report_summary(_ report: OpaquePointer) -> UnsafePointer<CChar> {
  UnsafePointer(LintReportHandle.borrow(report).summary.pointer)
}

/// `size_t docbm_lint_report_finding_count(const docbm_lint_report *report)`
@c public func docbm_lint_report_finding_count(_ report: OpaquePointer) -> UInt {
  UInt(LintReportHandle.borrow(report).findings.count)
}

/// The finding at `index`, or `nil` past the end.
private func finding(_ report: OpaquePointer, _ index: UInt) -> LintReportHandle.Finding? {
  let findings = LintReportHandle.borrow(report).findings
  return index < findings.count ? findings[Int(index)] : nil
}

/// `const char *docbm_lint_report_finding_kind(const docbm_lint_report *report,
/// size_t index)`
@c public func docbm_lint_report_finding_kind(_ report: OpaquePointer, _ index: UInt) -> UnsafePointer<CChar>?
{
  finding(report, index)?.kind.pointer
}

/// `const char *docbm_lint_report_finding_message(const docbm_lint_report *report,
/// size_t index)`
@c public func docbm_lint_report_finding_message(_ report: OpaquePointer, _ index: UInt) -> UnsafePointer<
  CChar
>? {
  finding(report, index).map { UnsafePointer($0.message.pointer) }
}

/// `const char *docbm_lint_report_finding_fix(const docbm_lint_report *report, size_t index)`
@c public func docbm_lint_report_finding_fix(_ report: OpaquePointer, _ index: UInt) -> UnsafePointer<CChar>?
{
  finding(report, index).map { UnsafePointer($0.fix.pointer) }
}

/// `void docbm_lint_report_free(docbm_lint_report *report)`
@c public func docbm_lint_report_free(_ report: OpaquePointer?) {
  LintReportHandle.release(report)
}
