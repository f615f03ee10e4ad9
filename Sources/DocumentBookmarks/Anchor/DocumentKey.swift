import DocbmSystem

/// A document's secret key: 256 random bits that sign every bookmark anchored on it.
///
/// The key never leaves this type except as MAC input and as the key attribute's value:
/// its `description` is redacted, and errors and output carry only its ``fingerprint``.
package struct DocumentKey: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
  /// The key's length in bytes.
  package static let byteCount = 32

  /// Context for the fingerprint hash, so fingerprints cannot be confused with other uses.
  private static let fingerprintContext = Array("docbm.key-fingerprint.v1".utf8)

  let bytes: [UInt8]
  /// The key's public name.
  package let fingerprint: KeyFingerprint

  /// Wraps existing key bytes; `nil` unless there are exactly 32.
  package init?(bytes: [UInt8]) {
    guard bytes.count == DocumentKey.byteCount else { return nil }
    self.bytes = bytes
    self.fingerprint = withUnsafeTemporaryAllocation(byteCount: 16, alignment: 8) { hash in
      Sodium.keyedHash(key: bytes, DocumentKey.fingerprintContext, into: hash)
      return KeyFingerprint(bytes: hash.prefix(KeyFingerprint.byteCount))!
    }
  }

  /// A new key from the operating system's random source.
  package static func random() -> DocumentKey {
    DocumentKey(bytes: Sodium.randomBytes(byteCount))!
  }

  /// HMAC-SHA-256 of `context` followed by `message`, under this key.
  func authenticate(context: [UInt8], _ message: ArraySlice<UInt8>) -> [UInt8] {
    HMACSHA256.tag(key: bytes, context[...], message)
  }

  /// Runs `body` with the HMAC-SHA-256 of `context` followed by `message`, in a stack
  /// buffer valid only during the call (nothing allocated).
  func withAuthentication<Result>(
    context: [UInt8], _ message: ArraySlice<UInt8>, _ body: (UnsafeRawBufferPointer) -> Result
  ) -> Result {
    withUnsafeTemporaryAllocation(byteCount: HMACSHA256.length, alignment: 16) { tag in
      HMACSHA256.writeTag(key: bytes, context[...], message, into: tag)
      return body(UnsafeRawBufferPointer(tag))
    }
  }

  /// Never prints the key.
  package var description: String { "DocumentKey(fingerprint: \(fingerprint))" }

  /// Never shows the key (`dump`, debuggers): only its fingerprint.
  package var customMirror: Mirror { Mirror(self, children: ["fingerprint": fingerprint]) }
}
