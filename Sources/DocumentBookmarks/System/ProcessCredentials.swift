import Glibc

/// Who this process acts as, for decisions about whose files it may trust or change.
package enum ProcessCredentials {
  /// The effective user ID: the owner of the files this process creates.
  /// The corresponding C function is `geteuid`.
  package static var effectiveUser: UInt32 { geteuid() }

  /// The effective group ID. The corresponding C function is `getegid`.
  package static var effectiveGroup: UInt32 { getegid() }
}
