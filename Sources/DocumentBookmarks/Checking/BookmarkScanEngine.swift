import DocbmSystem

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
  private let limits: BookmarkScanLimits
  /// For each anchor, the document offset from which it has not been searched yet (in
  /// place: one scan per document in a tree check, so no array for it).
  private var searchFrom = ScanAnchor.PerAnchor<UInt64>(repeating: 0)
  /// The end of the last record reported: anchors before it lie inside a record, and are
  /// not candidates of their own.
  private var consumedUntil: UInt64 = 0
  /// The last failed decode, for candidates in either alphabet and in the standard one.
  private var eitherFailure = Base64FailureMemo()
  private var standardFailure = Base64FailureMemo()

  /// Candidates examined so far (a candidate deferred to the next window counts once).
  private(set) var candidatesExamined = 0
  /// Bookmarks reported so far.
  private(set) var bookmarksFound = 0
  /// Document bytes read by base64 decodes so far (a byte read by two decodes counts
  /// twice): what bounds the scan's time on crafted base64.
  private(set) var bytesDecoded = 0
  /// Whether the scan stopped at a limit, and where; `complete` until then.
  private(set) var completion = BookmarkScanCompletion.complete

  init(limits: BookmarkScanLimits = .standard) {
    precondition(ScanAnchor.all.count == ScanAnchor.PerAnchor<UInt64>.count, "one place per anchor")
    self.limits = limits
  }

  /// What looking at one candidate gave.
  private enum Examination {
    case none
    /// A record, and the index in the window just past its last byte or character.
    case found(FoundBookmark, end: Int)
    case needMore
  }

  /// Reports every bookmark whose anchor lies in `window` and has not been searched yet,
  /// in the order of their offsets, until a limit is reached (``completion`` then says
  /// which, and every later call reports nothing).
  ///
  /// A record found at `[p, p + n)` takes its bytes: an anchor inside them is not a
  /// candidate of its own. So every byte belongs to at most one reported record, and a
  /// file of overlapping fake headers costs what its size does.
  ///
  /// - Parameters:
  ///   - origin: the document offset of the window's first byte.
  ///   - isFinal: whether the document ends with the window.
  /// - Returns: the index in `window` from which bytes must be passed again at the start
  ///   of the next window (at most ``maximumCarry`` bytes before the window's end).
  mutating func scan(
    _ window: UnsafeRawBufferPointer, origin: UInt64, isFinal: Bool, found: (FoundBookmark) -> Void
  ) -> Int {
    guard completion.isComplete else { return window.count }
    let end = origin + UInt64(window.count)
    var next = ScanAnchor.PerAnchor<Int?>(repeating: nil)
    for anchor in anchors.indices {
      precondition(searchFrom[anchor] >= origin, "the window starts after unsearched bytes")
      next[anchor] = search(
        anchor, in: window, from: Int(min(max(searchFrom[anchor], consumedUntil), end) - origin))
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
      guard candidatesExamined < limits.candidates else {
        completion = .stoppedAtCandidateLimit(offset: origin + UInt64(position))
        return window.count
      }
      candidatesExamined += 1
      switch examine(anchors[anchor], at: position, in: window, origin: origin, isFinal: isFinal) {
      case .needMore:
        candidatesExamined -= 1
        deferredAt = position
      case .found(let bookmark, let recordEnd):
        guard bookmarksFound < limits.bookmarks else {
          completion = .stoppedAtBookmarkLimit(offset: bookmark.offset)
          return window.count
        }
        bookmarksFound += 1
        found(bookmark)
        consumedUntil = origin + UInt64(recordEnd)
        for other in anchors.indices {
          guard let hit = next[other], hit < recordEnd else { continue }
          next[other] = search(other, in: window, from: recordEnd)
        }
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
        let unsearched = UInt64(min(window.count, anchors[anchor].patternBytes.count - 1))
        searchFrom[anchor] = max(searchFrom[anchor], end - unsearched, consumedUntil)
      }
    }
    if isFinal { return window.count }
    var earliest = searchFrom[0]
    for anchor in searchFrom.indices { earliest = min(earliest, searchFrom[anchor]) }
    let resume = Int(earliest - origin)
    return max(0, resume - ScanAnchor.maximumBackContext)
  }

  private func search(_ anchor: Int, in window: UnsafeRawBufferPointer, from start: Int) -> Int? {
    ByteSearch.firstIndex(
      of: anchors[anchor].patternBytes, keyIndex: anchors[anchor].keyIndex, in: window, from: start)
  }

  private mutating func examine(
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
    guard let bookmark = try? Bookmark(bytes: bytes) else { return .none }  // bytes that only look like one
    return .found(
      FoundBookmark(offset: origin + UInt64(position), form: .binary, bookmark: bookmark),
      end: position + length)
  }

  /// Base64 characters of the magic at `position`: find the group's first character,
  /// decode the header to learn the length, then decode the record.
  private mutating func examineBase64(
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
    // The header, decoded on the stack: most candidates end there.
    var announced = 0
    let headerExamination: Examination? = withUnsafeTemporaryAllocation(
      of: UInt8.self, capacity: shift + BookmarkRecord.headerLength
    ) { header in
      switch decode(
        window, from: groupStart, into: header, alphabet: alphabet, isFinal: isFinal, checksPadding: false)
      {
      case .needMore: return Examination.needMore
      case .invalid: return Examination.none
      case .decoded:
        guard
          let length = Self.recordLength(
            header: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: header[shift...])))
        else {
          return Examination.none
        }
        announced = length
        return nil
      }
    }
    if let headerExamination { return headerExamination }
    let length = announced
    // A candidate whose characters run into a place where an earlier decode failed fails
    // there too: rejected without decoding again (see Base64FailureMemo).
    let start = origin + UInt64(groupStart)
    let characters = (8 * (shift + length) + 5) / 6
    let failureIsKnown =
      alphabet == .either
      ? eitherFailure.fails(from: start, characters: characters)
      : standardFailure.fails(from: start, characters: characters)
    if failureIsKnown { return .none }
    // The record, decoded into a buffer of its own (on the stack for the usual sizes), and
    // copied into the bookmark's array only once it is one.
    return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: shift + length) { buffer in
      let record: Base64Run.Decoded
      switch decode(
        window, from: groupStart, into: buffer, alphabet: alphabet, isFinal: isFinal,
        checksPadding: shift == 0)
      {
      case .needMore: return .needMore
      case .invalid(let failure):
        if alphabet == .either {
          eitherFailure.record(failure, origin: origin)
        } else {
          standardFailure.record(failure, origin: origin)
        }
        return .none
      case .decoded(let decoded): record = decoded
      }
      let form: BookmarkForm
      if shift == 0 {
        guard let aligned = Self.alignedForm(record) else { return .none }
        form = aligned
      } else {
        form = .base64
      }
      let bytes = Array(UnsafeBufferPointer(rebasing: buffer[shift...]))
      guard let bookmark = try? Bookmark(bytes: bytes) else { return .none }  // as above
      return .found(FoundBookmark(offset: start, form: form, bookmark: bookmark), end: record.end)
    }
  }

  /// ``Base64Run/decode(_:from:into:alphabet:isFinal:checksPadding:)``, counting the
  /// bytes it read in ``bytesDecoded``.
  private mutating func decode(
    _ window: UnsafeRawBufferPointer, from start: Int, into output: UnsafeMutableBufferPointer<UInt8>,
    alphabet: Base64Run.Alphabet, isFinal: Bool, checksPadding: Bool
  ) -> Base64Run.Outcome {
    let outcome = Base64Run.decode(
      window, from: start, into: output, alphabet: alphabet, isFinal: isFinal, checksPadding: checksPadding)
    switch outcome {
    case .decoded(let decoded): bytesDecoded += decoded.end - start
    case .invalid(let failure): bytesDecoded += failure.position - start
    case .needMore: bytesDecoded += window.count - start
    }
    return outcome
  }

  /// Text form or standard base64, for a record whose base64 starts with `docbmRec`;
  /// `nil` when the characters are neither, as the app's own decoder would find.
  ///
  /// Unused bits of the last character that are not zero belong to a value that goes on
  /// (another character follows) or, with `=` after it, to padded standard base64; a
  /// value that ends there is neither form (``Bookmark/init(text:)`` and `Data`'s base64
  /// decoding reject it). Then the alphabet decides: `+`, `/` or `\/` is standard base64;
  /// `-` or `_` is the text form, which never goes on, so unused bits that are not zero
  /// make it none. When the characters use neither, `=` padding or a value that goes on
  /// means standard base64; otherwise the characters are exactly the text form, and it is
  /// reported as such.
  static func alignedForm(_ record: Base64Run.Decoded) -> BookmarkForm? {
    if !record.unusedBitsAreZero && !record.isPadded && !record.continues { return nil }
    if record.usesStandardCharacters { return .base64 }
    if record.usesURLSafeCharacters { return record.unusedBitsAreZero ? .text : nil }
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
