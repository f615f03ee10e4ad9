/// The fields of a record, found and checked where they lie in its bytes: the numbers
/// read, the paths and the file handle as ranges of the record. Nothing is allocated, so
/// the unmoved resolve (``UnmovedResolver``) reads what it needs at no cost beyond the
/// scan; ``contents(of:header:)`` makes the ``BookmarkContents`` when they are wanted.
///
/// ``parse(_:)`` accepts exactly the records whose contents can be made: every rule of the
/// format (docs/format.md) is checked here, once, for both uses.
struct BookmarkFields {
  var kind: TargetKind
  var relativePath: Range<Int>
  var absolutePath: Range<Int>
  var createdAt: Timestamp
  var fileHandleType: Int32?
  var fileHandle: Range<Int>?
  var inode: UInt64
  var generation: UInt32?
  var birthTime: Timestamp?
  var size: UInt64
  var modificationTime: Timestamp
  var filesystemID: UInt64?
  var mountPoint: Range<Int>?
  var documentPath: Range<Int>?
  var documentIdentity: RecordedDocument?

  typealias Tag = BookmarkRecord.Tag

  /// Finds and checks the fields of a record whose header is valid (its length equals
  /// `bytes.count`). Called only after verification, except for inspection.
  ///
  /// - Throws: `corrupt` (a field runs past the end, repeats, is out of order or malformed,
  ///   a required one is missing) or `unsupportedVersion` (a required field this version
  ///   does not know). Thrown, not returned as a `Result`: the fields are returned where
  ///   the caller wants them, not copied out of an enum's payload.
  static func parse(_ bytes: [UInt8]) throws(DocbmError) -> BookmarkFields {
    // `withUnsafeBytes` rethrows untyped errors: the error is carried out beside it.
    var failure: DocbmError?
    let fields = bytes.withUnsafeBytes { record -> BookmarkFields? in
      do throws(DocbmError) { return try parse(record: record) } catch {
        failure = error
        return nil
      }
    }
    guard let fields else { throw failure! }
    return fields
  }

