import CDocbmShims

/// How much parallel work is worth starting.
package enum Processors {
  /// The processors this process may run on: its affinity mask (`taskset -c 0` gives 1),
  /// which `ProcessInfo.activeProcessorCount` does not look at; at least 1.
  /// The corresponding C function is `sched_getaffinity`.
  package static var usable: Int { Int(cdocbm_usable_processor_count()) }
}
