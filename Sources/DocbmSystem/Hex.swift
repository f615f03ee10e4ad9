/// Hexadecimal digits for bytes, and back: the one place docbm writes or reads them (key
/// fingerprints, the random parts of temporary names, percent escapes, the `\xNN` of a
/// path's bytes shown as text).
package enum Hex {
  private static let lowercase: StaticString = "0123456789abcdef"
  private static let uppercase: StaticString = "0123456789ABCDEF"

  /// The two digits of `byte`, the high one first: lowercase, or uppercase (as URIs write
  /// their escapes).
  package static func digits(of byte: UInt8, uppercase: Bool = false) -> (high: UInt8, low: UInt8) {
    let digits = uppercase ? Hex.uppercase.utf8Start : Hex.lowercase.utf8Start
    return (digits[Int(byte >> 4)], digits[Int(byte & 0x0F)])
  }

  /// Two lowercase digits per byte.
  package static func encode(_ bytes: [UInt8]) -> String {
    var text: [UInt8] = []
    text.reserveCapacity(bytes.count * 2)
    for byte in bytes {
      let (high, low) = digits(of: byte)
      text.append(high)
      text.append(low)
    }
    return String(decoding: text, as: UTF8.self)
  }

  /// The value of one hex digit (either case); `nil` for any other character.
  package static func value(of character: UInt8) -> UInt8? {
    switch character {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
    default: nil
    }
  }
}
