/// A fast 64-bit hash of bytes, for tables kept in files (the escrow catalog's) and for
/// their checksums.
///
/// Not a cryptographic hash and not keyed: it is used only on files that the user's own
/// account writes, where it must tell damage from intact contents and spread paths over a
/// table, never resist someone choosing the bytes. The bytes are taken eight at a time as
/// little-endian words, so the result is the same on every machine. Each word goes through
/// a step that is one-to-one for a given state, so changing any one word of the input
/// always changes the result.
enum ByteHash {
  private static let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15

  /// The hash of `bytes`, starting from `seed`.
  static func of(_ bytes: UnsafeRawBufferPointer, seed: UInt64 = 0) -> UInt64 {
    var state = seed ^ (UInt64(bytes.count) &* multiplier)
    var offset = 0
    while offset + 8 <= bytes.count {
      state = step(state, UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
      offset += 8
    }
    if offset < bytes.count {
      var tail: UInt64 = 0
      var shift: UInt64 = 0
      while offset < bytes.count {
        tail |= UInt64(bytes[offset]) << shift
        shift += 8
        offset += 1
      }
      state = step(state, tail)
    }
    return finished(state)
  }

  /// The hash of three words (a table key made of numbers).
  static func of(_ first: UInt64, _ second: UInt64, _ third: UInt64) -> UInt64 {
    finished(step(step(step(3 &* multiplier, first), second), third))
  }

  /// One word into the state: the exclusive or is one-to-one in the word, the odd multiplier
  /// and the shift one-to-one in the state.
  @inline(__always)
  private static func step(_ state: UInt64, _ word: UInt64) -> UInt64 {
    let mixed = (state ^ word) &* multiplier
    return mixed ^ (mixed >> 29)
  }

  /// The state's bits spread over the whole result (SplitMix64's finalizer).
  @inline(__always)
  private static func finished(_ state: UInt64) -> UInt64 {
    var value = state
    value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
    value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
    return value ^ (value >> 31)
  }
}
