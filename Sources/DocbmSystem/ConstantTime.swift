import CCrypto

/// Comparison of secrets (tags, keys) in time that depends only on their length, never on
/// where they first differ.
///
/// The corresponding C function is OpenSSL's `CRYPTO_memcmp`, written so that no compiler
/// can turn it into an early exit.
package enum ConstantTime {
  /// Whether `a` and `b` hold the same bytes; `false` for different lengths.
  package static func equal(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
    guard a.count == b.count else { return false }
    guard let left = a.baseAddress, let right = b.baseAddress else { return true }
    return CRYPTO_memcmp(left, right, a.count) == 0
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
