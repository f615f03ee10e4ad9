import CSodium

/// The few libsodium primitives docbm uses: random bytes, HMAC-SHA-256, keyed BLAKE2b and
/// constant-time comparison.
enum Sodium {
  /// `sodium_init()` runs once per process, before any other call.
  private static let initialized: Bool = sodium_init() >= 0

  private static func ensureInitialized() {
    precondition(initialized, "libsodium failed to initialise (sodium_init returned -1)")
  }

  /// `count` bytes from the operating system's random source.
  static func randomBytes(_ count: Int) -> [UInt8] {
    ensureInitialized()
    var bytes = [UInt8](repeating: 0, count: count)
    bytes.withUnsafeMutableBytes { randombytes_buf($0.baseAddress!, $0.count) }
    return bytes
  }

  /// HMAC-SHA-256 of the concatenation of `parts` under `key` (32 bytes).
  static func hmacSHA256(key: [UInt8], _ parts: ArraySlice<UInt8>...) -> [UInt8] {
    ensureInitialized()
    var state = crypto_auth_hmacsha256_state()
    var tag = [UInt8](repeating: 0, count: Int(crypto_auth_hmacsha256_BYTES))
    key.withUnsafeBufferPointer { _ = crypto_auth_hmacsha256_init(&state, $0.baseAddress!, $0.count) }
    for part in parts where !part.isEmpty {
      part.withUnsafeBufferPointer {
        _ = crypto_auth_hmacsha256_update(&state, $0.baseAddress!, UInt64($0.count))
      }
    }
    tag.withUnsafeMutableBufferPointer { _ = crypto_auth_hmacsha256_final(&state, $0.baseAddress!) }
    sodium_memzero(&state, MemoryLayout<crypto_auth_hmacsha256_state>.size)
    return tag
  }

  /// Keyed BLAKE2b of `message` with an output of `length` bytes (16…64).
  static func keyedHash(key: [UInt8], _ message: [UInt8], length: Int) -> [UInt8] {
    ensureInitialized()
    var output = [UInt8](repeating: 0, count: length)
    output.withUnsafeMutableBufferPointer { out in
      message.withUnsafeBufferPointer { input in
        key.withUnsafeBufferPointer { keyBuffer in
          _ = crypto_generichash(
            out.baseAddress!, out.count, input.baseAddress, UInt64(input.count),
            keyBuffer.baseAddress, keyBuffer.count)
        }
      }
    }
    return output
  }

  /// Whether `a` and `b` are equal, in time that depends only on their length.
  static func constantTimeEqual(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
    ensureInitialized()
    // Contiguous storage (arrays and their slices) is compared where it lies; anything
    // else is copied first.
    let direct = a.withContiguousStorageIfAvailable { left in
      b.withContiguousStorageIfAvailable { right in
        equal(UnsafeRawBufferPointer(left), UnsafeRawBufferPointer(right))
      }
    }
    if let direct = direct ?? nil { return direct }
    return Array(a).withUnsafeBytes { left in Array(b).withUnsafeBytes { right in equal(left, right) } }
  }

  private static func equal(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> Bool {
    guard left.count == right.count, left.count > 0 else { return left.count == right.count }
    return sodium_memcmp(left.baseAddress, right.baseAddress, left.count) == 0
  }
}
