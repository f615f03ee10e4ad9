import DocbmSystem

/// The binary bookmark record, version 1 (byte-by-byte in docs/format.md).
///
/// ```
/// header  magic(6) version(1) flags(1) length(2) fingerprint(8)
/// fields  tag(1) length(2) value(length), tags ascending, each at most once
/// tag     first 16 bytes of HMAC-SHA-256(key, context ‖ every byte before the tag)
/// ```
///
/// The magic bytes `76 87 1B 99 17 9C` are what base64 decodes `docbmRec` to, so every
/// record's base64 (standard or URL-safe) starts with the readable `docbmRec`: a scanner
/// finds records inside documents in binary, in the text form and in `JSONEncoder`'s base64.
enum BookmarkRecord {
  static let magic: [UInt8] = [0x76, 0x87, 0x1B, 0x99, 0x17, 0x9C]
  static let version: UInt8 = 1
  static let headerLength = 18
  static let tagLength = 16
  static let minimumLength = headerLength + tagLength
  /// The largest record a decoder accepts (the relative, absolute and mount-point paths
  /// share it; `makeBookmark` refuses a record that would be longer).
  static let maximumLength = 10_240
  static let macContext: [UInt8] = Array("docbm.bookmark.v1".utf8) + [0]

  enum Tag {
    static let kind: UInt8 = 0x01
    static let relativePath: UInt8 = 0x02
    static let absolutePath: UInt8 = 0x03
    static let createdAt: UInt8 = 0x04
    static let fileHandle: UInt8 = 0x10
    static let inode: UInt8 = 0x11
    static let generation: UInt8 = 0x12
    static let birthTime: UInt8 = 0x13
    static let size: UInt8 = 0x14
    static let modificationTime: UInt8 = 0x15
    static let filesystemID: UInt8 = 0x20
    static let mountPoint: UInt8 = 0x21
    /// Tags from here up are optional: a decoder that does not know one skips it.
    static let firstOptional: UInt8 = 0x80
    /// The document's real path when the bookmark was made, relative to the folder of the
    /// target's absolute path (optional).
    static let documentPath: UInt8 = 0x80
    /// The document's inode number, then its birth time where the filesystem keeps one,
    /// when the bookmark was made (optional).
    static let documentIdentity: UInt8 = 0x81
  }

  /// The clear header, readable before verification (and trusted only after it).
  struct Header {
    let version: UInt8
    let fingerprint: KeyFingerprint
  }

  /// Signs `contents` with `key` and returns the record's bytes.
  static func encode(_ contents: BookmarkContents, key: DocumentKey) -> [UInt8] {
    precondition(contents.keyFingerprint == key.fingerprint)
    var writer = ByteWriter()
    writer.append(magic)
    writer.append(version)
    writer.append(UInt8(0))
    writer.append(bigEndian: UInt16(0))  // length, patched below
    writer.append(key.fingerprint.bytes)
    writer.field(Tag.kind, [contents.kind.code])
    writer.field(Tag.relativePath, contents.relativePath.bytes)
    writer.field(Tag.absolutePath, contents.absolutePath.bytes)
    writer.field(Tag.createdAt) { $0.append(contents.createdAt) }
    let identity = contents.identity
    if let handle = identity.fileHandle {
      writer.field(Tag.fileHandle) {
        $0.append(bigEndian: handle.type)
        $0.append(handle.bytes)
      }
    }
    writer.field(Tag.inode) { $0.append(bigEndian: identity.inode) }
    if let generation = identity.generation {
      writer.field(Tag.generation) { $0.append(bigEndian: generation) }
    }
    if let birthTime = identity.birthTime {
      writer.field(Tag.birthTime) { $0.append(birthTime) }
    }
    writer.field(Tag.size) { $0.append(bigEndian: identity.size) }
    writer.field(Tag.modificationTime) { $0.append(identity.modificationTime) }
    if let fsid = contents.volume.filesystemID {
      writer.field(Tag.filesystemID) { $0.append(bigEndian: fsid) }
    }
    if let mountPoint = contents.volume.mountPoint {
      writer.field(Tag.mountPoint, mountPoint.bytes)
    }
    if let documentPath = contents.documentPathFromTarget {
      // Relative to the target's folder: usually a few bytes (`../board.json`), so the
      // record, and the MAC computed over it on every resolve, grow by little.
      writer.field(Tag.documentPath, documentPath.bytes)
    }
    if let document = contents.documentIdentity {
      writer.field(Tag.documentIdentity) {
        $0.append(bigEndian: document.inode)
        if let birthTime = document.birthTime { $0.append(birthTime) }
      }
    }
    let total = writer.bytes.count + tagLength
    writer.patch(bigEndian: UInt16(total), at: 8)
    writer.append(mac(writer.bytes[...], key: key))
    return writer.bytes
  }

