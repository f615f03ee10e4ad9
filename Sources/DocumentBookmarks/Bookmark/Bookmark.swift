public import FoundationEssentials

/// A document-scoped bookmark: a signed record that refers to one target and resolves
/// only together with the document whose key signed it.
///
/// Store it however suits the document format: as raw bytes (``data``), as its text form
/// (``text``, safe inside JSON strings, XML and plain text without escaping), or through
/// `Codable`, which writes the text form. Every form is found again by docbm's checker.
///
/// Making a `Bookmark` from bytes checks only the framing (magic, version, length); the
/// contents are verified, against the document's key, when the bookmark is resolved.
public struct Bookmark: Hashable, Sendable, Codable, CustomStringConvertible {
  /// The binary record.
  public let bytes: [UInt8]

  /// The binary record as `Data`.
  public var data: Data { Data(bytes) }

  /// The fingerprint of the key that signed the bookmark, read from its clear header
  /// (not verified until the bookmark is resolved).
  public let keyFingerprint: KeyFingerprint

  /// Takes a binary record.
  ///
  /// - Throws: ``DocbmError`` with `corrupt` (not a bookmark, cut short, wrong length) or
  ///   `unsupportedVersion`.
  public init(bytes: [UInt8]) throws(DocbmError) {
    let header = try BookmarkRecord.header(of: bytes).get()
    self.bytes = bytes
    self.keyFingerprint = header.fingerprint
  }

  /// Takes a binary record from `Data`.
  public init(data: Data) throws(DocbmError) {
    try self.init(bytes: Array(data))
  }

  /// Parses the text form (surrounding whitespace is ignored).
  ///
  /// - Throws: ``DocbmError`` with `corrupt` when the text is not a bookmark's text form.
  public init(text: String) throws(DocbmError) {
    // Whitespace and line breaks around it (Unicode White_Space) are not part of it; the
    // form is ASCII, so text that starts and ends with its characters has none.
    var trimmed = Substring(text)
    if !(trimmed.utf8.first.map(Base64URL.isAlphabet) ?? false
      && trimmed.utf8.last.map(Base64URL.isAlphabet) ?? false)
    {
      let start = text.firstIndex { !$0.isWhitespace } ?? text.endIndex
      let end = text.lastIndex { !$0.isWhitespace }.map { text.index(after: $0) } ?? start
      trimmed = text[start..<max(start, end)]
    }
    let bytes =
      trimmed.utf8.withContiguousStorageIfAvailable(Self.record(fromText:))
      ?? Array(trimmed.utf8).withUnsafeBufferPointer(Self.record(fromText:))
    try self.init(bytes: try bytes.get())
  }

  /// The record a text form's UTF-8 holds, or why it holds none.
  private static func record(fromText utf8: UnsafeBufferPointer<UInt8>) -> Result<[UInt8], DocbmError> {
    guard utf8.starts(with: textPrefix.utf8) else {
      return .failure(
        BookmarkRecord.corrupt(
          "the text is not a docbm bookmark (it should start with \(Bookmark.textPrefix))"))
    }
    guard let bytes = Base64URL.decode(utf8) else {
      return .failure(
        BookmarkRecord.corrupt(
          "the text form has characters outside the URL-safe base64 alphabet or is cut short"))
    }
    return .success(bytes)
  }

  init(verifiedBytes bytes: [UInt8], fingerprint: KeyFingerprint) {
    self.bytes = bytes
    self.keyFingerprint = fingerprint
  }

  /// Every text form (and every standard base64 of a record) starts with these characters.
  public static let textPrefix = "docbmRec"

  /// The text form: the record in URL-safe base64 without padding. It starts with
  /// `docbmRec` and uses only `A–Z a–z 0–9 - _`.
  public var text: String { Base64URL.encode(bytes) }

  /// The text form.
  public var description: String { text }

  /// The recorded fields, read without checking the signature. For inspection and
  /// diagnostics only: nothing here is authentic until ``AnchoredDocument/resolve(_:)-(Bookmark)``
  /// verifies it.
  ///
  /// - Throws: ``DocbmError`` with `corrupt` or `unsupportedVersion`.
  public func decodeUnverified() throws(DocbmError) -> BookmarkContents {
    let header = try BookmarkRecord.header(of: bytes).get()
    return try BookmarkRecord.decodeFields(bytes, header: header).get()
  }

  /// The absolute path the record holds, read without checking the signature, as
  /// ``decodeUnverified()`` reads it (`nil` where that throws) but without making the other
  /// fields: a check reports it for every bookmark that does not verify.
  var unverifiedAbsolutePath: FilePath? {
    unverifiedPaths?.target
  }

  /// The target's absolute path and the path of the document the bookmark was made on
  /// (`nil` for bookmarks made before that field), read without checking the signature.
  var unverifiedPaths: (target: FilePath, document: FilePath?)? {
    // `nil` for a record that does not parse, as for ``unverifiedAbsolutePath``.
    guard case .success = BookmarkRecord.header(of: bytes), let fields = try? BookmarkFields.parse(bytes)
    else {
      return nil
    }
    let target = FilePath(uncheckedBytes: Array(bytes[fields.absolutePath]))
    let document = fields.documentPath.map {
      target.removingLastComponent.appending(Array(bytes[$0])).lexicallyNormalized
    }
    return (target, document)
  }

  /// Encodes the text form as a single string.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(text)
  }

  /// Decodes the text form.
  public init(from decoder: any Decoder) throws {
    let text = try decoder.singleValueContainer().decode(String.self)
    try self.init(text: text)
  }
}
