import CDocbmShims
import Glibc

/// Fast search for a short byte string in a large buffer: scanning a document for
/// bookmarks looks at every byte, and a Swift loop over gigabytes would be slow, most of
/// all in debug builds.
package enum ByteSearch {
  /// The index of the first occurrence of `needle` in `haystack` at or after `start`, or
  /// `nil` when there is none. An empty needle is found at `start`.
  ///
  /// The search runs `memchr` for `needle[keyIndex]` and compares the whole needle at each
  /// hit, so it is fastest when that byte is rare in the haystack; glibc's `memmem` is
  /// several times slower on long runs of zeros and on text.
  /// The corresponding C functions are `memchr` and `memcmp`.
  package static func firstIndex(
    of needle: UnsafeRawBufferPointer, keyIndex: Int, in haystack: UnsafeRawBufferPointer, from start: Int
  ) -> Int? {
    precondition(start >= 0 && start <= haystack.count, "search start out of bounds")
    precondition(needle.isEmpty || (keyIndex >= 0 && keyIndex < needle.count), "key byte out of bounds")
    guard !needle.isEmpty else { return start }
    guard let base = haystack.baseAddress, let needleBase = needle.baseAddress,
      haystack.count - start >= needle.count
    else { return nil }
    let found = cdocbm_find_bytes(base + start, haystack.count - start, needleBase, needle.count, keyIndex)
    return found < 0 ? nil : start + found
  }

  /// Whether `byte` occurs in `buffer`.
  /// The corresponding C function is `memchr`.
  package static func contains(_ byte: UInt8, in buffer: UnsafeRawBufferPointer) -> Bool {
    guard let base = buffer.baseAddress else { return false }
    return memchr(base, Int32(byte), buffer.count) != nil
  }
}
