import Glibc

/// The bytewise order of file names (as `LC_ALL=C ls` sorts them): tree walks list folders
/// in it.
package enum ByteOrder {
  /// Whether the name at `a` sorts before the one at `b`: bytes compared as unsigned
  /// numbers, and a name before every longer name it begins.
  ///
  /// The corresponding C function is `memcmp`.
  package static func precedes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
    guard let left = a.baseAddress, let right = b.baseAddress else { return a.count < b.count }
    let order = memcmp(left, right, min(a.count, b.count))
    return order != 0 ? order < 0 : a.count < b.count
  }

  /// The first 8 bytes of `bytes` as one big-endian number, zeros after a shorter name (which
  /// sort first, as a prefix does): names in this order of their leading bytes are in
  /// ``precedes(_:_:)``'s order, but for those that share all eight.
  package static func leadingBytes(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
    var value: UInt64 = 0
    for index in 0..<8 { value = value << 8 | UInt64(index < bytes.count ? bytes[index] : 0) }
    return value
  }
}
