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
  /// stored property). Each name's first 8 bytes are compared as one number (a shorter
  /// name is padded with zeros, which sort first, as a prefix does); only names that share
  /// them are compared whole. A folder's listing is sorted this way on every walk.
  static func sort<Item>(_ items: inout [Item], byName name: (Item) -> [UInt8]) {
    guard items.count > 1 else { return }
    var keys = [(prefix: UInt64, index: Int)]()
    keys.reserveCapacity(items.count)
    for index in items.indices { keys.append((leadingBytes(name(items[index])), index)) }
    keys.sort { a, b in
      a.prefix != b.prefix ? a.prefix < b.prefix : precedes(name(items[a.index]), name(items[b.index]))
    }
    items = keys.map { items[$0.index] }
  }

  /// The first 8 bytes of `bytes` as a big-endian number, zeros after a shorter name.
  private static func leadingBytes(_ bytes: [UInt8]) -> UInt64 {
    var value: UInt64 = 0
    for index in 0..<8 { value = value << 8 | UInt64(index < bytes.count ? bytes[index] : 0) }
    return value
  }
}
