import DocbmSystem

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

  /// ``parse(_:)`` over the record's bytes where they lie, read with a ``ByteReader``:
  /// each field's length checked against the room left, fixed-size fields by their exact
  /// length.
  private static func parse(record: UnsafeRawBufferPointer) throws(DocbmError) -> BookmarkFields {
    let end = record.count - BookmarkRecord.tagLength
    // The tag is not part of any field.
    let reader = ByteReader(UnsafeRawBufferPointer(rebasing: record[..<max(0, end)]))
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

    /// A big-endian number of 8 bytes filling exactly `field`.
    func uint64(_ field: Range<Int>) -> UInt64? {
      field.count == 8 ? reader.bigEndian(UInt64.self, at: field.lowerBound) : nil
    }
    /// A timestamp of exactly 12 bytes at `field`: seconds, then nanoseconds below 10⁹.
    func timestamp(_ field: Range<Int>) -> Timestamp? {
      guard field.count == 12, let seconds = reader.bigEndian(Int64.self, at: field.lowerBound),
        let nanoseconds = reader.bigEndian(UInt32.self, at: field.lowerBound + 8), nanoseconds < 1_000_000_000
      else { return nil }
      return Timestamp(seconds: seconds, nanoseconds: nanoseconds)
    }
    /// A path's bytes: not empty, no NUL; `absolute` says whether it must start at the root.
    func path(_ field: Range<Int>, absolute: Bool?) -> Range<Int>? {
      guard let bytes = reader.slice(field), !bytes.isEmpty, !ByteSearch.contains(0, in: bytes) else {
        return nil
      }
      if let absolute, (bytes[0] == UInt8(ascii: "/")) != absolute { return nil }
      return field
    }

    var offset = BookmarkRecord.headerLength
    while offset < end {
      // A tag byte and a 16-bit length, then that many bytes.
      guard let tag = reader.byte(at: offset), let length16 = reader.bigEndian(UInt16.self, at: offset + 1)
      else {
        throw BookmarkRecord.corrupt("a field runs past the end of the bookmark")
      }
      let length = Int(length16)
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
        kind = length == 1 ? reader.byte(at: field.lowerBound).flatMap(TargetKind.init(code:)) : nil
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
        if (5...132).contains(length), let type = reader.bigEndian(Int32.self, at: field.lowerBound) {
          handleType = type
          handle = (field.lowerBound + 4)..<field.upperBound
        }
        parsed = handle != nil
      case Tag.inode:
        inode = uint64(field)
        parsed = inode != nil
      case Tag.generation:
        generation = length == 4 ? reader.bigEndian(UInt32.self, at: field.lowerBound) : nil
        parsed = generation != nil
      case Tag.birthTime:
        birthTime = timestamp(field)
        parsed = birthTime != nil
      case Tag.size:
        size = uint64(field)
        parsed = size != nil
      case Tag.modificationTime:
        modification = timestamp(field)
        parsed = modification != nil
      case Tag.filesystemID:
        fsid = uint64(field)
        parsed = fsid != nil
      case Tag.mountPoint:
        mountPoint = path(field, absolute: true)
        parsed = mountPoint != nil
      case Tag.documentPath:
        documentPath = path(field, absolute: false)
        parsed = documentPath != nil
      case Tag.documentIdentity:
        // The inode number, then the birth time where one was recorded.
        if length == 8 || length == 20, let inode = reader.bigEndian(UInt64.self, at: field.lowerBound) {
          let birthTime = length == 20 ? timestamp((field.lowerBound + 8)..<field.upperBound) : nil
          if length == 8 || birthTime != nil {
            documentIdentity = RecordedDocument(inode: inode, birthTime: birthTime)
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
