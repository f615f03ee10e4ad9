import CCrypto
import Glibc

/// HMAC-SHA-256 (RFC 2104) over OpenSSL's SHA-256, which uses the CPU's SHA instructions
/// where present (libsodium's SHA-256 is portable C). Nothing is allocated on the heap: the
/// hash states, the padded key and the digests live on the stack and are wiped after use.
package enum HMACSHA256 {
  /// The tag's length in bytes.
  package static let length = 32
  fileprivate static let blockSize = 64

  /// Writes the HMAC of `first` followed by `second` under `key` (at most 64 bytes) into
  /// `tag` (``length`` bytes, the caller's temporary storage).
  /// The corresponding C functions are libcrypto's `SHA256_Init`, `SHA256_Update` and
  /// `SHA256_Final`.
  package static func writeTag(
    key: [UInt8], _ first: ArraySlice<UInt8>, _ second: ArraySlice<UInt8>,
    into tag: UnsafeMutableRawBufferPointer
  ) {
    var inner = SHA256_CTX()
    var outer = SHA256_CTX()
    defer {
      explicit_bzero(&inner, MemoryLayout<SHA256_CTX>.size)
      explicit_bzero(&outer, MemoryLayout<SHA256_CTX>.size)
    }
    startStates(key: key, inner: &inner, outer: &outer)
    finish(inner: &inner, outer: &outer, first, second, into: tag)
  }

  /// The HMAC of the concatenation of `parts` under `key`, as an array.
  package static func tag(key: [UInt8], _ first: ArraySlice<UInt8>, _ second: ArraySlice<UInt8> = [])
    -> [UInt8]
  {
    var tag = [UInt8](repeating: 0, count: length)
    tag.withUnsafeMutableBytes { writeTag(key: key, first, second, into: $0) }
    return tag
  }

  /// The hash states after `(key ⊕ ipad)` and after `(key ⊕ opad)`, where every tag under
  /// `key` starts.
  fileprivate static func startStates(
    key: [UInt8], inner: UnsafeMutablePointer<SHA256_CTX>, outer: UnsafeMutablePointer<SHA256_CTX>
  ) {
    precondition(
      key.count <= blockSize, "HMAC keys longer than a block are hashed first; docbm's are 32 bytes")
    withUnsafeTemporaryAllocation(byteCount: blockSize, alignment: 16) { pad in
      // The key, zero-padded to a block, then XORed with each pad eight bytes at a time.
      pad.initializeMemory(as: UInt8.self, repeating: 0)
      key.withUnsafeBytes { pad.copyMemory(from: $0) }
      func xor(_ byte: UInt64) {
        for offset in stride(from: 0, to: blockSize, by: 8) {
          let word = pad.load(fromByteOffset: offset, as: UInt64.self) ^ (byte &* 0x0101_0101_0101_0101)
          pad.storeBytes(of: word, toByteOffset: offset, as: UInt64.self)
        }
      }
      xor(0x36)
      SHA256_Init(inner)
      SHA256_Update(inner, pad.baseAddress, pad.count)
      xor(0x36 ^ 0x5C)
      SHA256_Init(outer)
      SHA256_Update(outer, pad.baseAddress, pad.count)
      explicit_bzero(pad.baseAddress!, pad.count)
    }
  }

  /// The tag from the two start states (read where they are, so that no copy of them is
  /// left unwiped): the inner hash of `first` ‖ `second`, then the outer hash of that
  /// digest, written into `tag`. The working state and the inner digest share one stack
  /// buffer, wiped with one call afterwards.
  fileprivate static func finish(
    inner: UnsafePointer<SHA256_CTX>, outer: UnsafePointer<SHA256_CTX>, _ first: ArraySlice<UInt8>,
    _ second: ArraySlice<UInt8>, into tag: UnsafeMutableRawBufferPointer
  ) {
    precondition(tag.count == length, "an HMAC-SHA-256 tag is 32 bytes")
    let contextSize = MemoryLayout<SHA256_CTX>.stride
    withUnsafeTemporaryAllocation(
      byteCount: contextSize + length, alignment: MemoryLayout<SHA256_CTX>.alignment
    ) { scratch in
      let context = scratch.baseAddress!.assumingMemoryBound(to: SHA256_CTX.self)
      let digest = (scratch.baseAddress! + contextSize).assumingMemoryBound(to: UInt8.self)
      defer { explicit_bzero(scratch.baseAddress!, scratch.count) }
      context.initialize(to: inner.pointee)
      // Each part on its own (an array of the two would be allocated on every call).
      if !first.isEmpty { first.withUnsafeBytes { _ = SHA256_Update(context, $0.baseAddress, $0.count) } }
      if !second.isEmpty { second.withUnsafeBytes { _ = SHA256_Update(context, $0.baseAddress, $0.count) } }
      SHA256_Final(digest, context)
      context.pointee = outer.pointee
      SHA256_Update(context, digest, length)
      SHA256_Final(tag.baseAddress!.assumingMemoryBound(to: UInt8.self), context)
    }
  }
}

extension HMACSHA256 {
  /// HMAC-SHA-256 under one key of messages that all start with one prefix, with the key's
  /// two padded blocks and the prefix hashed once: each tag then costs two SHA-256 blocks
  /// fewer than ``HMACSHA256/withTag(key:_:_:_:)`` (a third of a bookmark's MAC), and one
  /// update call. The two hash states are as secret as the key: they are kept in memory
  /// of their own and wiped when the schedule goes away.
  ///
  /// Immutable once made, so one schedule serves any number of threads at once.
  package final class Schedule: @unchecked Sendable {
    /// The hash states after `(key ⊕ ipad) ‖ prefix` and after `(key ⊕ opad)`.
    private let states: UnsafeMutablePointer<SHA256_CTX>

    /// The schedule of `key` (at most 64 bytes) for messages that start with `prefix`.
    package init(key: [UInt8], prefix: [UInt8] = []) {
      states = .allocate(capacity: 2)
      states.initialize(repeating: SHA256_CTX(), count: 2)
      HMACSHA256.startStates(key: key, inner: states, outer: states + 1)
      if !prefix.isEmpty { prefix.withUnsafeBytes { _ = SHA256_Update(states, $0.baseAddress, $0.count) } }
    }

    deinit {
      explicit_bzero(states, 2 * MemoryLayout<SHA256_CTX>.size)
      states.deallocate()
    }

    /// Runs `body` with the HMAC of the prefix followed by `message`, in a stack buffer
    /// valid only during the call (nothing allocated).
    /// The HMAC of the prefix followed by `message`, as an array.
    package func tag(_ message: ArraySlice<UInt8>) -> [UInt8] {
      var tag = [UInt8](repeating: 0, count: HMACSHA256.length)
      tag.withUnsafeMutableBytes { writeTag(message, into: $0) }
      return tag
    }

    /// Writes the HMAC of the prefix followed by `message` into `tag` (``length`` bytes,
    /// the caller's temporary storage: nothing is allocated).
    package func writeTag(_ message: ArraySlice<UInt8>, into tag: UnsafeMutableRawBufferPointer) {
      HMACSHA256.finish(inner: states, outer: states + 1, [], message, into: tag)
    }
  }
}
