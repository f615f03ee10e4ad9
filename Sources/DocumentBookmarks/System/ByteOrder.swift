import Glibc

/// The bytewise order of file names (as `LC_ALL=C ls` sorts them): tree walks list folders
/// in it, and the escrow's catalog keeps its records in it.
enum ByteOrder {
  /// Whether `a` sorts before `b`, comparing bytes with `memcmp`, a prefix first.
  static func precedes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    a.withUnsafeBufferPointer { left in
      b.withUnsafeBufferPointer { right in
        guard let leftBytes = left.baseAddress, let rightBytes = right.baseAddress else {
          return left.count < right.count
        }
        let order = memcmp(leftBytes, rightBytes, min(left.count, right.count))
        return order != 0 ? order < 0 : left.count < right.count
      }
    }
  }
}
