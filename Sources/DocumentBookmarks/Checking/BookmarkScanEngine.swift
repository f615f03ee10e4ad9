/// The scanner's state between windows of a document: for each anchor, where its search
/// resumes. A caller feeds windows (bytes kept from the previous window, then new bytes)
/// and keeps, for the next window, the tail that ``scan(_:origin:isFinal:found:)`` names.
struct BookmarkScanEngine {
  /// The most characters one record's base64 takes, from its group's first character to
  /// the one after it (a possible `=`): a record of the largest length, two bytes into its
  /// group.
  static let maximumEncodedCharacters = (8 * (2 + BookmarkRecord.maximumLength) + 5) / 6 + 1

  /// The most bytes a window can leave for the next one: a candidate that needs more bytes
  /// is kept from its back context to the end of the window, and it never needs more than
  /// its base64 with every character written `\/`.
  static let maximumCarry =
    ScanAnchor.maximumBackContext + Base64Run.maximumCharacterWidth * maximumEncodedCharacters

  private let anchors = ScanAnchor.all
  /// For each anchor, the document offset from which it has not been searched yet.
  private var searchFrom: [UInt64]

  init() {
    searchFrom = [UInt64](repeating: 0, count: anchors.count)
  }

  /// What looking at one candidate gave.
  private enum Examination {
    case none
    case found(FoundBookmark)
    case needMore
  }

  /// Reports every bookmark whose anchor lies in `window` and has not been searched yet,
  /// in the order of their offsets.
  ///
  /// - Parameters:
  ///   - origin: the document offset of the window's first byte.
  ///   - isFinal: whether the document ends with the window.
  /// - Returns: the index in `window` from which bytes must be passed again at the start
  ///   of the next window (at most ``maximumCarry`` bytes before the window's end).
  mutating func scan(
    _ window: UnsafeRawBufferPointer, origin: UInt64, isFinal: Bool, found: (FoundBookmark) -> Void
  ) -> Int {
    let end = origin + UInt64(window.count)
    var next: [Int?] = anchors.indices.map { anchor in
      precondition(searchFrom[anchor] >= origin, "the window starts after unsearched bytes")
      return search(anchor, in: window, from: Int(min(searchFrom[anchor], end) - origin))
    }
    var deferredAt: Int?
    while deferredAt == nil {
      var nearest: Int?
      for anchor in anchors.indices {
        guard let position = next[anchor] else { continue }
        if let current = nearest, next[current]! <= position { continue }
        nearest = anchor
      }
      guard let anchor = nearest, let position = next[anchor] else { break }
      switch examine(anchors[anchor], at: position, in: window, origin: origin, isFinal: isFinal) {
      case .needMore:
        deferredAt = position
      case .found(let bookmark):
        found(bookmark)
        next[anchor] = search(anchor, in: window, from: position + 1)
      case .none:
        next[anchor] = search(anchor, in: window, from: position + 1)
      }
    }
    for anchor in anchors.indices {
      if let deferredAt {
        // Every anchor resumes there (or where it stood, if later): hits before it are
        // done, hits after it come again.
        searchFrom[anchor] = max(searchFrom[anchor], origin + UInt64(deferredAt))
      } else if isFinal {
        searchFrom[anchor] = end
      } else {
        // A pattern that starts in the last bytes may continue in the next window.
        let unsearched = UInt64(min(window.count, anchors[anchor].pattern.count - 1))
        searchFrom[anchor] = max(searchFrom[anchor], end - unsearched)
      }
    }
    if isFinal { return window.count }
    let resume = Int(searchFrom.min()! - origin)
    return max(0, resume - ScanAnchor.maximumBackContext)
  }

  private func search(_ anchor: Int, in window: UnsafeRawBufferPointer, from start: Int) -> Int? {
    anchors[anchor].pattern.withUnsafeBytes { pattern in
      ByteSearch.firstIndex(of: pattern, keyIndex: anchors[anchor].keyIndex, in: window, from: start)
    }
  }

