/// Lowercase hexadecimal text for bytes, and back: fingerprints, and the random tokens of
/// temporary names.
enum Hex {
  private static let digits = Array("0123456789abcdef".utf8)

  /// Two lowercase digits per byte.
  static func encode(_ bytes: some Collection<UInt8>) -> String {
    var text: [UInt8] = []
    text.reserveCapacity(bytes.count * 2)
    for byte in bytes {
      text.append(digits[Int(byte >> 4)])
      text.append(digits[Int(byte & 0x0F)])
    }
    return String(decoding: text, as: UTF8.self)
  }

  /// The bytes of an even number of hex digits (either case); `nil` for anything else.
  /// Decoded into a temporary buffer, then made an array at its final size (an array made
  /// uninitialized costs a lookup of its type's metadata on each call here).
  static func decode(_ text: some Collection<UInt8>) -> [UInt8]? {
    guard text.count % 2 == 0 else { return nil }
    return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: text.count / 2) { bytes in
      var high: UInt8?
      var count = 0
      for character in text {
        guard let value = value(of: character) else { return nil }
        if let pending = high {
          bytes[count] = pending << 4 | value
          count += 1
          high = nil
        } else {
          high = value
        }
      }
      return Array(UnsafeBufferPointer(rebasing: bytes[..<count]))
    }
  }

  /// The value of one hex digit (either case); `nil` for any other character.
  static func value(of character: UInt8) -> UInt8? {
    switch character {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
    default: nil
    }
  }
}
