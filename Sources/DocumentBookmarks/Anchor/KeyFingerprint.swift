/// The public name of a document key: 8 bytes derived from the key with keyed BLAKE2b.
///
/// Bookmarks, output and the escrow refer to keys by fingerprint; the key itself is never
/// shown. Knowing a fingerprint reveals nothing useful about the key.
public struct KeyFingerprint: Hashable, Sendable, Codable, CustomStringConvertible {
  /// The fingerprint's length in bytes.
  public static let byteCount = 8

  /// The fingerprint's bytes.
  public let bytes: [UInt8]

  /// Makes a fingerprint from its 8 bytes; `nil` for any other length.
  public init?(bytes: some Collection<UInt8>) {
    guard bytes.count == KeyFingerprint.byteCount else { return nil }
    self.bytes = Array(bytes)
  }

  /// Parses the printed form (`3f2a9c0e-5b7d1e04`, the dash optional).
  public init?(_ text: String) {
    self.init(printed: text.utf8)
  }

  /// Parses the printed form from its UTF-8 bytes: 16 hex digits, dashes ignored.
  init?(printed text: some Sequence<UInt8>) {
    var digits: (UInt64, Int) = (0, 0)
    for character in text where character != UInt8(ascii: "-") {
      guard digits.1 < 2 * KeyFingerprint.byteCount, let value = Hex.digitValue(character) else { return nil }
      digits = (digits.0 << 4 | UInt64(value), digits.1 + 1)
    }
    guard digits.1 == 2 * KeyFingerprint.byteCount else { return nil }
    let value = digits.0
    self.bytes = (0..<KeyFingerprint.byteCount).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) }
  }

  /// Sixteen lowercase hex digits in two groups: `3f2a9c0e-5b7d1e04`.
  public var description: String {
    let digits = Array("0123456789abcdef".utf8)
    var text: [UInt8] = []
    text.reserveCapacity(17)
    for (index, byte) in bytes.enumerated() {
      if index == 4 { text.append(UInt8(ascii: "-")) }
      text.append(digits[Int(byte >> 4)])
      text.append(digits[Int(byte & 0x0F)])
    }
    return String(decoding: text, as: UTF8.self)
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
