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
  init?(printed text: some Collection<UInt8>) {
    guard let bytes = Hex.decode(text.lazy.filter { $0 != UInt8(ascii: "-") }),
      bytes.count == KeyFingerprint.byteCount
    else { return nil }
    self.bytes = bytes
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
