import CCrypto

/// HMAC-SHA-256 (RFC 2104) over OpenSSL's SHA-256, which uses the CPU's SHA instructions
/// where present (libsodium's SHA-256 is portable C). Nothing is allocated on the heap: the
/// hash states, the padded key and the digests live on the stack and are wiped after use.
package enum HMACSHA256 {
  /// The tag's length in bytes.
  package static let length = 32
  fileprivate static let blockSize = 64

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

  fileprivate static func fillPad(_ pad: UnsafeMutableRawBufferPointer, key: [UInt8], with byte: UInt8) {
    for index in 0..<pad.count {
      pad[index] = (index < key.count ? key[index] : 0) ^ byte
    }
  }
}

extension HMACSHA256 {
  /// HMAC-SHA-256 under one key, with the key's two padded blocks hashed once: each tag
  /// then costs two SHA-256 blocks fewer than ``HMACSHA256/withTag(key:_:_:_:)`` (a third of
  /// a bookmark's MAC). The two hash states are as secret as the key: they are kept in
  /// memory of their own and wiped when the schedule goes away.
  ///
  /// Immutable once made, so one schedule serves any number of threads at once.
  package final class Schedule: @unchecked Sendable {
    /// The hash states after `(key ⊕ ipad)` and after `(key ⊕ opad)`.
    private let states: UnsafeMutablePointer<SHA256_CTX>

    /// The schedule of `key` (at most 64 bytes).
    package init(key: [UInt8]) {
      precondition(
        key.count <= blockSize, "HMAC keys longer than a block are hashed first; docbm's are 32 bytes")
      states = .allocate(capacity: 2)
      withUnsafeTemporaryAllocation(byteCount: blockSize, alignment: 16) { pad in
        for (index, byte) in [UInt8(0x36), 0x5C].enumerated() {
          HMACSHA256.fillPad(pad, key: key, with: byte)
          (states + index).initialize(to: SHA256_CTX())
          SHA256_Init(states + index)
          SHA256_Update(states + index, pad.baseAddress, pad.count)
        }
        OPENSSL_cleanse(pad.baseAddress, pad.count)
      }
    }

    deinit {
      OPENSSL_cleanse(states, 2 * MemoryLayout<SHA256_CTX>.size)
      states.deallocate()
    }

    /// Runs `body` with the HMAC of `first` followed by `second`, in a stack buffer valid
    /// only during the call (nothing allocated).
    package func withTag<Result>(
      _ first: ArraySlice<UInt8>, _ second: ArraySlice<UInt8>, _ body: (UnsafeRawBufferPointer) -> Result
    ) -> Result {
      withUnsafeTemporaryAllocation(byteCount: 2 * length, alignment: 16) { scratch in
        let inner = scratch.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let tag = inner + length
        var context = states[0]
        defer {
          OPENSSL_cleanse(&context, MemoryLayout<SHA256_CTX>.size)
          OPENSSL_cleanse(scratch.baseAddress, scratch.count)
        }
        if !first.isEmpty { first.withUnsafeBytes { _ = SHA256_Update(&context, $0.baseAddress, $0.count) } }
        if !second.isEmpty {
          second.withUnsafeBytes { _ = SHA256_Update(&context, $0.baseAddress, $0.count) }
        }
        SHA256_Final(inner, &context)
        context = states[1]
        SHA256_Update(&context, inner, length)
        SHA256_Final(tag, &context)
        return body(UnsafeRawBufferPointer(start: tag, count: length))
      }
    }
  }
}
