import Glibc

/// The bytewise order of file names (as `LC_ALL=C ls` sorts them): tree walks list folders
/// in it.
enum ByteOrder {
  /// The indices `0..<count` in the bytewise order of the names they stand for, each in
  /// the low 64 bits of its key. Each name's first 8 bytes (`leadingBytes`, as one number;
  /// a shorter name padded with zeros, which sort first, as a prefix does) and its index
  /// are sorted as one 128-bit integer, with no closure per comparison; only runs of names
  /// that share their first 8 bytes are then sorted again by whole name (`precedes`), in
  /// a stable way.
  static func order(
    count: Int, leadingBytes: (Int) -> UInt64, precedes: (Int, Int) -> Bool
  ) -> [UInt128] {
    var keys = [UInt128]()
    keys.reserveCapacity(count)
    for index in 0..<count { keys.append(UInt128(leadingBytes(index)) << 64 | UInt128(index)) }
    sortDistinct(&keys)
    var runStart = 0
    for end in 1..<(count + 1) where end == count || keys[end] >> 64 != keys[runStart] >> 64 {
      if end - runStart > 1 {
        keys[runStart..<end].sort { precedes(Int(truncatingIfNeeded: $0), Int(truncatingIfNeeded: $1)) }
      }
      runStart = end
    }
    return keys
  }

  /// Sorts distinct keys (each holds its index) in place, ascending: an introsort
  /// (quicksort with the middle key as pivot, insertion sort for short ranges, heapsort past
  /// `depthLimit` levels, by default twice the bits of the count). The keys being distinct,
  /// stability does not matter; the standard library's stable sort cost several times as
  /// much on a folder's worth of names.
  static func sortDistinct(_ keys: inout [UInt128], depthLimit: Int? = nil) {
    guard keys.count > 1 else { return }
    let limit = depthLimit ?? 2 * (Int.bitWidth - keys.count.leadingZeroBitCount)
    keys.withUnsafeMutableBufferPointer { introsort($0, 0, $0.count - 1, limit) }
  }

  /// Sorts `keys[low...high]`.
  private static func introsort(
    _ keys: UnsafeMutableBufferPointer<UInt128>, _ low: Int, _ high: Int, _ depthLimit: Int
  ) {
    var low = low
    var high = high
    var depthLimit = depthLimit
    while high - low >= 16 {
      if depthLimit == 0 {
        heapsort(keys, low, high)
        return
      }
      depthLimit -= 1
      // Hoare's partition: keys[low...split] before the pivot's place, the rest after.
      let pivot = keys[low + (high - low) / 2]
      var i = low - 1
      var j = high + 1
      while true {
        repeat { i += 1 } while keys[i] < pivot
        repeat { j -= 1 } while keys[j] > pivot
        if i >= j { break }
        keys.swapAt(i, j)
      }
      // The smaller side first, by recursion; the larger by the loop (depth stays small).
      if j - low < high - j {
        introsort(keys, low, j, depthLimit)
        low = j + 1
      } else {
        introsort(keys, j + 1, high, depthLimit)
        high = j
      }
    }
    // Insertion sort of what is left.
    if low >= high { return }
    for index in (low + 1)...high {
      let key = keys[index]
      var place = index
      while place > low, keys[place - 1] > key {
        keys[place] = keys[place - 1]
        place -= 1
      }
      keys[place] = key
    }
  }

  /// Sorts `keys[low...high]` by heapsort (the introsort's bound on quicksort's depth).
  private static func heapsort(_ keys: UnsafeMutableBufferPointer<UInt128>, _ low: Int, _ high: Int) {
    let count = high - low + 1
    func siftDown(_ start: Int, _ end: Int) {
      var root = start
      while 2 * root + 1 < end {
        var child = 2 * root + 1
        if child + 1 < end, keys[low + child] < keys[low + child + 1] { child += 1 }
        guard keys[low + root] < keys[low + child] else { return }
        keys.swapAt(low + root, low + child)
        root = child
      }
    }
    for start in stride(from: count / 2 - 1, through: 0, by: -1) { siftDown(start, count) }
    for end in stride(from: count - 1, to: 0, by: -1) {
      keys.swapAt(low, low + end)
      siftDown(0, end)
    }
  }

  /// Whether the name at `a` sorts before the one at `b`, comparing bytes with `memcmp`, a
  /// prefix first.
  static func precedes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
    guard let left = a.baseAddress, let right = b.baseAddress else { return a.count < b.count }
    let order = memcmp(left, right, min(a.count, b.count))
    return order != 0 ? order < 0 : a.count < b.count
  }

  /// The first 8 bytes of `bytes` as a big-endian number, zeros after a shorter name.
  static func leadingBytes(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
    var value: UInt64 = 0
    for index in 0..<8 { value = value << 8 | UInt64(index < bytes.count ? bytes[index] : 0) }
    return value
  }

}
