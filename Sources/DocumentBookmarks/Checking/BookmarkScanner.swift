import DocbmSystem

/// Finds docbm bookmarks inside a document's bytes, whatever the document's format, so a
/// checker can list and resolve the bookmarks of any document without knowing where the
/// app stored them.
///
/// It finds the three ways apps store bookmarks (``BookmarkForm``):
///
/// - **binary**: the record's bytes, which start with the magic `76 87 1B 99 17 9C`;
/// - **text**: the text form, URL-safe base64 starting with `docbmRec`, as `Codable`
///   writes a ``Bookmark``;
/// - **base64**: standard base64 as `JSONEncoder` writes `Data` (`\/` is read as `/`),
///   whether the record is the whole value (its base64 starts with `docbmRec`) or lies at
///   any byte inside a larger value (the magic's base64 is then `aHG5kXn` or `2hxuZF5`,
///   depending on where the record falls in a 3-byte group).
///
/// Every candidate must pass ``Bookmark/init(bytes:)``, which checks the magic, version,
/// flags and exact length, so random or text bytes do not produce bookmarks. Signatures
/// are not checked (there is no key here): ``AnchoredDocument/resolve(_:)-(Bookmark)`` does that.
///
/// A record is reported once, in the one form it is written in. Base64 that begins with
/// `docbmRec` is the text form or standard base64 by the characters it uses: `+`, `/` or
/// `\/` make it base64, `-` or `_` the text form; with none of these, `=` padding (or
/// unused bits that are not zero, the encoded value going on) makes it base64, and
/// otherwise it is exactly a text form and is reported as ``BookmarkForm/text``.
///
/// Streaming scans read the file in chunks of ``chunkSize`` bytes and keep at most
/// ``maximumCarry`` bytes between chunks, so memory stays the same whatever the file's
/// size. Time is linear in the file's size: the search for each pattern runs the C
/// library's vectorized `memchr` for one rare byte of it.
///
/// Crafted bytes cost no more. A record found at `[p, p + n)` takes those bytes: an
/// anchor inside it is not a candidate of its own, so overlapping fake headers are
/// decoded once per record's length, not once per header. A base64 decode that fails on a
/// character is remembered, and later candidates that would run into that character are
/// rejected without decoding. And a scan stops at its ``limits`` (bookmarks reported,
/// candidates examined), saying so in its ``BookmarkScanCompletion``.
public struct BookmarkScanner: Sendable {
  /// Bytes read at a time by ``scan(fileAt:_:)``.
  public let chunkSize: Int

  /// The most bookmarks reported and candidates examined per document.
  public let limits: BookmarkScanLimits

  /// The most bytes kept from one chunk for the next: enough for a candidate record of
  /// the largest length (10 240 bytes) in base64 with every character written `\/`
  /// (about 27 KiB).
  public static let maximumCarry = BookmarkScanEngine.maximumCarry

  /// Makes a scanner that reads `chunkSize` bytes at a time (1 MiB by default) and stops
  /// at `limits`.
  ///
  /// - Precondition: `chunkSize` is positive. Small chunks work, but a candidate that
  ///   does not fit in one is decoded again as each chunk arrives; keep chunks at a few
  ///   KiB or more.
  public init(chunkSize: Int = 1 << 20, limits: BookmarkScanLimits = .standard) {
    precondition(chunkSize > 0, "the chunk size must be positive")
    self.chunkSize = chunkSize
    self.limits = limits
  }

  /// Every bookmark in `bytes`, in the order of their offsets (counted from the
  /// collection's first element), up to the scanner's ``limits``: a scanner made with
  /// ``BookmarkScanLimits/unlimited`` reports them all. Records never overlap, so the
  /// result holds fewer bytes than `bytes` does.
  public func scan(_ bytes: some Collection<UInt8>) -> [FoundBookmark] {
    var results: [FoundBookmark] = []
    let report = { (found: FoundBookmark) in results.append(found) }
    let scanned: Void? = bytes.withContiguousStorageIfAvailable { buffer in
      scanWhole(UnsafeRawBufferPointer(buffer), report)
    }
    if scanned == nil {
      Array(bytes).withUnsafeBytes { scanWhole($0, report) }
    }
    return results
  }

