/// Decodes base64 found in a document's bytes, for the scanner: either alphabet (never
/// both in one run), `\/` read as `/` (JSON's escaped slash), decoding stopped after a
/// given number of bytes, and the facts the scanner needs to name the form.
struct Base64Run {
  /// Which characters may appear.
  enum Alphabet {
    /// `A–Z a–z 0–9 + /`, and `\/` for `/`.
    case standard
    /// The standard alphabet or the URL-safe one (`- _` for `+ /`), not both.
    case either
  }

  /// How the decoded bytes were written (the bytes are in the caller's buffer).
  struct Decoded {
    /// Whether `+`, `/` or `\/` appeared.
    var usesStandardCharacters: Bool
    /// Whether `-` or `_` appeared.
    var usesURLSafeCharacters: Bool
    /// Whether the bits of the last character that the bytes did not use are zero, as in
    /// a value that ends there (they carry the next byte in a longer value).
    var unusedBitsAreZero: Bool
    /// Whether `=` padding follows the last character.
    var isPadded: Bool
    /// Whether another character of the alphabet (or a backslash) follows the last one:
    /// the encoded value goes on past the bytes asked for.
    var continues: Bool
    /// The index in the window just past the last character.
    var end: Int
  }

  /// Where a decode failed, for ``Base64FailureMemo``.
  struct Failure {
    /// The index of the character that failed (the window's count when the document
    /// ended first).
    var position: Int
    /// The latest start from which a decode fails at ``position`` too: the character
    /// before it for a byte outside the alphabet, or the last character of the other
    /// alphabet for a mix of both.
    var startsThrough: Int
  }

  enum Outcome {
    case decoded(Decoded)
    /// The window ended first; more bytes of the document may complete the run.
    case needMore
    /// A character outside the alphabet (or the document ended) before enough bytes.
    case invalid(Failure)
  }

