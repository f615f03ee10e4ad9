import Testing

@testable import DocbmSystem

@Suite("Bytewise name order")
struct ByteOrderTests {
  /// Names from a few bytes (an ASCII letter, a digit, bytes past 0x7F) and 0 to 12 long,
  /// so that many share their first bytes or are prefixes of one another.
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

  @Test("the order agrees with comparing the names' bytes one by one", arguments: [1, 2, 3])
  func agreesWithLexicographicOrder(seed: UInt64) {
    let list = names(2000, seed: seed)
    #expect(list.sorted(by: Self.precedes) == list.sorted { $0.lexicographicallyPrecedes($1) })
  }

  @Test("a prefix sorts before the names it begins, and bytes past 0x7F after ASCII")
  func prefixesAndHighBytes() {
    let items: [[UInt8]] = [
      Array("abcdefghij".utf8), Array("abcdefgh".utf8), [0xC3, 0xA9], Array("abcdefghi".utf8),
      Array("b".utf8), [],
    ]
    #expect(
      items.sorted(by: Self.precedes) == [
        [], Array("abcdefgh".utf8), Array("abcdefghi".utf8), Array("abcdefghij".utf8),
        Array("b".utf8), [0xC3, 0xA9],
      ])
  }
}
