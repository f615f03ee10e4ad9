/// A fixed byte string that marks where a bookmark may be: the magic itself, or the base64
/// characters that the magic alone determines.
///
/// Base64 turns each 3-byte group into 4 characters of 6 bits. A record that starts at
/// byte `k` of an encoded value starts at bit `2 × (k mod 3)` of its group's characters,
/// so the magic's 48 bits fix different characters for each shift `k mod 3`:
///
/// | shift | bytes encoded | fixed characters | first fixed character in its group |
/// |---:|---|---|---:|
/// | 0 | `76 87 1B 99 17 9C` | `docbmRec` | 0 |
/// | 1 | `?? 76 87 1B 99 17 9C` | `aHG5kXn` | 2 |
/// | 2 | `?? ?? 76 87 1B 99 17 9C` | `2hxuZF5` | 3 |
///
/// Characters that mix the magic with neighbouring bytes are not part of the pattern.
/// None of these characters differ between the standard and URL-safe alphabets.
struct ScanAnchor: @unchecked Sendable {
  enum Kind: Sendable, Equatable {
    /// The binary record's magic bytes.
    case binary
    /// Base64 characters of the magic, the record starting `shift` bytes into a 3-byte
    /// group (0 for the text form and for standard base64 that starts with the record).
    case base64(shift: Int)
  }

  let kind: Kind
  /// The bytes to look for, in storage made once for the process and never freed or
  /// changed (the anchors are made once): the search, which runs for every anchor of every
  /// document, reads them without reference counting. (It is what makes the type only
  /// unchecked `Sendable`.)
  let patternBytes: UnsafeRawBufferPointer
  /// The bytes to look for, as an array.
  var pattern: [UInt8] { Array(patternBytes) }
  /// For base64: how many characters of the group come before the pattern.
  let charactersBefore: Int
  /// The pattern byte the search looks for first: the one least common in documents.
  let keyIndex: Int

  init(kind: Kind, pattern: [UInt8], charactersBefore: Int, keyIndex: Int) {
    self.kind = kind
    let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: pattern.count, alignment: 1)
    storage.copyBytes(from: pattern)
    patternBytes = UnsafeRawBufferPointer(storage)
    self.charactersBefore = charactersBefore
    self.keyIndex = keyIndex
  }

  /// The magic; its key byte is `17` (ETB), a control character that text never holds.
  static let binary = ScanAnchor(
    kind: .binary, pattern: BookmarkRecord.magic, charactersBefore: 0, keyIndex: 4)

  /// The anchor for records `shift` bytes into a 3-byte group, computed from the magic.
  static func base64(shift: Int) -> ScanAnchor {
    let magic = BookmarkRecord.magic
    // Encode the magic behind `shift` placeholder bytes; keep the characters whose 6 bits
    // all come from the magic: bits [8·shift, 8·shift + 48) of the stream.
    let encoded = Base64Run.encodeStandard([UInt8](repeating: 0, count: shift) + magic)
    let firstBit = 8 * shift
    let first = (firstBit + 5) / 6
    let end = (firstBit + 8 * magic.count) / 6
    let pattern = Array(encoded[first..<end])
    return ScanAnchor(
      kind: .base64(shift: shift), pattern: pattern, charactersBefore: first % 4,
      keyIndex: keyIndex(in: pattern))
  }

  /// A character that text seldom holds: an uppercase letter (rarer than lowercase ones
  /// and digits), the latest in the alphabet (`X`, `Y`, `Z` are the rarest): the `R` of
  /// `docbmRec`, the `X` of `aHG5kXn`, the `Z` of `2hxuZF5`.
  private static func keyIndex(in pattern: [UInt8]) -> Int {
    let rank = { (byte: UInt8) -> Int in
      switch byte {
      case UInt8(ascii: "A")...UInt8(ascii: "Z"): 100 + Int(byte)
      case UInt8(ascii: "0")...UInt8(ascii: "9"): 50
      default: 0
      }
    }
    return pattern.indices.max { rank(pattern[$0]) < rank(pattern[$1]) }!
  }

  /// Every anchor the scanner looks for.
  static let all: [ScanAnchor] = [.binary, .base64(shift: 0), .base64(shift: 1), .base64(shift: 2)]
  /// One value per anchor of ``all``, stored in place (what the scan engine keeps for each).
  typealias PerAnchor<Value> = InlineArray<4, Value>

  /// The most bytes the characters before a base64 anchor can take in the document.
  static let maximumBackContext: Int = all.map(\.charactersBefore).max()! * Base64Run.maximumCharacterWidth
}