  private func examine(
    _ anchor: ScanAnchor, at position: Int, in window: UnsafeRawBufferPointer, origin: UInt64,
    isFinal: Bool
  ) -> Examination {
    switch anchor.kind {
    case .binary:
      return examineBinary(at: position, in: window, origin: origin, isFinal: isFinal)
    case .base64(let shift):
      return examineBase64(
        anchor, shift: shift, at: position, in: window, origin: origin, isFinal: isFinal)
    }
  }

  /// The magic at `position`: the header gives the length; the record is that many bytes.
  private func examineBinary(
    at position: Int, in window: UnsafeRawBufferPointer, origin: UInt64, isFinal: Bool
  ) -> Examination {
    let available = window.count - position
    guard available >= BookmarkRecord.headerLength else { return isFinal ? .none : .needMore }
    let header = UnsafeRawBufferPointer(rebasing: window[position..<(position + BookmarkRecord.headerLength)])
    guard let length = Self.recordLength(header: header) else { return .none }
    guard available >= length else { return isFinal ? .none : .needMore }
    let bytes = Array(window[position..<(position + length)])
    guard let bookmark = try? Bookmark(bytes: bytes) else { return .none }
    return .found(FoundBookmark(offset: origin + UInt64(position), form: .binary, bookmark: bookmark))
  }

  /// Base64 characters of the magic at `position`: find the group's first character,
  /// decode the header to learn the length, then decode the record.
  private func examineBase64(
    _ anchor: ScanAnchor, shift: Int, at position: Int, in window: UnsafeRawBufferPointer,
    origin: UInt64, isFinal: Bool
  ) -> Examination {
    var groupStart = position
    for _ in 0..<anchor.charactersBefore {
      guard let start = Base64Run.standardCharacterStart(before: groupStart, in: window) else {
        return .none
      }
      groupStart = start
    }
    // A record mid-group can only be standard base64: the text form starts with docbmRec.
    let alphabet: Base64Run.Alphabet = shift == 0 ? .either : .standard
    let header: Base64Run.Decoded
    switch Base64Run.decode(
      window, from: groupStart, count: shift + BookmarkRecord.headerLength, alphabet: alphabet,
      isFinal: isFinal, checksPadding: false)
    {
    case .needMore: return .needMore
    case .invalid: return .none
    case .decoded(let decoded): header = decoded
    }
    let length = header.bytes.withUnsafeBytes { bytes in
      Self.recordLength(header: UnsafeRawBufferPointer(rebasing: bytes[shift...]))
    }
    guard let length else { return .none }
    let record: Base64Run.Decoded
    switch Base64Run.decode(
      window, from: groupStart, count: shift + length, alphabet: alphabet, isFinal: isFinal,
      checksPadding: shift == 0)
    {
    case .needMore: return .needMore
    case .invalid: return .none
    case .decoded(let decoded): record = decoded
    }
    guard let bookmark = try? Bookmark(bytes: Array(record.bytes[shift...])) else { return .none }
    let form: BookmarkForm = shift == 0 ? Self.alignedForm(record) : .base64
    return .found(FoundBookmark(offset: origin + UInt64(groupStart), form: form, bookmark: bookmark))
  }

  /// Text form or standard base64, for a record whose base64 starts with `docbmRec`.
  ///
  /// The alphabet decides: `+`, `/` or `\/` is standard base64; `-` or `_` is the text
  /// form. When the characters use neither, `=` padding after them, or unused bits that
  /// are not zero (the encoded value goes on past the record), mean standard base64;
  /// otherwise the characters are exactly the text form, and it is reported as such.
  static func alignedForm(_ record: Base64Run.Decoded) -> BookmarkForm {
    if record.usesStandardCharacters { return .base64 }
    if record.usesURLSafeCharacters { return .text }
    if record.isPadded || !record.unusedBitsAreZero { return .base64 }
    return .text
  }

  /// The record length a header announces, when its version, flags and length are ones
  /// a version 1 record can have.
  static func recordLength(header: UnsafeRawBufferPointer) -> Int? {
    guard header.count >= BookmarkRecord.headerLength, header[6] == BookmarkRecord.version,
      header[7] == 0
    else { return nil }
    let length = Int(header[8]) << 8 | Int(header[9])
    guard length >= BookmarkRecord.minimumLength, length <= BookmarkRecord.maximumLength else {
      return nil
    }
    return length
  }
}
