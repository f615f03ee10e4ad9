import DocbmSystem

/// Faults injected into a store's reads, for testing how an app copes with a store it
/// cannot read: a read of a store file in the current task (or, with a process-wide fault,
/// of a store file inside the fault's folder) fails as if its system call had returned
/// `errno`, for as long as the fault is installed.
///
/// The public face of this is `withStoreReadFault(errno:_:)` and
/// `withProcessWideStoreReadFault(errno:in:_:)` in DocumentBookmarksTesting; a store's
/// saves fail through ``SaveFaults``.
package enum StoreFaults {
  /// One fault: the error every read it reaches fails with.
  package final class Fault: Sendable {
    package let errno: Int32

    package init(errno: Int32) { self.errno = errno }
  }

  @TaskLocal package static var injected: Fault?

  /// The process-wide faults, each for the stores inside its folder.
  package static let processWide = ProcessWideFaults<Fault>()

  /// Throws the injected failure for a read of the store file at `path`, if a fault
  /// reaches it: `read` failing with the fault's errno, as the kernel would report it.
  package static func checkRead(of path: FilePath) throws(SystemCallError) {
    guard let fault = injected ?? processWide.fault(for: path) else { return }
    throw SystemCallError("read", Errno(rawValue: fault.errno), path: path)
  }
}
