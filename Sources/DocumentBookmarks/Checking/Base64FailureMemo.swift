/// Where a base64 decode of the scanner last failed, so that the candidates after it that
/// would fail at the same character are rejected without decoding again.
///
/// Without it, a long run of valid base64 holding many anchors and ending in an invalid
/// character costs quadratic time: each anchor's decode runs up to that character. A
/// failure at `failedAt` holds for every later decode that starts at or before
/// `startsThrough` and needs characters up to or past `failedAt`: characters are read
/// one after the other (a `\/` is one character at its backslash from any start), so such
/// a decode reaches `failedAt` as the start of a character, and meets the same invalid
/// byte, or the same mix of alphabets, there.
struct Base64FailureMemo {
  /// The document offset of the character where the last decode failed.
  private var failedAt: UInt64 = 0
  /// Decodes that start at or before this offset fail at ``failedAt`` too.
  private var startsThrough: UInt64 = 0
  private var isSet = false

  /// Whether a decode starting at `start` that needs `characters` characters is known to
  /// fail.
  func fails(from start: UInt64, characters: Int) -> Bool {
    isSet && start <= startsThrough && start < failedAt && start + UInt64(characters) > failedAt
  }

  /// Records a failure found by a decode, unless the one kept already reaches further.
  mutating func record(_ failure: Base64Run.Failure, origin: UInt64) {
    let at = origin + UInt64(failure.position)
    guard !isSet || at >= failedAt else { return }
    failedAt = at
    startsThrough = origin + UInt64(max(0, failure.startsThrough))
    isSet = true
  }
}
