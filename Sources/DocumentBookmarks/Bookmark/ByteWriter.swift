/// Appends big-endian integers and length-prefixed fields to a byte buffer.
struct ByteWriter {
  private(set) var bytes: [UInt8] = []

  mutating func append(_ value: UInt8) { bytes.append(value) }

  mutating func append(_ values: [UInt8]) { bytes += values }

  mutating func append<Integer: FixedWidthInteger>(bigEndian value: Integer) {
    withUnsafeBytes(of: value.bigEndian) { bytes += $0 }
  }

  mutating func append(_ timestamp: Timestamp) {
    append(bigEndian: timestamp.seconds)
    append(bigEndian: timestamp.nanoseconds)
  }

  /// A field: tag, 16-bit length, value.
  mutating func field(_ tag: UInt8, _ value: [UInt8]) {
    precondition(value.count <= Int(UInt16.max))
    append(tag)
    append(bigEndian: UInt16(value.count))
    append(value)
  }

  mutating func field(_ tag: UInt8, build: (inout ByteWriter) -> Void) {
    var inner = ByteWriter()
    build(&inner)
    field(tag, inner.bytes)
  }

  /// Overwrites a big-endian 16-bit value at `offset`.
  mutating func patch(bigEndian value: UInt16, at offset: Int) {
    bytes[offset] = UInt8(value >> 8)
    bytes[offset + 1] = UInt8(value & 0xFF)
  }
}
