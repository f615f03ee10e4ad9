import Testing

@testable import DocumentBookmarks

@Suite("Bytewise name order")
struct ByteOrderTests {
  /// Names from a few bytes (an ASCII letter, a digit, bytes past 0x7F) and 0 to 12 long,
  /// so that many share their first 8 bytes or are prefixes of one another.
  private func names(_ count: Int, seed: UInt64) -> [[UInt8]] {
    var state = seed
    func next() -> UInt64 {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return state >> 33
    }
    let alphabet: [UInt8] = [0x61, 0x62, 0x31, 0x7F, 0x80, 0xC3, 0xFF]
    return (0..<count).map { _ in (0..<Int(next() % 13)).map { _ in alphabet[Int(next() % 7)] } }
  }

  /// Whether `a` sorts before `b`, compared where they lie.
  private static func precedes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    a.withUnsafeBytes { left in b.withUnsafeBytes { right in ByteOrder.precedes(left, right) } }
  }

  /// `items` in the order ``ByteOrder/order(count:leadingBytes:precedes:)`` gives their names.
  private static func sort<Item>(_ items: inout [Item], byName name: (Item) -> [UInt8]) {
    guard items.count > 1 else { return }
    let keys = ByteOrder.order(
      count: items.count,
      leadingBytes: { index in name(items[index]).withUnsafeBytes { ByteOrder.leadingBytes($0) } },
      precedes: { precedes(name(items[$0]), name(items[$1])) })
    items = keys.map { items[Int(truncatingIfNeeded: $0)] }
  }

  @Test("sorting by name agrees with comparing whole names", arguments: [1, 2, 3])
  func agreesWithWholeComparison(seed: UInt64) {
    var items = names(2000, seed: seed).enumerated().map { (name: $0.element, tag: $0.offset) }
    let expected = items.sorted { Self.precedes($0.name, $1.name) }.map(\.name)
    Self.sort(&items) { $0.name }
    #expect(items.map(\.name) == expected)
    #expect(Set(items.map(\.tag)).count == 2000)
  }

  @Test("a prefix sorts before the names it begins, and bytes past 0x7F after ASCII")
  func prefixesAndHighBytes() {
    var items: [[UInt8]] = [
      Array("abcdefghij".utf8), Array("abcdefgh".utf8), [0xC3, 0xA9], Array("abcdefghi".utf8),
      Array("b".utf8),
    ]
    Self.sort(&items) { $0 }
    #expect(
      items == [
        Array("abcdefgh".utf8), Array("abcdefghi".utf8), Array("abcdefghij".utf8), Array("b".utf8),
        [0xC3, 0xA9],
      ])
  }

  @Test(
    "distinct keys sort as the standard library sorts them, by quicksort and by its heapsort bound",
    arguments: [0, 1, 2, 15, 16, 17, 100, 5000])
  func distinctKeys(count: Int) {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15 &+ UInt64(count)
    func next() -> UInt64 {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return state >> 1
    }
    // Random, ascending, descending, few distinct prefixes, and organ-pipe orders.
    let shapes: [[UInt128]] = [
      (0..<count).map { UInt128(next()) << 64 | UInt128($0) },
      (0..<count).map { UInt128($0) << 64 | UInt128($0) },
      (0..<count).map { UInt128(count - $0) << 64 | UInt128($0) },
      (0..<count).map { UInt128(next() % 3) << 64 | UInt128($0) },
      (0..<count).map { UInt128(min($0, count - $0)) << 64 | UInt128($0) },
    ]
    for keys in shapes {
      for depthLimit in [nil, 0, 1] as [Int?] {
        var sorted = keys
        ByteOrder.sortDistinct(&sorted, depthLimit: depthLimit)
        #expect(sorted == keys.sorted(), "\(count) keys, depth limit \(String(describing: depthLimit))")
      }
    }
  }
}
