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

  /// Sorts `items` in the bytewise order of their names (`name`, which must be cheap: a
  /// stored property). Each name's first 8 bytes, as one number (a shorter name is padded
  /// with zeros, which sort first, as a prefix does), and its index are sorted as one
  /// 128-bit integer, without a closure per comparison; only runs of names that share
  /// their first 8 bytes are then sorted again by whole name. A folder's listing is sorted
  /// this way on every walk.
  static func sort<Item>(_ items: inout [Item], byName name: (Item) -> [UInt8]) {
    guard items.count > 1 else { return }
    var keys = [UInt128]()
    keys.reserveCapacity(items.count)
    for index in items.indices {
      keys.append(UInt128(leadingBytes(name(items[index]))) << 64 | UInt128(index))
    }
    keys.sort()
    var runStart = 0
    for end in 1...keys.count where end == keys.count || keys[end] >> 64 != keys[runStart] >> 64 {
      if end - runStart > 1 {
        keys[runStart..<end].sort { a, b in
          precedes(name(items[Int(truncatingIfNeeded: a)]), name(items[Int(truncatingIfNeeded: b)]))
        }
      }
      runStart = end
    }
    items = keys.map { items[Int(truncatingIfNeeded: $0)] }
  }

  /// The first 8 bytes of `bytes` as a big-endian number, zeros after a shorter name.
  private static func leadingBytes(_ bytes: [UInt8]) -> UInt64 {
    var value: UInt64 = 0
    for index in 0..<8 { value = value << 8 | UInt64(index < bytes.count ? bytes[index] : 0) }
    return value
  }
}
