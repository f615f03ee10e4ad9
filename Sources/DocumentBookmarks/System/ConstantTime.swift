/// Comparison of secrets (tags, keys) in time that depends only on their length, never on
/// where they first differ.
///
/// The bytes are compared eight at a time and the differences gathered into one word,
/// which is looked at once at the end: no branch depends on the bytes. (libsodium's
/// `sodium_memcmp` compares one byte at a time through `volatile` reads; it was a twentieth
/// of an unmoved resolve.)
enum ConstantTime {
  /// Whether `a` and `b` hold the same bytes; `false` for different lengths.
  static func equal(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
    guard a.count == b.count else { return false }
    var difference: UInt64 = 0
    var index = 0
    while index + 8 <= a.count {
      difference |=
        a.loadUnaligned(fromByteOffset: index, as: UInt64.self)
        ^ b.loadUnaligned(fromByteOffset: index, as: UInt64.self)
      index += 8
    }
    while index < a.count {
      difference |= UInt64(a[index] ^ b[index])
      index += 1
    }
    return difference == 0
  }

  /// ``equal(_:_:)-(UnsafeRawBufferPointer,UnsafeRawBufferPointer)`` for any two byte
  /// collections: contiguous ones (arrays and their slices) are compared where they lie,
  /// others copied first.
  static func equal(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
    let direct = a.withContiguousStorageIfAvailable { left in
      b.withContiguousStorageIfAvailable { right in
        equal(UnsafeRawBufferPointer(left), UnsafeRawBufferPointer(right))
      }
    }
    if let direct = direct ?? nil { return direct }
    return Array(a).withUnsafeBytes { left in Array(b).withUnsafeBytes { right in equal(left, right) } }
  }
}
