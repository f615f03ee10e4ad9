/// Faults injected into the save sequence, for testing error handling: the step named here
/// fails as if its system call had returned `errno`, once, in the current task.
package enum SaveFaults {
  /// A fault: the step that fails and the error number it fails with.
  package struct Fault: Sendable {
    package let step: SaveStep
    package let errno: Int32
    package init(step: SaveStep, errno: Int32) {
      self.step = step
      self.errno = errno
    }
  }

  @TaskLocal package static var injected: Fault?

  /// Throws the injected fault when `step` is the one to fail.
  static func check(_ step: SaveStep, call: String) throws(SystemCallError) {
    if let fault = injected, fault.step == step {
      throw SystemCallError(call, Errno(rawValue: fault.errno))
    }
  }
}
