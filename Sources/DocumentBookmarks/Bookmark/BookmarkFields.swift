import Glibc

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

  /// ``parse(_:)`` over the record's bytes where they lie: no reference counting, no bounds
  /// checks beyond the reader's own.
  private static func parse(record: UnsafeRawBufferPointer) throws(DocbmError) -> BookmarkFields {
    var reader = Reader(
      record, from: BookmarkRecord.headerLength, to: record.count - BookmarkRecord.tagLength)
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
    var previousTag: Int = -1

    while !reader.isAtEnd {
      guard let tag = reader.readByte(), let length = reader.read(UInt16.self),
        let range = reader.skip(Int(length))
      else { throw BookmarkRecord.corrupt("a field runs past the end of the bookmark") }
      guard Int(tag) > previousTag else {
        throw BookmarkRecord.corrupt("field 0x\(String(tag, radix: 16)) is repeated or out of order")
      }
      previousTag = Int(tag)
      var field = Reader(record, from: range.lowerBound, to: range.upperBound)
      let value = UnsafeRawBufferPointer(rebasing: record[range])
      /// A path's bytes: not empty, no NUL; `absolute` says whether it must start at the root.
      func path(absolute: Bool?) -> Range<Int>? {
        guard !value.isEmpty, memchr(value.baseAddress!, 0, value.count) == nil else { return nil }
        if let absolute, (value[0] == UInt8(ascii: "/")) != absolute { return nil }
        return range
      }
      var parsed: Bool
      switch tag {
      case Tag.kind:
        kind = field.readByte().flatMap(TargetKind.init(code:))
        parsed = kind != nil
      case Tag.relativePath:
        // Any bytes but NUL: older records are read as they are.
        relative = path(absolute: nil)
        parsed = relative != nil
        field.skipToEnd()
      case Tag.absolutePath:
        absolute = path(absolute: true)
        parsed = absolute != nil
        field.skipToEnd()
      case Tag.createdAt:
        createdAt = field.readTimestamp()
        parsed = createdAt != nil
      case Tag.fileHandle:
        parsed = false
        if let type = field.read(Int32.self), field.remaining > 0, field.remaining <= 128,
          let rest = field.skip(field.remaining)
        {
          handleType = type
          handle = rest
          parsed = true
        }
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
        mountPoint = path(absolute: true)
        parsed = mountPoint != nil
        field.skipToEnd()
      case Tag.documentPath:
        documentPath = path(absolute: false)
        parsed = documentPath != nil
        field.skipToEnd()
      case Tag.firstOptional...:
        parsed = true
        field.skipToEnd()
      default:
        throw DocbmError(
          .unsupportedVersion,
          message: "the bookmark has field 0x\(String(tag, radix: 16)), which this docbm does not know")
      }
      guard parsed, field.isAtEnd else {
        throw BookmarkRecord.corrupt("field 0x\(String(tag, radix: 16)) is malformed")
      }
    }
    guard let kind, let relative, let absolute, let createdAt, let inode, let size, let modification else {
      throw BookmarkRecord.corrupt("the bookmark lacks a required field")
    }
    return BookmarkFields(
      kind: kind, relativePath: relative, absolutePath: absolute, createdAt: createdAt,
      fileHandleType: handleType, fileHandle: handle, inode: inode, generation: generation,
      birthTime: birthTime, size: size, modificationTime: modification, filesystemID: fsid,
      mountPoint: mountPoint, documentPath: documentPath)
  }

  /// Reads big-endian integers from part of a record, never past the part's end; offsets
  /// are the record's.
  private struct Reader {
    let bytes: UnsafeRawBufferPointer
    var offset: Int
    let end: Int

    init(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) {
      self.bytes = bytes
      self.offset = start
      self.end = end
    }

    var isAtEnd: Bool { offset >= end }
    var remaining: Int { end - offset }

    /// The next `count` bytes' range, skipped.
    mutating func skip(_ count: Int) -> Range<Int>? {
      guard count >= 0, remaining >= count else { return nil }
      defer { offset += count }
      return offset..<(offset + count)
    }

    mutating func skipToEnd() { offset = end }

    mutating func readByte() -> UInt8? {
      guard offset < end else { return nil }
      defer { offset += 1 }
      return bytes[offset]
    }

    mutating func read<Integer: FixedWidthInteger>(_: Integer.Type) -> Integer? {
      let size = MemoryLayout<Integer>.size
      guard remaining >= size else { return nil }
      defer { offset += size }
      return Integer(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Integer.self))
    }

    mutating func readTimestamp() -> Timestamp? {
      guard let seconds = read(Int64.self), let nanos = read(UInt32.self), nanos < 1_000_000_000
      else { return nil }
      return Timestamp(seconds: seconds, nanoseconds: nanos)
    }
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
      documentPathFromTarget: documentPath.map(path))
  }
}
