import DocumentBookmarks

// Faults for an app's own tests: saves, resolves and store reads that fail (or wait) as
// the real failures would, installed for the whole process and narrowed to a folder. See
// docbm.h for the C declarations.

/// The folder in `argument`, or `nil` when it is NULL or empty.
private func optionalFolder(_ argument: UnsafePointer<CChar>?) -> FilePath? {
  guard let argument, argument.pointee != 0 else { return nil }
  return FilePath(platformString: argument)
}

/// Whether `errnum` is an errno value a fault can fail with; otherwise `false`, with an
/// invalid-argument error stored.
private func isErrno(
  _ errnum: Int32, of function: String, reportingTo error: UnsafeMutablePointer<OpaquePointer?>?
) -> Bool {
  guard errnum > 0 else {
    ErrorHandle.report(
      ErrorHandle(invalid: "\(function) needs an errno value above 0, and got \(errnum)"), to: error)
    return false
  }
  return true
}

/// The handle for a fault just installed, or `nil` with an error stored when `installed`
/// is `nil` (another fault covers the same calls).
private func installed(
  _ handle: TestFaultHandle?, kind: String, of function: String,
  reportingTo error: UnsafeMutablePointer<OpaquePointer?>?
) -> OpaquePointer? {
  guard let handle else {
    ErrorHandle.report(
      ErrorHandle(
        invalid:
          "\(function) found another \(kind) fault installed for a folder that holds this one or is inside it; end it first"
      ), to: error)
    return nil
  }
  return handle.retainedPointer()
}

/// `docbm_test_fault *docbm_test_fail_save(const char *folder, docbm_save_step step,
/// int errnum, docbm_error **error)`
@c public func docbm_test_fail_save(
  _ folder: UnsafePointer<CChar>?, _ step: UInt32, _ errnum: Int32,
  _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> OpaquePointer? {
  let function = "docbm_test_fail_save"
  guard let step = SaveStep(cValue: step) else {
    ErrorHandle.report(
      ErrorHandle(invalid: "\(function) got step \(step), which docbm.h does not list"), to: error)
    return nil
  }
  guard isErrno(errnum, of: function, reportingTo: error) else { return nil }
  let fault = SaveFaults.Fault(step: step, errno: errnum)
  return installed(
    TestFaultHandle.install(fault, in: optionalFolder(folder)), kind: "save", of: function, reportingTo: error
  )
}

/// `docbm_test_fault *docbm_test_crash_save(const char *folder, docbm_error **error)`
@c public func docbm_test_crash_save(
  _ folder: UnsafePointer<CChar>?, _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> OpaquePointer? {
  let fault = SaveFaults.Fault(step: .swap, errno: 5, leavesTemporary: true)
  return installed(
    TestFaultHandle.install(fault, in: optionalFolder(folder)), kind: "save", of: "docbm_test_crash_save",
    reportingTo: error)
}

/// The codes a resolution fault can fail with.
private let resolutionFaultCodes: [DocbmError.Code] = [.missing, .volumeUnavailable, .keyMissing, .ioError]

/// `docbm_test_fault *docbm_test_fail_resolves(const char *folder, docbm_code code,
/// const char *targets, docbm_error **error)`
@c public func docbm_test_fail_resolves(
  _ folder: UnsafePointer<CChar>?, _ code: UInt32, _ targets: UnsafePointer<CChar>?,
  _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> OpaquePointer? {
  let function = "docbm_test_fail_resolves"
  guard let folder = CallOutcome.path(folder, named: "a folder", of: function, reportingTo: error) else {
    return nil
  }
  guard let failure = resolutionFaultCodes.first(where: { $0.cValue == code }) else {
    ErrorHandle.report(
      ErrorHandle(
        invalid:
          "\(function) got code \(code); a resolve fault fails with DOCBM_MISSING, DOCBM_VOLUME_UNAVAILABLE, DOCBM_KEY_MISSING or DOCBM_IO_ERROR"
      ), to: error)
    return nil
  }
  let fault = ResolutionFaults.Fault(.fail(failure), targets: optionalFolder(targets))
  return installed(
    TestFaultHandle.install(fault, in: folder), kind: "resolve", of: function, reportingTo: error)
}

/// `docbm_test_fault *docbm_test_hold_resolves(const char *folder, const char *targets,
/// docbm_error **error)`
@c public func docbm_test_hold_resolves(
  _ folder: UnsafePointer<CChar>?, _ targets: UnsafePointer<CChar>?,
  _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> OpaquePointer? {
  let function = "docbm_test_hold_resolves"
  guard let folder = CallOutcome.path(folder, named: "a folder", of: function, reportingTo: error) else {
    return nil
  }
  let gate = ResolutionGateState()
  let fault = ResolutionFaults.Fault(.hold({ gate.hold() }), targets: optionalFolder(targets))
  return installed(
    TestFaultHandle.install(fault, in: folder, gate: gate), kind: "resolve", of: function, reportingTo: error)
}

/// `docbm_test_fault *docbm_test_fail_store_reads(const char *folder, int errnum,
/// docbm_error **error)`
@c public func docbm_test_fail_store_reads(
  _ folder: UnsafePointer<CChar>?, _ errnum: Int32, _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> OpaquePointer? {
  let function = "docbm_test_fail_store_reads"
  guard let folder = CallOutcome.path(folder, named: "a folder", of: function, reportingTo: error),
    isErrno(errnum, of: function, reportingTo: error)
  else { return nil }
  return installed(
    TestFaultHandle.install(StoreFaults.Fault(errno: errnum), in: folder), kind: "store read", of: function,
    reportingTo: error)
}

/// `size_t docbm_test_fault_held_count(const docbm_test_fault *fault)`
@c public func docbm_test_fault_held_count(_ fault: OpaquePointer) -> UInt {
  UInt(TestFaultHandle.borrow(fault).gate?.heldCount ?? 0)
}

/// `void docbm_test_fault_wait_until_held(const docbm_test_fault *fault, size_t count)`
@c public func docbm_test_fault_wait_until_held(_ fault: OpaquePointer, _ count: UInt) {
  guard let gate = TestFaultHandle.borrow(fault).gate else { return }
  gate.waitUntilHeldBlocking(Int(clamping: count))
}

/// `void docbm_test_fault_open(const docbm_test_fault *fault)`
@c public func docbm_test_fault_open(_ fault: OpaquePointer) {
  TestFaultHandle.borrow(fault).gate?.open()
}

/// `void docbm_test_fault_end(docbm_test_fault *fault)`
@c public func docbm_test_fault_end(_ fault: OpaquePointer?) {
  guard let fault else { return }
  TestFaultHandle.borrow(fault).end()
  TestFaultHandle.release(fault)
}

/// `const char *docbm_save_step_name(docbm_save_step step)`
@c public func docbm_save_step_name(_ step: UInt32) -> UnsafePointer<CChar>? {
  CNames.saveSteps[step]
}
