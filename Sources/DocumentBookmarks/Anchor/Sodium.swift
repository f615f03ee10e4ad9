import CSodium

/// The few libsodium primitives docbm uses: random bytes and keyed BLAKE2b. (HMAC-SHA-256 is ``HMACSHA256``, over OpenSSL's SHA-256, which uses the
/// CPU's SHA instructions; libsodium's SHA-256 is portable C and took half of a resolve.
/// Comparisons of secrets are ``ConstantTime``'s.)
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
}
