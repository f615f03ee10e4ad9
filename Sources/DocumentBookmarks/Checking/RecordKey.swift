/// A record's bytes as a table key, hashed as one block (an array of bytes hashes them one
/// at a time, which for records of up to 10 KiB costs more than verifying them).
struct RecordKey: Hashable {
  let bytes: [UInt8]

  func hash(into hasher: inout Hasher) {
    bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
  }

  /// Compares eight bytes at a time (an array of bytes compares them one at a time).
  static func == (left: RecordKey, right: RecordKey) -> Bool {
    guard left.bytes.count == right.bytes.count else { return false }
    return left.bytes.withUnsafeBytes { a in
      right.bytes.withUnsafeBytes { b in
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
