import DocumentBookmarks

/// `docbm_test_fault`: a fault a C test installed for the whole process, until
/// `docbm_test_fault_end` removes it.
final class TestFaultHandle: CHandle {
  /// The fault as the library's calls see it, in its registry.
  enum Installed {
    case save(SaveFaults.Fault)
    case resolution(ResolutionFaults.Fault)
    case storeRead(StoreFaults.Fault)
  }

  let installed: Installed
  /// The gate held resolves wait at, for `docbm_test_hold_resolves`.
  let gate: ResolutionGateState?

  private init(_ installed: Installed, gate: ResolutionGateState? = nil) {
    self.installed = installed
    self.gate = gate
  }

  /// Installs a save fault for the saves of documents inside `folder` (`nil`: every save);
  /// `nil` when one for an overlapping folder is installed.
  static func install(_ fault: SaveFaults.Fault, in folder: FilePath?) -> TestFaultHandle? {
    guard SaveFaults.beginProcessWide(fault, in: folder) else { return nil }
    return TestFaultHandle(.save(fault))
  }

  /// Installs a resolution fault for resolves against documents inside `folder`; `nil` when
  /// one for an overlapping folder is installed.
  static func install(
    _ fault: ResolutionFaults.Fault, in folder: FilePath, gate: ResolutionGateState? = nil
  ) -> TestFaultHandle? {
    guard ResolutionFaults.processWide.begin(fault, in: folder) else { return nil }
    return TestFaultHandle(.resolution(fault), gate: gate)
  }

  /// Installs a read fault for the store files inside `folder`; `nil` when one for an
  /// overlapping folder is installed.
  static func install(_ fault: StoreFaults.Fault, in folder: FilePath) -> TestFaultHandle? {
    guard StoreFaults.processWide.begin(fault, in: folder) else { return nil }
    return TestFaultHandle(.storeRead(fault))
  }

  /// Removes the fault: the calls it reached behave as usual again, held resolves go on,
  /// and the temporaries a crashed save left are removed.
  func end() {
    gate?.open()
    switch installed {
    case .save(let fault):
      SaveFaults.endProcessWide(fault)
      fault.removeLeftTemporaries()
    case .resolution(let fault): ResolutionFaults.processWide.end(fault)
    case .storeRead(let fault): StoreFaults.processWide.end(fault)
    }
  }
}
