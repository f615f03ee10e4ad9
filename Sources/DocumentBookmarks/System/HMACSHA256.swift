import CCrypto

/// HMAC-SHA-256 (RFC 2104) over OpenSSL's SHA-256, which uses the CPU's SHA instructions
/// where present (libsodium's SHA-256 is portable C). Nothing is allocated on the heap: the
/// hash states, the padded key and the digests live on the stack and are wiped after use.
package enum HMACSHA256 {
  /// The tag's length in bytes.
  package static let length = 32
  private static let blockSize = 64

  /// Runs `body` with the HMAC of `first` followed by `second` under `key` (at most 64
  /// bytes), in a buffer valid only during the call.
  /// The corresponding C functions are libcrypto's `SHA256_Init`, `SHA256_Update` and
  /// `SHA256_Final`.
  package static func withTag<Result>(
    key: [UInt8], _ first: ArraySlice<UInt8>, _ second: ArraySlice<UInt8>,
    _ body: (UnsafeRawBufferPointer) -> Result
  ) -> Result {
    precondition(
      key.count <= blockSize, "HMAC keys longer than a block are hashed first; docbm's are 32 bytes")
    return withUnsafeTemporaryAllocation(byteCount: blockSize + 2 * length, alignment: 16) { scratch in
      let pad = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<blockSize])
      let inner = UnsafeMutableRawBufferPointer(rebasing: scratch[blockSize..<(blockSize + length)])
      let tag = UnsafeMutableRawBufferPointer(rebasing: scratch[(blockSize + length)...])
      var context = SHA256_CTX()
      defer {
        OPENSSL_cleanse(&context, MemoryLayout<SHA256_CTX>.size)
        OPENSSL_cleanse(scratch.baseAddress, scratch.count)
      }
      // Inner hash: (key ⊕ ipad) ‖ message.
      fillPad(pad, key: key, with: 0x36)
      SHA256_Init(&context)
      SHA256_Update(&context, pad.baseAddress, pad.count)
      // Each part on its own (an array of the two would be allocated on every call).
      if !first.isEmpty { first.withUnsafeBytes { _ = SHA256_Update(&context, $0.baseAddress, $0.count) } }
      if !second.isEmpty { second.withUnsafeBytes { _ = SHA256_Update(&context, $0.baseAddress, $0.count) } }
      SHA256_Final(inner.baseAddress!.assumingMemoryBound(to: UInt8.self), &context)
      // Outer hash: (key ⊕ opad) ‖ inner.
      fillPad(pad, key: key, with: 0x5C)
      SHA256_Init(&context)
      SHA256_Update(&context, pad.baseAddress, pad.count)
      SHA256_Update(&context, inner.baseAddress, inner.count)
      SHA256_Final(tag.baseAddress!.assumingMemoryBound(to: UInt8.self), &context)
      return body(UnsafeRawBufferPointer(tag))
    }
  }

  /// The HMAC of the concatenation of `parts` under `key`, as an array.
  package static func tag(key: [UInt8], _ first: ArraySlice<UInt8>, _ second: ArraySlice<UInt8> = [])
    -> [UInt8]
  {
    withTag(key: key, first, second) { Array($0) }
  }

  private static func fillPad(_ pad: UnsafeMutableRawBufferPointer, key: [UInt8], with byte: UInt8) {
    for index in 0..<pad.count {
      pad[index] = (index < key.count ? key[index] : 0) ^ byte
    }
  }
}
