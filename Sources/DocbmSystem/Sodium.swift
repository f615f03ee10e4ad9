import CSodium

/// The libsodium primitives docbm uses: random bytes and keyed BLAKE2b. (HMAC-SHA-256 is
/// ``HMACSHA256``'s, over OpenSSL's SHA-256, which uses the CPU's SHA instructions;
/// comparisons of secrets are ``ConstantTime``'s.)
package enum Sodium {
  /// `sodium_init()` runs once per process, before any other call.
  private static let initialized: Bool = sodium_init() >= 0

  private static func ensureInitialized() {
    precondition(initialized, "libsodium failed to initialise (sodium_init returned -1)")
  }

  /// `count` bytes from the operating system's random source.
  /// The corresponding C function is `randombytes_buf`.
  package static func randomBytes(_ count: Int) -> [UInt8] {
    ensureInitialized()
    var bytes = [UInt8](repeating: 0, count: count)
    bytes.withUnsafeMutableBytes { randombytes_buf($0.baseAddress!, $0.count) }
    return bytes
  }

  /// Writes the keyed BLAKE2b of `message` into `out` (its whole length, 16…64 bytes; the
  /// caller's temporary storage: a key's fingerprint is hashed for every document checked,
  /// and needs none of it kept).
  /// The corresponding C function is `crypto_generichash`.
  package static func keyedHash(key: [UInt8], _ message: [UInt8], into out: UnsafeMutableRawBufferPointer) {
    ensureInitialized()
    message.withUnsafeBufferPointer { input in
      key.withUnsafeBufferPointer { keyBuffer in
        _ = crypto_generichash(
          out.baseAddress!.assumingMemoryBound(to: UInt8.self), out.count, input.baseAddress,
          UInt64(input.count), keyBuffer.baseAddress, keyBuffer.count)
      }
    }
  }
}