  static let standardAlphabet = Array(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

  /// Each byte's 6-bit value in either alphabet, or -1.
  private static let values: [Int8] = {
    var table = [Int8](repeating: -1, count: 256)
    for (index, character) in standardAlphabet.enumerated() { table[Int(character)] = Int8(index) }
    table[Int(UInt8(ascii: "-"))] = 62
    table[Int(UInt8(ascii: "_"))] = 63
    return table
  }()

  /// For decoding four characters at a step: for each of the four places in a group, each
  /// byte's 6-bit value shifted to its place in the group's 24 bits, or ``notPlain`` for a
  /// byte that is not a character, or is one of the pair that names the alphabet (those take
  /// the careful way).
  private static let groupTable: [UInt32] = {
    var table = [UInt32](repeating: notPlain, count: 1024)
    for byte in 0..<256 where values[byte] >= 0 && values[byte] < 62 {
      let value = UInt32(values[byte])
      for place in 0..<4 { table[place * 256 + byte] = value << (18 - 6 * UInt32(place)) }
    }
    return table
  }()
  private static let notPlain: UInt32 = 1 << 31

  /// Decodes whole groups of four plain characters (see ``groupTable``) from `input` into
  /// `output`, three bytes a group, until a group holds anything else or either buffer runs
  /// out. Returns the number of groups decoded. A function of its own, so that its few
  /// pointers stay in registers: it runs for most characters of a long record.
  @inline(never)
  private static func decodePlainGroups(
    _ input: UnsafePointer<UInt8>, _ inputCount: Int, _ output: UnsafeMutablePointer<UInt8>,
    _ outputCapacity: Int, _ table: UnsafePointer<UInt32>
  ) -> Int {
    var read = 0
    var written = 0
    while read &+ 4 <= inputCount && written &+ 3 <= outputCapacity {
      let word =
        table[Int(input[read])] | table[256 &+ Int(input[read &+ 1])]
        | table[512 &+ Int(input[read &+ 2])] | table[768 &+ Int(input[read &+ 3])]
      if word & notPlain != 0 { break }
      output[written] = UInt8(truncatingIfNeeded: word &>> 16)
      output[written &+ 1] = UInt8(truncatingIfNeeded: word &>> 8)
      output[written &+ 2] = UInt8(truncatingIfNeeded: word)
      read &+= 4
      written &+= 3
    }
    return written / 3
  }

  private static let backslash = UInt8(ascii: "\\")
  private static let slash = UInt8(ascii: "/")
  private static let plus = UInt8(ascii: "+")
  private static let padding = UInt8(ascii: "=")

  /// The largest number of document bytes one character can take (`\/`).
  static let maximumCharacterWidth = 2

  /// Whether `byte` is a character of the standard alphabet.
  static func isStandardCharacter(_ byte: UInt8) -> Bool {
    let value = values[Int(byte)]
    return value >= 0 && (value < 62 || byte == plus || byte == slash)
  }

  /// Decodes `output.count` bytes from the characters starting at `start` in `window` into
  /// `output` (the caller's buffer, often on its stack: most candidates are rejected by
  /// their header, and a record needs one array, made once it is known to be one).
  /// `output` holds the decoded bytes only when the outcome is ``Outcome/decoded(_:)``.
  ///
  /// - Parameters:
  ///   - isFinal: whether the window ends where the document ends; if not, running out of
  ///     window is `needMore` rather than `invalid`.
  ///   - checksPadding: whether to look past the last character for `=` or a character
  ///     that continues the value (which may also need the next byte of the document).
  static func decode(
    _ window: UnsafeRawBufferPointer, from start: Int, into output: UnsafeMutableBufferPointer<UInt8>,
    alphabet: Alphabet, isFinal: Bool, checksPadding: Bool
  ) -> Outcome {
    let count = output.count
    var accumulator: UInt32 = 0
    var bits: UInt32 = 0
    var characters = 0
    var index = start
    var usesStandard = false
    var usesURLSafe = false
    // The last character of each alphabet's own pair, for a failure on a mix of both.
    var lastStandard = 0
    var lastURLSafe = 0
    /// A byte no decode can read as a character: every start before it fails there.
    func outside() -> Outcome { .invalid(Failure(position: index, startsThrough: index - 1)) }
    // Unsafe buffers: the loop runs once per character of records up to 13 657 characters.
    let failed: Outcome? = Self.values.withUnsafeBufferPointer { values in
      Self.groupTable.withUnsafeBufferPointer { groupTable in
        var produced = 0
        while produced < count {
          // Whole groups of four plain characters (no `\/`, none of the alphabet-specific
          // pair), three bytes at a step: the common case, and most of a long record.
          if bits == 0, produced + 3 <= count, index + 4 <= window.count {
            let groups = Self.decodePlainGroups(
              window.baseAddress!.assumingMemoryBound(to: UInt8.self) + index, window.count - index,
              output.baseAddress! + produced, count - produced, groupTable.baseAddress!)
            if groups > 0 {
              produced += 3 * groups
              characters += 4 * groups
              index += 4 * groups
              continue
            }
          }
          guard index < window.count else { return isFinal ? outside() : .needMore }
          var byte = window[index]
          var width = 1
          if byte == backslash {
            guard index + 1 < window.count else { return isFinal ? outside() : .needMore }
            guard window[index + 1] == slash else { return outside() }
            byte = slash
            width = 2
          }
          let value = values[Int(byte)]
          guard value >= 0 else { return outside() }
          if value >= 62 {
            if byte == plus || byte == slash {
              if usesURLSafe { return .invalid(Failure(position: index, startsThrough: lastURLSafe)) }
              usesStandard = true
              lastStandard = index
            } else {
              if alphabet == .standard { return outside() }
              if usesStandard { return .invalid(Failure(position: index, startsThrough: lastStandard)) }
              usesURLSafe = true
              lastURLSafe = index
            }
          }
          accumulator = (accumulator << 6 | UInt32(value)) & 0xFFFF
          bits += 6
          if bits >= 8 {
            bits -= 8
            output[produced] = UInt8(truncatingIfNeeded: accumulator >> bits)
            produced += 1
          }
          characters += 1
          index += width
        }
        return nil
      }
    }
    if let failed { return failed }
    let values = Self.values
    var isPadded = false
    var continues = false
    if checksPadding && characters % 4 != 0 {
      if index < window.count {
        isPadded = window[index] == padding
        continues = values[Int(window[index])] >= 0 || window[index] == backslash
      } else if !isFinal {
        return .needMore
      }
    }
    return .decoded(
      Decoded(
        usesStandardCharacters: usesStandard, usesURLSafeCharacters: usesURLSafe,
        unusedBitsAreZero: accumulator & ((1 << bits) - 1) == 0, isPadded: isPadded, continues: continues,
        end: index))
  }

  /// Where the character that ends just before `end` starts, reading `\/` as one
  /// character; `nil` when the byte before `end` is not a standard base64 character.
  static func standardCharacterStart(before end: Int, in window: UnsafeRawBufferPointer) -> Int? {
    guard end > 0 else { return nil }
    let byte = window[end - 1]
    guard isStandardCharacter(byte) else { return nil }
    if byte == slash && end >= 2 && window[end - 2] == backslash { return end - 2 }
    return end - 1
  }

  /// Standard base64 of `bytes`, without padding (enough for the scanner's patterns).
  static func encodeStandard(_ bytes: [UInt8]) -> [UInt8] {
    var output: [UInt8] = []
    var accumulator: UInt32 = 0
    var bits: UInt32 = 0
    for byte in bytes {
      accumulator = (accumulator << 8 | UInt32(byte)) & 0xFFFF
      bits += 8
      while bits >= 6 {
        bits -= 6
        output.append(standardAlphabet[Int((accumulator >> bits) & 0x3F)])
      }
    }
    if bits > 0 { output.append(standardAlphabet[Int((accumulator << (6 - bits)) & 0x3F)]) }
    return output
  }
}
