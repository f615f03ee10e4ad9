/// Reads big-endian integers from a byte slice, never past its end.
struct ByteReader {
  private let bytes: ArraySlice<UInt8>
  private(set) var offset: Int

  init(_ bytes: ArraySlice<UInt8>) {
    self.bytes = bytes
    self.offset = bytes.startIndex
  }

  var isAtEnd: Bool { offset >= bytes.endIndex }
  var remaining: Int { bytes.endIndex - offset }

  mutating func read(count: Int) -> ArraySlice<UInt8>? {
    guard count >= 0, remaining >= count else { return nil }
    defer { offset += count }
    return bytes[offset..<(offset + count)]
  }

  mutating func readByte() -> UInt8? { read(count: 1)?.first }

  mutating func read<Integer: FixedWidthInteger>(_: Integer.Type) -> Integer? {
    guard let slice = read(count: MemoryLayout<Integer>.size) else { return nil }
    return slice.reduce(Integer.zero) { ($0 << 8) | Integer(truncatingIfNeeded: $1) }
  }

  mutating func readTimestamp() -> Timestamp? {
    guard let seconds = read(Int64.self), let nanos = read(UInt32.self), nanos < 1_000_000_000
    else { return nil }
    return Timestamp(seconds: seconds, nanoseconds: nanos)
  }
}