  /// The truncated HMAC over everything before the tag.
  static func mac(_ signed: ArraySlice<UInt8>, key: DocumentKey) -> [UInt8] {
    var tag = key.authenticate(context: macContext, signed)
    tag.removeLast(tag.count - tagLength)
    return tag
  }

  /// Reads the clear header of a complete record, checking magic, version, flags and that
  /// the recorded length is exactly `bytes.count`.
  static func header(of bytes: [UInt8]) -> Result<Header, DocbmError> {
    bytes.withUnsafeBytes { header(of: ByteReader($0)) }
  }

  /// ``header(of:)-([UInt8])`` read where the record lies.
  private static func header(of reader: ByteReader) -> Result<Header, DocbmError> {
    guard reader.starts(with: magic) else {
      return .failure(corrupt("the bytes do not start with a docbm bookmark"))
    }
    guard reader.count >= headerLength, let recordVersion = reader.byte(at: 6),
      let flags = reader.byte(at: 7),
      let length16 = reader.bigEndian(UInt16.self, at: 8),
      let fingerprint = reader.bigEndian(UInt64.self, at: 10)
    else {
      return .failure(corrupt("the bookmark is cut short (\(reader.count) bytes)"))
    }
    guard recordVersion == version else {
      return .failure(
        DocbmError(
          .unsupportedVersion,
          message:
            "bookmark format version \(recordVersion) is not supported by this docbm (it reads version \(version))"
        ))
    }
    guard flags == 0 else {
      return .failure(
        DocbmError(
          .unsupportedVersion, message: "the bookmark uses flags (\(flags)) this docbm does not know"))
    }
    let length = Int(length16)
    guard length >= minimumLength, length <= maximumLength else {
      return .failure(corrupt("the bookmark's recorded length \(length) is out of bounds"))
    }
    guard length == reader.count else {
      return .failure(corrupt("the bookmark records \(length) bytes but has \(reader.count)"))
    }
    return .success(Header(version: recordVersion, fingerprint: KeyFingerprint(value: fingerprint)))
  }

  /// Whether the record's tag verifies under `key`, compared in constant time.
  static func verify(_ bytes: [UInt8], key: DocumentKey) -> Bool {
    guard bytes.count >= minimumLength else { return false }
    // The tag is computed on the stack and its first 16 bytes compared in place.
    return key.withAuthentication(context: macContext, bytes[..<(bytes.count - tagLength)]) { tag in
      tagMatches(tag, bytes)
    }
  }

  /// ``verify(_:key:)`` with the key's schedule for bookmark tags (made with
  /// ``macContext`` as its prefix), where the key's padded blocks are hashed once for all
  /// the records it verifies.
  static func verify(_ bytes: [UInt8], schedule: HMACSHA256.Schedule) -> Bool {
    guard bytes.count >= minimumLength else { return false }
    return withUnsafeTemporaryAllocation(byteCount: HMACSHA256.length, alignment: 16) { tag in
      schedule.writeTag(bytes[..<(bytes.count - tagLength)], into: tag)
      return tagMatches(UnsafeRawBufferPointer(tag), bytes)
    }
  }

  /// Whether the first ``tagLength`` bytes of `mac` are the record's tag (its last
  /// ``tagLength`` bytes), compared in constant time.
  static func tagMatches(_ mac: UnsafeRawBufferPointer, _ bytes: [UInt8]) -> Bool {
    bytes.withUnsafeBytes { record in
      ConstantTime.equal(
        UnsafeRawBufferPointer(rebasing: mac[..<tagLength]),
        UnsafeRawBufferPointer(rebasing: record[(record.count - tagLength)...]))
    }
  }

  /// Parses the fields of a record whose header is valid. Called only after verification,
  /// except by ``Bookmark/decodeUnverified()``.
  static func decodeFields(_ bytes: [UInt8], header: Header) -> Result<BookmarkContents, DocbmError> {
    Result { () throws(DocbmError) in try BookmarkFields.parse(bytes).contents(of: bytes, header: header) }
  }

  static func corrupt(_ message: String) -> DocbmError {
    DocbmError(.corrupt, message: message)
  }
}
