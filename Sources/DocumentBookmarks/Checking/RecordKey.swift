/// A record's last 16 bytes, its tag, as a table key for records already judged.
///
/// Whole records (up to 10 KiB) are not hashed: the tag is a MAC over every other byte, so
/// genuine records that differ have different tags; a table keyed by the tag keeps one
/// record per tag and compares the whole record on a hit, so crafted records that share a
/// tag cost one comparison each, never a growing chain.
struct RecordKey: Hashable {
  let high: UInt64
  let low: UInt64

  /// The key of `bytes`, a record at least 16 bytes long.
  init(_ bytes: [UInt8]) {
    precondition(bytes.count >= 16, "a record ends with a 16-byte tag")
    (high, low) = bytes.withUnsafeBytes { raw in
      let reader = ByteReader(raw)
      return (
        reader.bigEndian(UInt64.self, at: raw.count - 16)!, reader.bigEndian(UInt64.self, at: raw.count - 8)!
      )
    }
  }

  /// Whether two records are the same bytes.
  static func sameRecord(_ left: [UInt8], _ right: [UInt8]) -> Bool { left == right }
}
