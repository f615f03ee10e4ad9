/// A record's last 16 bytes, its tag, as a table key for records already judged.
///
/// Hashing whole records of up to 10 KiB would cost about as much as decoding them. The tag
/// is a MAC over every other byte, so genuine records that differ have different tags; a
/// table keyed by the tag keeps one record per tag and compares the whole record on a hit,
/// so crafted records that share a tag cost one comparison each, never a growing chain.
struct RecordKey: Hashable {
  let high: UInt64
  let low: UInt64

  /// The key of `bytes`, a record at least 16 bytes long.
  init(_ bytes: [UInt8]) {
    precondition(bytes.count >= 16, "a record ends with a 16-byte tag")
    (high, low) = bytes.withUnsafeBytes { raw in
      (
        raw.loadUnaligned(fromByteOffset: raw.count - 16, as: UInt64.self),
        raw.loadUnaligned(fromByteOffset: raw.count - 8, as: UInt64.self)
      )
    }
  }

  /// Whether two records are the same bytes, compared eight bytes at a time (an array of
  /// bytes compares them one at a time).
  static func sameRecord(_ left: [UInt8], _ right: [UInt8]) -> Bool {
    guard left.count == right.count else { return false }
    return left.withUnsafeBytes { a in
      right.withUnsafeBytes { b in
        var index = 0
        while index + 8 <= a.count {
          let word = a.loadUnaligned(fromByteOffset: index, as: UInt64.self)
          guard word == b.loadUnaligned(fromByteOffset: index, as: UInt64.self) else { return false }
          index += 8
        }
        while index < a.count {
          guard a[index] == b[index] else { return false }
          index += 1
        }
        return true
      }
    }
  }
}
