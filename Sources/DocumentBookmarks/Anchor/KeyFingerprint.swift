import DocbmSystem

/// The public name of a document key: 8 bytes derived from the key with keyed BLAKE2b.
///
/// Bookmarks, output and the escrow refer to keys by fingerprint; the key itself is never
/// shown. Knowing a fingerprint reveals nothing useful about the key.
public struct KeyFingerprint: Hashable, Sendable, Codable, CustomStringConvertible {
  /// The fingerprint's length in bytes.
  public static let byteCount = 8

  /// The 8 bytes as one big-endian number, held in place.
  private let value: UInt64

  /// The fingerprint's bytes.
  public var bytes: [UInt8] { withUnsafeBytes { Array($0) } }

  /// Makes a fingerprint from its 8 bytes; `nil` for any other length.
  public init?(bytes: some Collection<UInt8>) {
    guard bytes.count == KeyFingerprint.byteCount else { return nil }
    value = bytes.reduce(0) { $0 << 8 | UInt64($1) }
  }

  /// The fingerprint whose eight bytes, read as one big-endian number, are `value`.
  init(value: UInt64) {
    self.value = value
  }

  /// Calls `body` with the 8 bytes, in place.
  func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
    try Swift.withUnsafeBytes(of: value.bigEndian, body)
  }

  /// Parses the printed form (`3f2a9c0e-5b7d1e04`, the dash optional).
  public init?(_ text: String) {
    self.init(printed: text.utf8)
  }

  /// Parses the printed form from its UTF-8 bytes: 16 hex digits (either case), dashes
  /// ignored; `nil` for anything else.
  init?(printed text: some Sequence<UInt8>) {
    var value: UInt64 = 0
    var digits = 0
    for character in text where character != UInt8(ascii: "-") {
      guard digits < 2 * KeyFingerprint.byteCount, let digit = Hex.value(of: character) else { return nil }
      value = value << 4 | UInt64(digit)
      digits += 1
    }
    guard digits == 2 * KeyFingerprint.byteCount else { return nil }
    self.init(value: value)
  }

  /// Sixteen lowercase hex digits in two groups: `3f2a9c0e-5b7d1e04`.
  public var description: String {
    // The digits written straight into the string.
    String(unsafeUninitializedCapacity: 17) { text in
      var at = 0
      for index in 0..<KeyFingerprint.byteCount {
        if index == 4 {
          text[at] = UInt8(ascii: "-")
          at += 1
        }
        (text[at], text[at + 1]) = Hex.digits(of: UInt8(truncatingIfNeeded: value >> (56 - 8 * index)))
        at += 2
      }
      return at
    }
  }

  public init(from decoder: any Decoder) throws {
    let text = try decoder.singleValueContainer().decode(String.self)
    guard let value = KeyFingerprint(text) else {
      throw DecodingError.dataCorrupted(
        .init(codingPath: decoder.codingPath, debugDescription: "not a key fingerprint: \(text)"))
    }
    self = value
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(description)
  }
}
