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
    guard bytes.count >= magic.count, bytes.prefix(magic.count).elementsEqual(magic) else {
      return .failure(corrupt("the bytes do not start with a docbm bookmark"))
    }
    guard bytes.count >= headerLength else {
      return .failure(corrupt("the bookmark is cut short (\(bytes.count) bytes)"))
    }
    guard bytes[6] == version else {
      return .failure(
        DocbmError(
          .unsupportedVersion,
          message:
            "bookmark format version \(bytes[6]) is not supported by this docbm (it reads version \(version))"
        ))
    }
    guard bytes[7] == 0 else {
      return .failure(
        DocbmError(
          .unsupportedVersion, message: "the bookmark uses flags (\(bytes[7])) this docbm does not know"))
    }
    let length = Int(bytes[8]) << 8 | Int(bytes[9])
    guard length >= minimumLength, length <= maximumLength else {
      return .failure(corrupt("the bookmark's recorded length \(length) is out of bounds"))
    }
    guard length == bytes.count else {
      return .failure(corrupt("the bookmark records \(length) bytes but has \(bytes.count)"))
    }
    return .success(
      Header(version: bytes[6], fingerprint: KeyFingerprint(bytes: bytes[10..<18])!))
  }

  /// Whether the record's tag verifies under `key`, compared in constant time.
  static func verify(_ bytes: [UInt8], key: DocumentKey) -> Bool {
    guard bytes.count >= minimumLength else { return false }
    let split = bytes.count - tagLength
    // The tag is computed on the stack and its first 16 bytes compared in place.
    return key.withAuthentication(context: macContext, bytes[..<split]) { tag in
      bytes.withUnsafeBytes { record in
        Sodium.constantTimeEqual(
          UnsafeRawBufferPointer(rebasing: tag[..<tagLength]),
          UnsafeRawBufferPointer(rebasing: record[split...]))
      }
    }
  }

  /// Parses the fields of a record whose header is valid. Called only after verification,
  /// except by ``Bookmark/decodeUnverified()``.
  static func decodeFields(_ bytes: [UInt8], header: Header) -> Result<BookmarkContents, DocbmError> {
    var reader = ByteReader(bytes[headerLength..<(bytes.count - tagLength)])
    var kind: TargetKind?
    var relative: FilePath?
    var absolute: FilePath?
    var createdAt: Timestamp?
    var handle: KernelFileHandle?
    var inode: UInt64?
    var generation: UInt32?
    var birthTime: Timestamp?
    var size: UInt64?
    var modification: Timestamp?
    var fsid: UInt64?
    var mountPoint: FilePath?
    var documentPath: FilePath?
    var previousTag: Int = -1

    while !reader.isAtEnd {
      guard let tag = reader.readByte(), let length = reader.read(UInt16.self),
        let value = reader.read(count: Int(length))
      else { return .failure(corrupt("a field runs past the end of the bookmark")) }
      guard Int(tag) > previousTag else {
        return .failure(corrupt("field 0x\(String(tag, radix: 16)) is repeated or out of order"))
      }
      previousTag = Int(tag)
      var field = ByteReader(value)
      let parsed: Bool
      switch tag {
      case Tag.kind:
        kind = field.readByte().flatMap(TargetKind.init(code:))
        parsed = kind != nil
      case Tag.relativePath:
        relative = FilePath(bytes: value)
        parsed = relative != nil && !value.isEmpty
        field = ByteReader([])
      case Tag.absolutePath:
        absolute = FilePath(bytes: value)
        parsed = absolute?.isAbsolute == true
        field = ByteReader([])
      case Tag.createdAt:
        createdAt = field.readTimestamp()
        parsed = createdAt != nil
      case Tag.fileHandle:
        if let type = field.read(Int32.self), field.remaining > 0, field.remaining <= 128,
          let rest = field.read(count: field.remaining)
        {
          handle = KernelFileHandle(type: type, bytes: Array(rest))
        }
        parsed = handle != nil
      case Tag.inode:
        inode = field.read(UInt64.self)
        parsed = inode != nil
      case Tag.generation:
        generation = field.read(UInt32.self)
        parsed = generation != nil
      case Tag.birthTime:
        birthTime = field.readTimestamp()
        parsed = birthTime != nil
      case Tag.size:
        size = field.read(UInt64.self)
        parsed = size != nil
      case Tag.modificationTime:
        modification = field.readTimestamp()
        parsed = modification != nil
      case Tag.filesystemID:
        fsid = field.read(UInt64.self)
        parsed = fsid != nil
      case Tag.mountPoint:
        mountPoint = FilePath(bytes: value)
        parsed = mountPoint?.isAbsolute == true
        field = ByteReader([])
      case Tag.documentPath:
        documentPath = FilePath(bytes: value)
        parsed = documentPath.map { !$0.isAbsolute && !$0.bytes.isEmpty } == true
        field = ByteReader([])
      case Tag.firstOptional...:
        parsed = true
        field = ByteReader([])
      default:
        return .failure(
          DocbmError(
            .unsupportedVersion,
            message: "the bookmark has field 0x\(String(tag, radix: 16)), which this docbm does not know"))
      }
      guard parsed, field.isAtEnd else {
        return .failure(corrupt("field 0x\(String(tag, radix: 16)) is malformed"))
      }
    }
    guard let kind, let relative, let absolute, let createdAt, let inode, let size, let modification else {
      return .failure(corrupt("the bookmark lacks a required field"))
    }
    return .success(
      BookmarkContents(
        version: header.version, keyFingerprint: header.fingerprint, kind: kind,
        relativePath: relative, absolutePath: absolute, createdAt: createdAt,
        identity: TargetIdentity(
          fileHandle: handle, inode: inode, generation: generation, birthTime: birthTime,
          size: size, modificationTime: modification),
        volume: VolumeHint(filesystemID: fsid, mountPoint: mountPoint), documentPathFromTarget: documentPath))
  }

  static func corrupt(_ message: String) -> DocbmError {
    DocbmError(.corrupt, message: message)
  }
}
