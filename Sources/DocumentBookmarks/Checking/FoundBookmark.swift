/// A bookmark that ``BookmarkScanner`` found in a document's bytes.
///
/// The bookmark's framing (magic, version, flags, length) is valid; its signature is not
/// checked, since the scanner has no key: ``AnchoredDocument/resolve(_:)-(Bookmark)`` verifies it.
public struct FoundBookmark: Sendable, Hashable {
  /// Where the form starts, in bytes from the start of the scanned bytes or file.
  ///
  /// - ``BookmarkForm/binary``: the first magic byte.
  /// - ``BookmarkForm/text``: the `d` of `docbmRec`.
  /// - ``BookmarkForm/base64``: the first character of the 4-character base64 group that
  ///   holds the record's first bit. For a record at byte `k` of the encoded value, that
  ///   is character `4 × (k / 3)` (rounded down) of the base64: the `d` of `docbmRec` when
  ///   `k` is a multiple of 3, else a character that also encodes the byte(s) before the
  ///   record. An escaped slash (`\/`) counts as one character that starts at its
  ///   backslash.
  public let offset: UInt64

  /// How the bookmark is stored there.
  public let form: BookmarkForm

  /// The decoded record.
  public let bookmark: Bookmark

  /// Makes a found bookmark; the scanner is the usual source of these.
  public init(offset: UInt64, form: BookmarkForm, bookmark: Bookmark) {
    self.offset = offset
    self.form = form
    self.bookmark = bookmark
  }
}