  /// ``parse(_:)`` over the record's bytes where they lie: no reference counting, each
  /// field's length checked once against the room left (so the loads after it need no
  /// checks of their own), fixed-size fields by their exact length.
  private static func parse(record: UnsafeRawBufferPointer) throws(DocbmError) -> BookmarkFields {
    let end = record.count - BookmarkRecord.tagLength
    guard let base = record.baseAddress else {
      throw BookmarkRecord.corrupt("the bookmark lacks a required field")
    }
    var kind: TargetKind?
    var relative: Range<Int>?
    var absolute: Range<Int>?
    var createdAt: Timestamp?
    var handleType: Int32?
    var handle: Range<Int>?
    var inode: UInt64?
    var generation: UInt32?
    var birthTime: Timestamp?
    var size: UInt64?
    var modification: Timestamp?
    var fsid: UInt64?
    var mountPoint: Range<Int>?
    var documentPath: Range<Int>?
    var documentIdentity: RecordedDocument?
    var previousTag: Int = -1

    /// A big-endian integer at `offset`.
    func load<Integer: FixedWidthInteger>(_: Integer.Type, at offset: Int) -> Integer {
      Integer(bigEndian: base.loadUnaligned(fromByteOffset: offset, as: Integer.self))
    }
    /// A timestamp of exactly 12 bytes at `field`: seconds, then nanoseconds below 10⁹.
    func timestamp(_ field: Range<Int>) -> Timestamp? {
      guard field.count == 12 else { return nil }
      let nanoseconds = load(UInt32.self, at: field.lowerBound + 8)
      guard nanoseconds < 1_000_000_000 else { return nil }
      return Timestamp(seconds: load(Int64.self, at: field.lowerBound), nanoseconds: nanoseconds)
    }
    /// A path's bytes: not empty, no NUL; `absolute` says whether it must start at the root.
    func path(_ field: Range<Int>, absolute: Bool?) -> Range<Int>? {
      guard !field.isEmpty,
        !ByteSearch.contains(
          0, in: UnsafeRawBufferPointer(start: base + field.lowerBound, count: field.count))
      else { return nil }
      if let absolute,
        (base.load(fromByteOffset: field.lowerBound, as: UInt8.self) == UInt8(ascii: "/")) != absolute
      {
        return nil
      }
      return field
    }

    var offset = BookmarkRecord.headerLength
    while offset < end {
      // A tag byte and a 16-bit length, then that many bytes.
      guard end - offset >= 3 else {
        throw BookmarkRecord.corrupt("a field runs past the end of the bookmark")
      }
      let tag = base.load(fromByteOffset: offset, as: UInt8.self)
      let length = Int(load(UInt16.self, at: offset + 1))
      guard length <= end - offset - 3 else {
        throw BookmarkRecord.corrupt("a field runs past the end of the bookmark")
      }
      let field = (offset + 3)..<(offset + 3 + length)
      offset = field.upperBound
      guard Int(tag) > previousTag else {
        throw BookmarkRecord.corrupt("field 0x\(String(tag, radix: 16)) is repeated or out of order")
      }
      previousTag = Int(tag)
      let parsed: Bool
      switch tag {
      case Tag.kind:
        kind =
          length == 1 ? TargetKind(code: base.load(fromByteOffset: field.lowerBound, as: UInt8.self)) : nil
        parsed = kind != nil
      case Tag.relativePath:
        // Any bytes but NUL: older records are read as they are.
        relative = path(field, absolute: nil)
        parsed = relative != nil
      case Tag.absolutePath:
        absolute = path(field, absolute: true)
        parsed = absolute != nil
      case Tag.createdAt:
        createdAt = timestamp(field)
        parsed = createdAt != nil
      case Tag.fileHandle:
        // The handle type, then 1 to 128 bytes of handle.
        parsed = (5...132).contains(length)
        if parsed {
          handleType = load(Int32.self, at: field.lowerBound)
          handle = (field.lowerBound + 4)..<field.upperBound
        }
      case Tag.inode:
        parsed = length == 8
        if parsed { inode = load(UInt64.self, at: field.lowerBound) }
      case Tag.generation:
        parsed = length == 4
        if parsed { generation = load(UInt32.self, at: field.lowerBound) }
      case Tag.birthTime:
        birthTime = timestamp(field)
        parsed = birthTime != nil
      case Tag.size:
        parsed = length == 8
        if parsed { size = load(UInt64.self, at: field.lowerBound) }
      case Tag.modificationTime:
        modification = timestamp(field)
        parsed = modification != nil
      case Tag.filesystemID:
        parsed = length == 8
        if parsed { fsid = load(UInt64.self, at: field.lowerBound) }
      case Tag.mountPoint:
        mountPoint = path(field, absolute: true)
        parsed = mountPoint != nil
      case Tag.documentPath:
        documentPath = path(field, absolute: false)
        parsed = documentPath != nil
      case Tag.documentIdentity:
        // The inode number, then the birth time where one was recorded.
        if length == 8 || length == 20 {
          let birthTime = length == 20 ? timestamp((field.lowerBound + 8)..<field.upperBound) : nil
          if length == 8 || birthTime != nil {
            documentIdentity = RecordedDocument(
              inode: load(UInt64.self, at: field.lowerBound), birthTime: birthTime)
          }
        }
        parsed = documentIdentity != nil
      case Tag.firstOptional...:
        parsed = true
      default:
        throw DocbmError(
          .unsupportedVersion,
          message: "the bookmark has field 0x\(String(tag, radix: 16)), which this docbm does not know")
      }
      guard parsed else { throw BookmarkRecord.corrupt("field 0x\(String(tag, radix: 16)) is malformed") }
    }
    guard let kind, let relative, let absolute, let createdAt, let inode, let size, let modification else {
      throw BookmarkRecord.corrupt("the bookmark lacks a required field")
    }
    return BookmarkFields(
      kind: kind, relativePath: relative, absolutePath: absolute, createdAt: createdAt,
      fileHandleType: handleType, fileHandle: handle, inode: inode, generation: generation,
      birthTime: birthTime, size: size, modificationTime: modification, filesystemID: fsid,
      mountPoint: mountPoint, documentPath: documentPath, documentIdentity: documentIdentity)
  }

  /// The contents these fields describe, made from `bytes` (the record they were parsed
  /// from).
  func contents(of bytes: [UInt8], header: BookmarkRecord.Header) -> BookmarkContents {
    func path(_ range: Range<Int>) -> FilePath { FilePath(uncheckedBytes: Array(bytes[range])) }
    var handle: KernelFileHandle?
    if let fileHandleType, let fileHandle {
      handle = KernelFileHandle(type: fileHandleType, bytes: Array(bytes[fileHandle]))
    }
    return BookmarkContents(
      version: header.version, keyFingerprint: header.fingerprint, kind: kind,
      relativePath: path(relativePath), absolutePath: path(absolutePath), createdAt: createdAt,
      identity: TargetIdentity(
        fileHandle: handle, inode: inode, generation: generation, birthTime: birthTime, size: size,
        modificationTime: modificationTime),
      volume: VolumeHint(filesystemID: filesystemID, mountPoint: mountPoint.map(path)),
      documentPathFromTarget: documentPath.map(path), documentIdentity: documentIdentity)
  }
}
