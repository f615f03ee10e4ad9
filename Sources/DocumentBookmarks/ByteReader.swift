/// Reads a binary format where its bytes lie: big-endian integers, single bytes and byte
/// ranges at offsets, each read checked against the end of the buffer. A read that would
/// go past the end gives `nil`, so that a cut-short or hostile input (a bookmark, a key
/// attribute) is refused with an error and never read beyond.
///
/// docbm's one reader of binary formats; nothing is copied or allocated. It lives beside
/// the formats it reads, so that its reads compile into their code.
struct ByteReader {
  /// The bytes read.
  let bytes: UnsafeRawBufferPointer

  init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

  /// How many bytes there are.
  var count: Int { bytes.count }

  /// The byte at `offset`, or `nil` past the end.
  func byte(at offset: Int) -> UInt8? {
    offset >= 0 && offset < bytes.count ? bytes[offset] : nil
  }

  /// The big-endian integer of `Integer`'s size at `offset`, or `nil` when it does not fit.
  func bigEndian<Integer: FixedWidthInteger>(_: Integer.Type, at offset: Int) -> Integer? {
    guard offset >= 0, bytes.count - offset >= MemoryLayout<Integer>.size else { return nil }
    return Integer(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Integer.self))
  }

  /// The bytes of `range`, where they lie, or `nil` when it runs past the end.
  func slice(_ range: Range<Int>) -> UnsafeRawBufferPointer? {
    guard range.lowerBound >= 0, range.upperBound <= bytes.count else { return nil }
    return UnsafeRawBufferPointer(rebasing: bytes[range])
  }

  /// Whether the bytes start with `prefix` (a format's magic).
  func starts(with prefix: [UInt8]) -> Bool {
    bytes.count >= prefix.count
      && UnsafeRawBufferPointer(rebasing: bytes[..<prefix.count]).elementsEqual(prefix)
  }
}
