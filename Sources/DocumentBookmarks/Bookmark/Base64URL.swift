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

  /// Whether `byte` is one of the alphabet's characters.
  static func isAlphabet(_ byte: UInt8) -> Bool { decodeTable[Int(byte)] >= 0 }

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
    if let direct = text.withContiguousStorageIfAvailable({ decode(UnsafeRawBufferPointer($0)) }) {
      return direct
    }
    return Array(text).withUnsafeBytes { decode($0) }
  }

  /// ``decode(_:)-(some Collection<UInt8>)`` of text where it lies: into a temporary buffer
  /// (on the stack for the usual lengths), then into an array made at its final size (an
  /// array made uninitialized costs a lookup of its type's metadata on each call here).
  private static func decode(_ text: UnsafeRawBufferPointer) -> [UInt8]? {
    guard text.count % 4 != 1 else { return nil }
    return decodeTable.withUnsafeBufferPointer { table in
      withUnsafeTemporaryAllocation(of: UInt8.self, capacity: text.count * 3 / 4) { output in
        var accumulator: UInt32 = 0
        var bits: UInt32 = 0
        var written = 0
        for character in text {
          let value = table[Int(character)]
          guard value >= 0 else { return nil }
          accumulator = accumulator << 6 | UInt32(value)
          bits += 6
          if bits >= 8 {
            bits -= 8
            output[written] = UInt8(truncatingIfNeeded: accumulator >> bits)
            written += 1
          }
        }
        guard accumulator & ((1 << bits) - 1) == 0 else { return nil }
        return Array(UnsafeBufferPointer(rebasing: output[..<written]))
      }
    }
  }
}
