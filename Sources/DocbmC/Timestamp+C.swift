import DocumentBookmarks

extension Timestamp {
  /// Nanoseconds since 1970 (UTC), as docbm.h gives times; a time past what 64 bits of
  /// nanoseconds hold (years before 1678 or after 2262, which only a crafted file has) is
  /// clamped.
  var cNanoseconds: Int64 {
    let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
    guard !overflow else { return seconds < 0 ? .min : .max }
    let (total, over) = whole.addingReportingOverflow(Int64(nanoseconds))
    return over ? .max : total
  }
}
