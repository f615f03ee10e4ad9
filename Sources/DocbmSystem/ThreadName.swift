import CDocbmShims

/// The kernel's name of the calling thread: what `ps -T`, `top -H` and debuggers show.
///
/// Foundation's `Thread.name` is not enough on Linux: a thread started from one of
/// Dispatch's threads begins with that thread's kernel name, and setting `Thread.name` to
/// the value it already holds does not always pass it on to the kernel.
package enum ThreadName {
  /// Names the calling thread (at most 15 bytes are kept).
  package static func setCurrent(_ name: String) {
    _ = name.withCString { cdocbm_name_current_thread($0) }
  }
}