  /// Reads the file at `path` chunk by chunk and calls `found` with each bookmark, in the
  /// order of their offsets, as soon as it is found.
  ///
  /// - Returns: whether the scan reached the end of the file, or stopped at one of its
  ///   ``limits`` (and where): a caller that judges the document from its bookmarks must
  ///   not take a stopped scan for all of them.
  /// - Throws: ``DocbmError`` when the file cannot be opened or read: `notFound`,
  ///   `permissionDenied`, `unsupportedFileType` (a folder), `ioError` or `systemFailure`.
  ///   Bookmarks reported before a read failure stay reported.
  @discardableResult
  public func scan(fileAt path: FilePath, _ found: (FoundBookmark) -> Void) throws(DocbmError)
    -> BookmarkScanCompletion
  {
    var statistics = BookmarkScanStatistics()
    try scan(fileAt: path, statistics: &statistics, found)
    return statistics.completion
  }

  /// ``scan(fileAt:_:)``, recording what the scan held and examined in `statistics`.
  package func scan(
    fileAt path: FilePath, statistics: inout BookmarkScanStatistics, _ found: (FoundBookmark) -> Void
  ) throws(DocbmError) {
    let fd = try BookmarkScanner.openForReading(path)
    try fd.closeAfter { fd throws(DocbmError) in
      try scan(descriptor: fd, path: path, statistics: &statistics, found)
    }
  }

  /// Opens a document for scanning: non-blocking (a FIFO given by mistake is refused, not
  /// waited on) and, where permitted, without updating its access time (checking reads;
  /// it changes nothing about the document).
  ///
  /// A tree walk passes the folder it listed, open, and the entry's `name` in it (opened
  /// without following a symbolic link); `path` then only names the document in errors.
  package static func openForReading(
    _ path: FilePath, named name: FilePath? = nil, in folder: FileDescriptor = .currentWorkingDirectory
  ) throws(DocbmError) -> FileDescriptor {
    let options = name == nil ? Self.options : Self.optionsNoFollow
    return try mappingSystemErrors(.scan, path: path) { () throws(SystemCallError) in
      do throws(SystemCallError) {
        return try FileDescriptor.open(name ?? path, options.union(.noAccessTime), relativeTo: folder)
      } catch  where error.errno == .notPermitted {
        return try FileDescriptor.open(name ?? path, options, relativeTo: folder)
      }
    }
  }

  /// ``openForReading(_:named:in:)`` of the entry `name` of `folder`, given as a C string
  /// where a ``DirectoryListing`` holds it.
  package static func openForReading(
    _ path: FilePath, cName name: UnsafePointer<CChar>, in folder: FileDescriptor
  ) throws(DocbmError) -> FileDescriptor {
    let options = Self.optionsNoFollow
    return try mappingSystemErrors(.scan, path: path) { () throws(SystemCallError) in
      do throws(SystemCallError) {
        return try FileDescriptor.open(name: name, options.union(.noAccessTime), relativeTo: folder)
      } catch  where error.errno == .notPermitted {
        return try FileDescriptor.open(name: name, options, relativeTo: folder)
      }
    }
  }

  /// How documents are opened for scanning: non-blocking, and never through a final link
  /// when listed by a walk.
  private static let options: FileDescriptor.Options = [.readOnly, .nonBlocking]
  private static let optionsNoFollow: FileDescriptor.Options = [.readOnly, .nonBlocking, .noFollow]

  /// Scans an open document from its current offset (the start, for a fresh descriptor).
  ///
  /// - Parameter knownRegular: the caller already knows the descriptor is a regular file
  ///   (a tree walk read it from the folder's listing), which saves an `fstat`.
  package func scan(
    descriptor fd: FileDescriptor, path: FilePath, knownRegular: Bool = false,
    statistics: inout BookmarkScanStatistics, _ found: (FoundBookmark) -> Void
  ) throws(DocbmError) {
    var expectedSize: UInt64?
    if !knownRegular {
      let status = try mappingSystemErrors(.scan, path: path) { () throws(SystemCallError) in
        try FileStatus.of(fd)
      }
      guard status.kind == .regular else {
        throw DocbmError(
          .unsupportedFileType, path: path,
          message: "\(path) is not a regular file, so there are no document bytes to scan")
      }
      expectedSize = status.size
    }
    try mappingSystemErrors(.scan, path: path) { () throws(SystemCallError) in
      try scan(fd, expectedSize: expectedSize, statistics: &statistics, found)
    }
  }

