import Glibc

/// The process's environment variables, read one at a time.
///
/// `ProcessInfo.processInfo.environment` builds a dictionary of every variable at each
/// call (a tenth of `docbm inspect`'s start-up); a lookup by name needs none of that.
package enum ProcessEnvironment {
  /// The value of the variable `name`, or `nil` when it is not set.
  /// The corresponding C function is `getenv`.
  package static func value(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }
  }
}
