import DocumentBookmarks

// Checking and repairing documents with the user's escrow, as `docbm check` and
// `docbm repair` do. See docbm.h for the C declarations.

/// `docbm_check_result *docbm_check(const char *path, docbm_error **error)`
@c public func docbm_check(
  _ path: UnsafePointer<CChar>?, _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> OpaquePointer? {
  guard let path = CallOutcome.path(path, named: "a path", of: "docbm_check", reportingTo: error)
  else { return nil }
  let check = DocumentChecker(escrow: .default).check(path)
  return CheckResultHandle(check).retainedPointer()
}

/// `long long docbm_check_tree(const char *root, docbm_check_visitor visit, void *context,
/// size_t *unreadable_folders, docbm_error **error)`
@c public func docbm_check_tree(
  _ root: UnsafePointer<CChar>?,
  _ visit: (@convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void)?,
  _ context: UnsafeMutableRawPointer?, _ unreadableFolders: UnsafeMutablePointer<UInt>?,
  _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> Int64 {
  let function = "docbm_check_tree"
  guard let root = CallOutcome.path(root, named: "a root", of: function, reportingTo: error),
    CallOutcome.present(visit, named: "a visitor", of: function, reportingTo: error), let visit
  else { return -1 }
  var checked: Int64 = 0
  let unreadable = TreeChecker(checker: DocumentChecker(escrow: .default)).check(root) { check in
    let result = CheckResultHandle(check).retainedPointer()
    visit(result, context)
    CheckResultHandle.release(result)
    checked += 1
  }
  unreadableFolders?.pointee = UInt(unreadable.count)
  return checked
}

/// `const char *docbm_check_result_path(const docbm_check_result *result)`
@c public func docbm_check_result_path(_ result: OpaquePointer) -> UnsafePointer<CChar> {
  UnsafePointer(CheckResultHandle.borrow(result).path.pointer)
}

/// `docbm_verdict docbm_check_result_verdict(const docbm_check_result *result)`
@c public func docbm_check_result_verdict(_ result: OpaquePointer) -> UInt32 {
  CheckResultHandle.borrow(result).verdict.cValue
}

/// `int docbm_check_result_is_problem(const docbm_check_result *result)`
@c public func docbm_check_result_is_problem(_ result: OpaquePointer) -> Int32 {
  CheckResultHandle.borrow(result).verdict.isProblem ? 1 : 0
}

/// `const char *docbm_check_result_message(const docbm_check_result *result)`
@c public func docbm_check_result_message(_ result: OpaquePointer) -> UnsafePointer<CChar> {
  UnsafePointer(CheckResultHandle.borrow(result).message.pointer)
}

/// `size_t docbm_check_result_bookmark_count(const docbm_check_result *result)`
@c public func docbm_check_result_bookmark_count(_ result: OpaquePointer) -> UInt {
  UInt(CheckResultHandle.borrow(result).bookmarkCount)
}

/// `void docbm_check_result_free(docbm_check_result *result)`
@c public func docbm_check_result_free(_ result: OpaquePointer?) {
  CheckResultHandle.release(result)
}

/// `docbm_repair_report *docbm_repair(const char *path, docbm_error **error)`
@c public func docbm_repair(
  _ path: UnsafePointer<CChar>?, _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> OpaquePointer? {
  repair(path, error, by: "docbm_repair", policy: DocumentRepairer.Policy())
}

/// `docbm_repair_report *docbm_repair_allowing_unrecorded(const char *path, docbm_error **error)`
@c public func docbm_repair_allowing_unrecorded(
  _ path: UnsafePointer<CChar>?, _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> OpaquePointer? {
  repair(
    path, error, by: "docbm_repair_allowing_unrecorded",
    policy: DocumentRepairer.Policy(allowsUnrecordedDocuments: true))
}

/// A repair of the document at `path` with the user's escrow under `policy`, as a retained
/// report; `nil` with DOCBM_INVALID_ARGUMENT, naming `function`, when `path` is not one.
private func repair(
  _ path: UnsafePointer<CChar>?, _ error: UnsafeMutablePointer<OpaquePointer?>?, by function: String,
  policy: DocumentRepairer.Policy
) -> OpaquePointer? {
  guard let path = CallOutcome.path(path, named: "a path", of: function, reportingTo: error) else {
    return nil
  }
  let report = DocumentRepairer(escrow: .default, policy: policy).repair(path)
  return RepairReportHandle(report).retainedPointer()
}

/// `docbm_repair_action docbm_repair_report_action(const docbm_repair_report *report)`
@c public func docbm_repair_report_action(_ report: OpaquePointer) -> UInt32 {
  RepairReportHandle.borrow(report).action.cValue
}

/// `const char *docbm_repair_report_refusal(const docbm_repair_report *report)`
@c public func docbm_repair_report_refusal(_ report: OpaquePointer) -> UnsafePointer<CChar>? {
  RepairReportHandle.borrow(report).refusal.map { UnsafePointer($0.pointer) }
}

/// `const char *docbm_repair_report_message(const docbm_repair_report *report)`
@c public func docbm_repair_report_message(_ report: OpaquePointer) -> UnsafePointer<CChar> {
  UnsafePointer(RepairReportHandle.borrow(report).message.pointer)
}

/// `const char *docbm_repair_report_remedy(const docbm_repair_report *report)`
@c public func docbm_repair_report_remedy(_ report: OpaquePointer) -> UnsafePointer<CChar>? {
  RepairReportHandle.borrow(report).remedy.map { UnsafePointer($0.pointer) }
}

/// `const char *docbm_repair_report_recorded_document(const docbm_repair_report *report)`
@c public func docbm_repair_report_recorded_document(_ report: OpaquePointer) -> UnsafePointer<CChar>? {
  RepairReportHandle.borrow(report).recordedDocument.map { UnsafePointer($0.pointer) }
}

/// `const char *docbm_repair_report_advice(const docbm_repair_report *report)`
@c public func docbm_repair_report_advice(_ report: OpaquePointer) -> UnsafePointer<CChar>? {
  RepairReportHandle.borrow(report).advice.map { UnsafePointer($0.pointer) }
}

/// `docbm_verdict docbm_repair_report_verdict(const docbm_repair_report *report)`
@c public func docbm_repair_report_verdict(_ report: OpaquePointer) -> UInt32 {
  RepairReportHandle.borrow(report).verdict.cValue
}

/// `void docbm_repair_report_free(docbm_repair_report *report)`
@c public func docbm_repair_report_free(_ report: OpaquePointer?) {
  RepairReportHandle.release(report)
}
