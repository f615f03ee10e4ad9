/// Base64 with the URL- and filename-safe alphabet (RFC 4648 §5), without padding: the
/// alphabet of the bookmark text form. Its characters need no escaping in JSON, XML or
/// plain text.
enum Base64URL {
  private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

  private static let decodeTable: [Int8] = {
    var table = [Int8](repeating: -1, count: 256)
    for (index, character) in alphabet.enumerated() { table[Int(character)] = Int8(index) }
    return table
  }()

  static func encode(_ bytes: [UInt8]) -> String {
    var output: [UInt8] = []
    output.reserveCapacity((bytes.count * 4 + 2) / 3)
    var index = 0
    while index + 3 <= bytes.count {
      let value = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
      output += [18, 12, 6, 0].map { alphabet[Int((value >> $0) & 0x3F)] }
      index += 3
    }
    let rest = bytes.count - index
    if rest == 1 {
      let value = UInt32(bytes[index]) << 16
      output += [18, 12].map { alphabet[Int((value >> $0) & 0x3F)] }
    } else if rest == 2 {
      let value = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8
      output += [18, 12, 6].map { alphabet[Int((value >> $0) & 0x3F)] }
    }
    return String(decoding: output, as: UTF8.self)
  }

  /// Decodes strictly: only the URL-safe alphabet, no padding, no whitespace, and unused
  /// trailing bits must be zero (so each byte string has exactly one text form).
  static func decode(_ text: some Collection<UInt8>) -> [UInt8]? {
    guard text.count % 4 != 1 else { return nil }
    var output: [UInt8] = []
    output.reserveCapacity(text.count * 3 / 4)
    var accumulator: UInt32 = 0
    var bits = 0
    for character in text {
      let value = decodeTable[Int(character)]
      guard value >= 0 else { return nil }
      accumulator = accumulator << 6 | UInt32(value)
      bits += 6
      if bits >= 8 {
        bits -= 8
        output.append(UInt8((accumulator >> UInt32(bits)) & 0xFF))
      }
    }
    guard accumulator & ((1 << UInt32(bits)) - 1) == 0 else { return nil }
    return output
  }
}
