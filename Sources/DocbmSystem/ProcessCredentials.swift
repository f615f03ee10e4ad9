import CDocbmShims
import Glibc

/// Who the calling process is, for deciding up front what it may do to a file's owner.
package enum ProcessCredentials {
  /// The effective user ID. The corresponding C function is `geteuid`.
  package static var effectiveUser: UInt32 { geteuid() }

  /// The effective group ID. The corresponding C function is `getegid`.
  package static var effectiveGroup: UInt32 { getegid() }

  /// The effective group ID and the supplementary groups.
  /// The corresponding C functions are `getegid` and `getgroups`.
  package static var groups: Set<UInt32> {
    var result: Set<UInt32> = [getegid()]
    let count = getgroups(0, nil)
    guard count > 0 else { return result }
    var list = [gid_t](repeating: 0, count: Int(count))
    let filled = getgroups(count, &list)
    if filled > 0 { result.formUnion(list.prefix(Int(filled))) }
    return result
  }

  /// Whether the process may give files any owner and group (CAP_CHOWN in its effective
  /// set; root has it unless it was dropped). The corresponding C function is `capget`.
  package static var canChangeAnyOwner: Bool {
    cdocbm_has_effective_capability(CDOCBM_CAP_CHOWN) == 1
  }
}