  private func scanWhole(_ bytes: UnsafeRawBufferPointer, _ found: (FoundBookmark) -> Void) {
    var engine = BookmarkScanEngine(limits: limits)
    _ = engine.scan(bytes, origin: 0, isFinal: true, found: found)
  }

  /// The streaming loop: one buffer of a chunk plus the largest carry-over; each round
  /// fills a chunk after the bytes kept from the last one, scans, and keeps the tail.
  ///
  /// The buffer starts small (the file's size when known, else ``firstBufferSize``) and is
  /// made whole only for a file that goes on past it: in a tree check most documents are
  /// small and read in one window that keeps nothing, so each costs a small allocation, not
  /// one of a chunk and the largest carry-over (about 90 KiB). A file that grew past the
  /// size it had (`expectedSize`) fills the first buffer, and the whole one takes over.
  func scan(
    _ fd: FileDescriptor, expectedSize: UInt64?, statistics: inout BookmarkScanStatistics,
    _ found: (FoundBookmark) -> Void
  ) throws(SystemCallError) {
    // A small file gets a small buffer (no large allocation per document in a tree check);
    // a file that grows while it is read is still read whole, window after window.
    let chunkSize = Int(min(UInt64(self.chunkSize), max(4096, (expectedSize ?? 65535) + 1)))
    let fullCapacity = chunkSize + Self.maximumCarry
    let firstSize = expectedSize == nil ? min(chunkSize, Self.firstBufferSize) : chunkSize
    var buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: firstSize, alignment: 16)
    defer { buffer.deallocate() }
    var engine = BookmarkScanEngine(limits: limits)
    defer {
      statistics.bufferCapacity = buffer.count
      statistics.candidatesExamined = engine.candidatesExamined
      statistics.bookmarksFound = engine.bookmarksFound
      statistics.bytesDecoded = engine.bytesDecoded
      statistics.completion = engine.completion
    }
    var origin: UInt64 = 0
    var carried = 0
    while true {
      var filled = carried
      var atEnd = false
      while filled < carried + chunkSize {
        if filled == buffer.count {
          // The file goes on past the first buffer: the whole one, with room to carry.
          let whole = UnsafeMutableRawBufferPointer.allocate(byteCount: fullCapacity, alignment: 16)
          whole.baseAddress!.copyMemory(from: buffer.baseAddress!, byteCount: filled)
          buffer.deallocate()
          buffer = whole
        }
        let wanted = min(carried + chunkSize, buffer.count) - filled
        let count = try fd.read(
          into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled..<(filled + wanted)]))
        if count == 0 {
          atEnd = true
          break
        }
        filled += count
        // A short read of a regular file is its end: no extra read to be told so. (A file
        // that grows while it is checked is checked as it was.)
        if count < wanted {
          atEnd = true
          break
        }
      }
      statistics.bytesRead += UInt64(filled - carried)
      statistics.windows += 1
      statistics.maximumBufferedBytes = max(statistics.maximumBufferedBytes, filled)
      let window = UnsafeRawBufferPointer(rebasing: buffer[0..<filled])
      let keepFrom = engine.scan(window, origin: origin, isFinal: atEnd, found: found)
      if atEnd || !engine.completion.isComplete { return }
      carried = filled - keepFrom
      precondition(carried <= Self.maximumCarry, "the scanner kept more than its bound")
      statistics.maximumCarriedBytes = max(statistics.maximumCarriedBytes, carried)
      if keepFrom > 0 {
        buffer.baseAddress!.copyMemory(from: buffer.baseAddress! + keepFrom, byteCount: carried)
      }
      origin += UInt64(keepFrom)
    }
  }

  /// The first buffer for a file whose size is not known: most documents in a tree fit.
  static let firstBufferSize = 16 * 1024
}
