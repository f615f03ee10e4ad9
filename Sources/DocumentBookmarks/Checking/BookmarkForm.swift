/// How a bookmark is stored in a document's bytes, as ``BookmarkScanner`` found it.
/// New forms may be added in later versions: a `switch` over them needs a `default`.
public enum BookmarkForm: String, Sendable, Hashable, Codable {
  /// The binary record itself (``Bookmark/bytes``), starting with the magic bytes
  /// `76 87 1B 99 17 9C`.
  case binary

  /// The text form (``Bookmark/text``): URL-safe base64 (`A–Z a–z 0–9 - _`) without
  /// padding, starting with `docbmRec`.
  ///
  /// A record whose base64 uses none of `+ / - _` and needs no padding reads the same in
  /// both alphabets; the scanner reports it as `text`.
  case text

  /// Standard base64 (`A–Z a–z 0–9 + /`, `=` padding), as `JSONEncoder` writes `Data`,
  /// with `/` possibly escaped as `\/`. The record may be the whole encoded value (its
  /// base64 then starts with `docbmRec`) or lie anywhere inside a larger encoded value.
  case base64
}
