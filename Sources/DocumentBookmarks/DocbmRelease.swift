/// The release this build of docbm belongs to: one number for the library, the `docbm`
/// command and libdocbm.
package enum DocbmRelease {
  /// The release's version, `MAJOR.MINOR.PATCH`.
  package static let version = "0.2.0"
}
