import CDocbmShims

/// Comparison of secrets (tags, keys) in time that depends only on their length, never on
/// where they first differ.
///
/// It is `docbm_constant_time_equal`, eight bytes at a time with an empty assembly
/// statement after each step, so that no compiler can turn it into an early exit (its
/// compiled loop has no branch on the data). OpenSSL's `CRYPTO_memcmp`, used before, goes
/// a byte at a time: 347 instructions of an unmoved resolve (the key's 46-byte value and
/// the 16-byte tag), against 142 now; libsodium's `sodium_memcmp`, before that, read each
/// byte through `volatile` and was a twentieth of the resolve.
package enum ConstantTime {
  /// Whether `a` and `b` hold the same bytes; `false` for different lengths.
  package static func equal(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
    guard a.count == b.count else { return false }
    guard let left = a.baseAddress, let right = b.baseAddress else { return true }
    return docbm_constant_time_equal(left, right, a.count) == 1
  }

  /// ``equal(_:_:)-(UnsafeRawBufferPointer,UnsafeRawBufferPointer)`` for any two byte
  /// collections: contiguous ones (arrays and their slices) are compared where they lie,
  /// others copied first.
  package static func equal(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
    let direct = a.withContiguousStorageIfAvailable { left in
      b.withContiguousStorageIfAvailable { right in
        equal(UnsafeRawBufferPointer(left), UnsafeRawBufferPointer(right))
      }
    }
    if let direct = direct ?? nil { return direct }
    return Array(a).withUnsafeBytes { left in Array(b).withUnsafeBytes { right in equal(left, right) } }
  }
}
