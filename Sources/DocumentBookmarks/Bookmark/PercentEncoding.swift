import DocbmSystem

/// `%XX` escapes, as file URIs and the Trash's info files write the bytes of a path.
package enum PercentEncoding {
  /// `text` with each `%XX` replaced by its byte; `nil` for a malformed escape or a NUL
  /// (no path holds one).
  package static func decode(_ text: some Collection<UInt8>) -> [UInt8]? {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(text.count)
    var index = text.startIndex
    while index != text.endIndex {
      let byte = text[index]
      index = text.index(after: index)
      guard byte == UInt8(ascii: "%") else {
        bytes.append(byte)
        continue
      }
      guard index != text.endIndex, let high = Hex.value(of: text[index]) else { return nil }
      index = text.index(after: index)
      guard index != text.endIndex, let low = Hex.value(of: text[index]) else { return nil }
      index = text.index(after: index)
      bytes.append(high << 4 | low)
    }
    return bytes.contains(0) ? nil : bytes
  }

  /// `bytes` with `%`, spaces, control bytes and DEL written as `%XX`: a path as one word
  /// of a line.
  package static func encode(_ bytes: some Sequence<UInt8>) -> [UInt8] {
    var text: [UInt8] = []
    for byte in bytes {
      if byte <= 0x20 || byte == 0x7F || byte == UInt8(ascii: "%") {
        // Upper-case digits, as URIs write escapes.
        let (high, low) = Hex.digits(of: byte, uppercase: true)
        text += [UInt8(ascii: "%"), high, low]
      } else {
        text.append(byte)
      }
    }
    return text
  }
}
