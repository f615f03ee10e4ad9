import DocbmSystem
import DocbmTestSupport
import Foundation
import Glibc
import Testing

@testable import DocumentBookmarks

@Suite("Bookmark scanner")
struct BookmarkScannerTests {
  /// A document with a key and real bookmarks to files of different name lengths, so
  /// that the records' lengths cover every remainder modulo 3.
  struct Fixture {
    let scratch: Scratch
    let document: AnchoredDocument
    private(set) var bookmarks: [Bookmark] = []

    init(count: Int = 9) throws {
      scratch = try Scratch()
      let documentPath = try scratch.file("project/board.json", "{}")
      document = BookmarkService(escrow: nil).documents(anchoredOn: documentPath)
      for _ in 0..<count { try makeBookmark() }
    }

    @discardableResult
    mutating func makeBookmark() throws -> Bookmark {
      let index = bookmarks.count
      let name = "project/images/picture-\(index)-" + String(repeating: "x", count: index % 7) + ".png"
      let bookmark = try document.makeBookmark(to: try scratch.file(name, "PNG"))
      bookmarks.append(bookmark)
      return bookmark
    }

    /// The first bookmark (making more, up to 64) that satisfies `condition`.
    mutating func bookmark(where condition: (Bookmark) -> Bool) throws -> Bookmark {
      if let existing = bookmarks.first(where: condition) { return existing }
      for _ in 0..<64 {
        let made = try makeBookmark()
        if condition(made) { return made }
      }
      throw NoSuchBookmark()
    }
  }

  // MARK: - Forms at known offsets

  @Test("the base64 of the magic at each shift in a 3-byte group is what Foundation encodes")
  func anchorPatterns() {
    #expect(
      ScanAnchor.all.map(\.pattern) == [
        BookmarkRecord.magic, Array("docbmRec".utf8), Array("aHG5kXn".utf8), Array("2hxuZF5".utf8),
      ])
    #expect(ScanAnchor.all.map(\.charactersBefore) == [0, 0, 2, 3])
    #expect(ScanAnchor.all.map { $0.pattern[$0.keyIndex] } == [0x17] + Array("RXZ".utf8))
    for shift in 0...2 {
      let anchor = ScanAnchor.all[1 + shift]
      for filler: UInt8 in [0x00, 0x5A, 0xFF] {
        for after: UInt8 in [0x00, 0xFF] {
          let blob = [UInt8](repeating: filler, count: shift) + BookmarkRecord.magic + [after, after]
          let encoded = Array(Data(blob).base64EncodedString().utf8)
          let first = anchor.charactersBefore
          #expect(Array(encoded[first..<(first + anchor.pattern.count)]) == anchor.pattern)
        }
      }
    }
  }

  @Test("the byte search finds what a plain search finds, from any start, up to the last byte")
  func byteSearch() {
    var random = SeededGenerator(seed: 3)
    // Few distinct bytes, so that partial matches and hits are frequent.
    let haystack = randomBytes(20_000, &random).map { $0 & 0x03 }
    for length in 1...5 {
      for keyIndex in 0..<length {
        let needle = Array(haystack[(9_000 + length)..<(9_000 + 2 * length)])
        for start in [0, 1, 4_999, 9_000 + length, 19_999 - length, 20_000 - length, 20_000] {
          let plain =
            start + length > haystack.count
            ? nil
            : (start...(haystack.count - length)).first { haystack[$0..<($0 + length)].elementsEqual(needle) }
          let fast = haystack.withUnsafeBytes { bytes in
            needle.withUnsafeBytes {
              ByteSearch.firstIndex(of: $0, keyIndex: keyIndex, in: bytes, from: start)
            }
          }
          #expect(fast == plain, "needle \(needle), key \(keyIndex), from \(start)")
        }
      }
    }
    let tail: [UInt8] = [9, 9, 1, 2, 3]
    #expect(
      tail.withUnsafeBytes { bytes in
        [UInt8]([2, 3]).withUnsafeBytes { ByteSearch.firstIndex(of: $0, keyIndex: 1, in: bytes, from: 0) }
      } == 3)
  }

  enum Placement: String, CaseIterable, Sendable {
    case binary, text, base64, escapedBase64, blob, escapedBlob
  }

  @Test(
    "every form is found at its offset among random bytes, several per buffer", arguments: Placement.allCases)
  func formsAtRandomOffsets(_ placement: Placement) throws {
    var fixture = try Fixture()
    let standard = try standardBookmarks(&fixture)
    for seed: UInt64 in 1...4 {
      var random = SeededGenerator(seed: seed)
      var builder = DocumentBuilder()
      for index in 0..<8 {
        builder.appendRandom(Int.random(in: 0..<3000, using: &random), &random)
        switch placement {
        case .binary: builder.appendBinary(fixture.bookmarks[index % fixture.bookmarks.count])
        case .text: builder.appendText(fixture.bookmarks[index % fixture.bookmarks.count])
        case .base64: builder.appendBase64(fixture.bookmarks[index % fixture.bookmarks.count], escaped: false)
        case .escapedBase64:
          builder.appendBase64(fixture.bookmarks[index % fixture.bookmarks.count], escaped: true)
        case .blob, .escapedBlob:
          builder.appendBlob(
            standard[index % standard.count], at: index, suffix: index % 4,
            escaped: placement == .escapedBlob,
            &random)
        }
      }
      builder.appendRandom(100, &random)
      #expect(builder.expected.count == 8)
      #expect(BookmarkScanner().scan(builder.bytes) == builder.expected, "seed \(seed)")
    }
  }

  @Test("bookmarks of every form and shift in one buffer, each reported once")
  func mixedForms() throws {
    var fixture = try Fixture()
    let standard = try standardBookmarks(&fixture)
    var random = SeededGenerator(seed: 42)
    let builder = mixedDocument(fixture.bookmarks, standard: standard, rounds: 3, &random)
    #expect(Set(fixture.bookmarks.map { $0.bytes.count % 3 }) == [0, 1, 2])
    let found = BookmarkScanner().scan(builder.bytes)
    #expect(found == builder.expected)
    #expect(Set(found.map(\.form)) == [.binary, .text, .base64])
    #expect(Set(found.map(\.offset)).count == found.count)
    // The same bytes as Data and as a non-contiguous collection give the same result.
    #expect(BookmarkScanner().scan(Data(builder.bytes)) == builder.expected)
    #expect(BookmarkScanner().scan(builder.bytes.lazy.map { $0 }) == builder.expected)
  }

  // MARK: - JSON documents

  struct Board: Codable {
    var title: String
    var thumbnail: Data
    var attachments: [Data]
    var archive: Data
    var links: [Bookmark]
  }

  @Test(
    "a JSONEncoder document with Data fields (escaped slashes or not) and [Bookmark] fields",
    arguments: [false, true])
  func jsonDocument(withoutEscapingSlashes: Bool) throws {
    var fixture = try Fixture()
    let withSlash = try fixture.bookmark { $0.data.base64EncodedString().contains("/") }
    let others = fixture.bookmarks.filter { $0 != withSlash }
    var random = SeededGenerator(seed: 7)
    let archiveOffset = 5
    let archivePrefix = randomBytes(archiveOffset, &random)
    let archive = Data(archivePrefix + withSlash.bytes + randomBytes(40, &random))
    let board = Board(
      title: "Quarterly board / plans", thumbnail: withSlash.data,
      attachments: others.prefix(3).map(\.data), archive: archive, links: Array(others.suffix(3)))
    let encoder = JSONEncoder()
    encoder.outputFormatting =
      withoutEscapingSlashes ? [.sortedKeys, .withoutEscapingSlashes] : [.sortedKeys]
    let json = Array(try encoder.encode(board))
    let text = String(decoding: json, as: UTF8.self)
    #expect(text.contains("\\/") == !withoutEscapingSlashes)

    var expected: [FoundBookmark] = []
    for bookmark in [withSlash] + others.prefix(3) {
      let encoded = jsonString(bookmark.data.base64EncodedString(), escaped: !withoutEscapingSlashes)
      let position = try #require(firstIndex(of: Array("\"\(encoded)\"".utf8), in: json)) + 1
      expected.append(
        FoundBookmark(offset: UInt64(position), form: standaloneForm(bookmark), bookmark: bookmark))
    }
    for bookmark in others.suffix(3) {
      let position = try #require(firstIndex(of: Array("\"\(bookmark.text)\"".utf8), in: json)) + 1
      expected.append(FoundBookmark(offset: UInt64(position), form: .text, bookmark: bookmark))
    }
    let archiveBase64 = archive.base64EncodedString()
    let archiveEncoded = jsonString(archiveBase64, escaped: !withoutEscapingSlashes)
    let archiveStart = try #require(firstIndex(of: Array("\"\(archiveEncoded)\"".utf8), in: json)) + 1
    let groupCharacter = 4 * (archiveOffset / 3)
    let groupByte = byteOffset(
      ofCharacter: groupCharacter, in: archiveBase64, escaped: !withoutEscapingSlashes)
    expected.append(
      FoundBookmark(offset: UInt64(archiveStart + groupByte), form: .base64, bookmark: withSlash))
    expected.sort { $0.offset < $1.offset }

    #expect(BookmarkScanner().scan(json) == expected)
    #expect(try JSONDecoder().decode(Board.self, from: Data(json)).links == board.links)
  }

  // MARK: - Records inside larger base64 values

  @Test(
    "the base64 of a blob holding the record at bytes 0 to 5 (every shift), ending there or going on",
    arguments: 0...5, [0, 1, 2, 7])
  func embeddedInBlob(offset: Int, suffix: Int) throws {
    var fixture = try Fixture()
    let bookmark = try fixture.bookmark(where: hasStandardCharacters)
    var random = SeededGenerator(seed: UInt64(offset * 10 + suffix))
    let blob = randomBytes(offset, &random) + bookmark.bytes + randomBytes(suffix, &random)
    let base64 = Data(blob).base64EncodedString()
    for escaped in [false, true] {
      let document = Array(("{\"blob\":\"" + jsonString(base64, escaped: escaped) + "\"}").utf8)
      let start = "{\"blob\":\"".utf8.count
      let groupByte = byteOffset(ofCharacter: 4 * (offset / 3), in: base64, escaped: escaped)
      #expect(
        BookmarkScanner().scan(document) == [
          FoundBookmark(offset: UInt64(start + groupByte), form: .base64, bookmark: bookmark)
        ], "record at byte \(offset), \(suffix) bytes after it, escaped slashes: \(escaped)")
      // Alone, without anything around it.
      #expect(
        BookmarkScanner().scan(Array(jsonString(base64, escaped: escaped).utf8)).map(\.offset) == [
          UInt64(groupByte)
        ])
    }
  }

  // MARK: - Text form or base64

  @Test("base64 that starts with docbmRec is text or base64 by its alphabet and padding, reported once")
  func textOrBase64() throws {
    var fixture = try Fixture()
    let urlSafe = try fixture.bookmark { $0.text.contains("-") || $0.text.contains("_") }
    let standard = try fixture.bookmark(where: hasStandardCharacters)
    #expect(BookmarkScanner().scan(Array(urlSafe.text.utf8)) == [hit(0, .text, urlSafe)])
    #expect(BookmarkScanner().scan(Array(standard.text.utf8)) == [hit(0, .text, standard)])
    let standardBase64 = standard.data.base64EncodedString()
    #expect(BookmarkScanner().scan(Array(standardBase64.utf8)) == [hit(0, .base64, standard)])
    #expect(
      BookmarkScanner().scan(Array(jsonString(standardBase64, escaped: true).utf8)) == [
        hit(0, .base64, standard)
      ])

    // Records (framing only, not signed) whose base64 uses neither +/ nor -_.
    let even = try neutralRecord(length: 36)
    let evenBase64 = even.data.base64EncodedString()
    #expect(evenBase64 == even.text)
    #expect(BookmarkScanner().scan(Array(evenBase64.utf8)) == [hit(0, .text, even)])
    let odd = try neutralRecord(length: 35)
    let oddBase64 = odd.data.base64EncodedString()
    #expect(oddBase64 == odd.text + "=")
    #expect(BookmarkScanner().scan(Array(oddBase64.utf8)) == [hit(0, .base64, odd)])
    #expect(BookmarkScanner().scan(Array(("\"" + odd.text + "\"").utf8)) == [hit(1, .text, odd)])
    // At the start of a longer value, the last character carries bits of the next byte.
    let longer = Data(odd.bytes + [0xFF, 0xFF, 0xFF]).base64EncodedString()
    #expect(BookmarkScanner().scan(Array(longer.utf8)) == [hit(0, .base64, odd)])
    // Both alphabets in one record is neither form.
    var mixed = Array(urlSafe.text.utf8)
    let slashAt = try #require(
      mixed.indices.dropFirst(24).first { mixed[$0] != UInt8(ascii: "-") && mixed[$0] != UInt8(ascii: "_") })
    mixed[slashAt] = UInt8(ascii: "/")
    #expect(BookmarkScanner().scan(mixed).isEmpty)
  }

  @Test("cut, altered or unsupported records are not reported")
  func damagedRecords() throws {
    let fixture = try Fixture()
    let bookmark = fixture.bookmarks[0]
    let scanner = BookmarkScanner()
    #expect(scanner.scan(Array(bookmark.bytes.dropLast())).isEmpty)
    #expect(scanner.scan(Array(bookmark.text.utf8.dropLast(2))).isEmpty)
    var newerVersion = bookmark.bytes
    newerVersion[6] = 2
    #expect(scanner.scan(newerVersion).isEmpty)
    #expect(scanner.scan(Array(Base64URL.encode(newerVersion).utf8)).isEmpty)
    var flagged = bookmark.bytes
    flagged[7] = 1
    #expect(scanner.scan(Data(flagged).base64EncodedString().utf8).isEmpty)
    var tooLong = bookmark.bytes
    tooLong[8] = 0x28
    tooLong[9] = 0x01  // 10 241 bytes
    #expect(scanner.scan(tooLong + [UInt8](repeating: 0, count: 10_241)).isEmpty)
    // A record the MAC would reject is still reported: the scanner checks framing only.
    var tampered = bookmark.bytes
    tampered[tampered.count - 1] ^= 1
    #expect(scanner.scan(tampered).map(\.bookmark.bytes) == [tampered])
  }

  // MARK: - Streaming

  @Test(
    "scanning a file in small chunks finds records that straddle chunk boundaries", arguments: [1000, 4096])
  func streaming(chunkSize: Int) throws {
    var fixture = try Fixture()
    let standard = try standardBookmarks(&fixture)
    var random = SeededGenerator(seed: UInt64(chunkSize))
    let builder = mixedDocument(fixture.bookmarks, standard: standard, rounds: 40, &random)
    let path = try writeFile(builder.bytes, in: fixture.scratch, named: "mixed.bin")
    let straddling = builder.extents.filter {
      ($0.lowerBound / chunkSize) != (($0.upperBound - 1) / chunkSize)
    }
    #expect(straddling.count >= 10, "only \(straddling.count) forms straddle a \(chunkSize)-byte boundary")

    let scanner = BookmarkScanner(chunkSize: chunkSize)
    var statistics = BookmarkScanStatistics()
    var streamed: [FoundBookmark] = []
    try scanner.scan(fileAt: path, statistics: &statistics) { streamed.append($0) }
    #expect(streamed == builder.expected)
    #expect(streamed == scanner.scan(builder.bytes))
    #expect(statistics.bytesRead == UInt64(builder.bytes.count))
    #expect(statistics.maximumCarriedBytes <= BookmarkScanner.maximumCarry)
    #expect(statistics.maximumBufferedBytes <= chunkSize + BookmarkScanner.maximumCarry)
    var plain: [FoundBookmark] = []
    try scanner.scan(fileAt: path) { plain.append($0) }
    #expect(plain == streamed)

    // The size not known (a tree walk's documents, with the default chunk too) or out of
    // date (the file grew since): the first buffer fills and the whole one takes over.
    #expect(builder.bytes.count > BookmarkScanner.firstBufferSize)
    for (scanner, expectedSize) in [(scanner, nil), (scanner, 10), (BookmarkScanner(), nil)]
      as [(BookmarkScanner, UInt64?)]
    {
      let fd = try FileDescriptor.open(path, [.readOnly])
      defer { fd.close() }
      var grown = BookmarkScanStatistics()
      var found: [FoundBookmark] = []
      try scanner.scan(fd, expectedSize: expectedSize, statistics: &grown) { found.append($0) }
      #expect(found == builder.expected)
      #expect(grown.bytesRead == UInt64(builder.bytes.count))
      #expect(grown.bufferCapacity > BookmarkScanner.firstBufferSize)
    }
  }

  @Test("a small document whose size is not known is read into a small buffer, in one window")
  func smallFirstBuffer() throws {
    let fixture = try Fixture()
    let bookmark = fixture.bookmarks[0]
    let path = try writeFile(
      Array("{\"a\": \"\(bookmark.text)\"}".utf8), in: fixture.scratch, named: "small.json")
    let fd = try FileDescriptor.open(path, [.readOnly])
    defer { fd.close() }
    var statistics = BookmarkScanStatistics()
    var found: [FoundBookmark] = []
    try BookmarkScanner().scan(fd, expectedSize: nil, statistics: &statistics) { found.append($0) }
    #expect(found.map(\.bookmark) == [bookmark])
    #expect(statistics.windows == 1)
    #expect(statistics.bufferCapacity == BookmarkScanner.firstBufferSize)
  }

  @Test("a scan started from inside another scan's callback reads into a buffer of its own")
  func scanInsideScan() throws {
    let fixture = try Fixture()
    var random = SeededGenerator(seed: 77)
    // Each document fits its first buffer, so the outer scan goes on reading the window it
    // read before the callback: a nested scan that shared the thread's scratch buffer would
    // overwrite it, and the outer scan would miss its later bookmarks.
    var outer = DocumentBuilder()
    outer.appendRandom(300, &random)
    outer.appendText(fixture.bookmarks[0])
    outer.appendRandom(2000, &random)
    outer.appendBinary(fixture.bookmarks[1])
    outer.appendRandom(500, &random)
    outer.appendBlob(fixture.bookmarks[2], at: 1, suffix: 0, escaped: false, &random)
    outer.appendRandom(100, &random)
    var inner = DocumentBuilder()
    inner.appendRandom(8000, &random)
    inner.appendText(fixture.bookmarks[3])
    inner.appendRandom(4000, &random)
    #expect(outer.bytes.count < BookmarkScanner.firstBufferSize)
    #expect(inner.bytes.count > outer.bytes.count)
    let outerPath = try writeFile(outer.bytes, in: fixture.scratch, named: "outer.json")
    let innerPath = try writeFile(inner.bytes, in: fixture.scratch, named: "inner.json")
    // A scan first, so that this thread keeps a scratch buffer for the outer scan to take.
    var before: [FoundBookmark] = []
    try BookmarkScanner().scan(fileAt: innerPath) { before.append($0) }
    #expect(before == inner.expected)
    var found: [FoundBookmark] = []
    var nested: [[FoundBookmark]] = []
    try BookmarkScanner().scan(fileAt: outerPath) { bookmark in
      found.append(bookmark)
      var inside: [FoundBookmark] = []
      _ = try? BookmarkScanner().scan(fileAt: innerPath) { inside.append($0) }
      nested.append(inside)
    }
    #expect(found == outer.expected)
    #expect(nested == Array(repeating: inner.expected, count: outer.expected.count))
    // And one after the other, on this thread, each reads what its own file holds.
    var again: [FoundBookmark] = []
    try BookmarkScanner().scan(fileAt: outerPath) { again.append($0) }
    #expect(again == outer.expected)
  }

  @Test("the largest record, all slashes in escaped base64, streams through 1000-byte chunks")
  func largestRecord() throws {
    let scratch = try Scratch()
    // 10 240 bytes, framing valid, 0xFF after the header: base64 of '/' characters.
    var bytes = BookmarkRecord.magic + [1, 0, 0x28, 0x00]
    bytes += [UInt8](repeating: 0xFF, count: BookmarkRecord.maximumLength - bytes.count)
    let record = try Bookmark(bytes: bytes)
    var random = SeededGenerator(seed: 10_240)
    var builder = DocumentBuilder()
    builder.appendRandom(777, &random)
    builder.appendBlob(record, at: 2, suffix: 0, escaped: true, &random)
    builder.appendRandom(3000, &random)
    builder.appendText(record)
    builder.appendRandom(1000, &random)
    builder.appendBinary(record)
    builder.appendRandom(10, &random)
    let path = try writeFile(builder.bytes, in: scratch, named: "large.json")
    var statistics = BookmarkScanStatistics()
    var found: [FoundBookmark] = []
    try BookmarkScanner(chunkSize: 1000).scan(fileAt: path, statistics: &statistics) { found.append($0) }
    #expect(found == builder.expected)
    #expect(found.map(\.form) == [.base64, .text, .binary])
    #expect(BookmarkScanner.maximumCarry == 27_320)
    #expect(statistics.maximumCarriedBytes <= BookmarkScanner.maximumCarry)
    #expect(statistics.maximumCarriedBytes > 2 * 13_000, "the escaped record was carried whole")
  }

  @Test("a 1 GiB sparse file streams in constant memory, finding the records written into it")
  func sparseGigabyte() throws {
    let fixture = try Fixture()
    let size = 1 << 30
    let chunk = 1 << 20
    let path = fixture.scratch.path("sparse.bin")
    let fd = path.withCString { open($0, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) }
    try #require(fd >= 0)
    defer { close(fd) }
    try #require(ftruncate(fd, off_t(size)) == 0)
    var expected: [FoundBookmark] = []
    let placements: [(Int, BookmarkForm)] = [
      (chunk - 100, .binary), (3 * chunk - 7, .text), (300 * chunk - 50, .base64), (size - 400, .text),
    ]
    for (index, (offset, form)) in placements.enumerated() {
      let bookmark = fixture.bookmarks[index]
      let bytes: [UInt8]
      switch form {
      case .binary: bytes = bookmark.bytes
      case .text: bytes = Array(bookmark.text.utf8)
      case .base64: bytes = Array(jsonString(bookmark.data.base64EncodedString(), escaped: true).utf8)
      }
      let written = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(offset)) }
      try #require(written == bytes.count)
      expected.append(
        FoundBookmark(
          offset: UInt64(offset), form: form == .base64 ? standaloneForm(bookmark) : form, bookmark: bookmark)
      )
    }
    var statistics = BookmarkScanStatistics()
    var found: [FoundBookmark] = []
    try BookmarkScanner().scan(fileAt: path, statistics: &statistics) { found.append($0) }
    #expect(found == expected)
    #expect(statistics.bytesRead == UInt64(size))
    #expect(statistics.windows == size / chunk + 1)
    #expect(statistics.bufferCapacity == chunk + BookmarkScanner.maximumCarry)
    #expect(statistics.maximumBufferedBytes <= chunk + BookmarkScanner.maximumCarry)
    #expect(statistics.maximumCarriedBytes <= BookmarkScanner.maximumCarry)
  }

  @Test("a missing file and a folder fail with typed errors")
  func fileErrors() throws {
    let scratch = try Scratch()
    let missing = #expect(throws: DocbmError.self) {
      try BookmarkScanner().scan(fileAt: scratch.path("absent.json")) { _ in }
    }
    #expect(missing?.code == .notFound)
    let folder = #expect(throws: DocbmError.self) {
      try BookmarkScanner().scan(fileAt: scratch.root) { _ in }
    }
    #expect(folder?.code == .unsupportedFileType)
    #expect(folder?.path == scratch.root)
  }

  // MARK: - No false positives

  @Test("64 MiB of random bytes, with the magic planted every 64 KiB, hold no bookmark")
  func randomBytesHoldNone() {
    var random = SeededGenerator(seed: 64)
    var bytes = randomBytes(64 << 20, &random)
    for start in stride(from: 1000, to: bytes.count - 64, by: 64 << 10) {
      bytes.replaceSubrange(start..<(start + 6), with: BookmarkRecord.magic)
    }
    #expect(BookmarkScanner().scan(bytes).isEmpty)
  }

  @Test("8 MiB of random base64, with the magic's base64 at every shift planted, hold no bookmark")
  func randomBase64HoldsNone() {
    var random = SeededGenerator(seed: 8)
    var text = randomBytes(8 << 20, &random).map { Base64Run.standardAlphabet[Int($0 & 0x3F)] }
    let patterns = ScanAnchor.all.dropFirst().map(\.pattern)
    for (index, start) in stride(from: 500, to: text.count - 64, by: 4096).enumerated() {
      let pattern = patterns[index % patterns.count]
      text.replaceSubrange(start..<(start + pattern.count), with: pattern)
    }
    #expect(BookmarkScanner().scan(text).isEmpty)
    let escaped = Array(jsonString(String(decoding: text, as: UTF8.self), escaped: true).utf8)
    #expect(escaped.count > text.count)
    #expect(BookmarkScanner().scan(escaped).isEmpty)
    let urlSafe = text.map {
      $0 == UInt8(ascii: "+") ? UInt8(ascii: "-") : $0 == UInt8(ascii: "/") ? UInt8(ascii: "_") : $0
    }
    #expect(BookmarkScanner().scan(urlSafe).isEmpty)
  }

  @Test(
    "the licence texts and copyright files on the machine hold no bookmark, nor does their base64",
    .enabled(if: !Self.corpusFiles.isEmpty, "no licence texts under /usr/share"))
  func textCorporaHoldNone() throws {
    var all: [UInt8] = []
    var scanned = 0
    for file in Self.corpusFiles {
      guard let contents = FileManager.default.contents(atPath: file) else { continue }
      scanned += 1
      #expect(BookmarkScanner().scan(contents).isEmpty, "\(file)")
      all += contents
    }
    #expect(scanned > 0)
    let scratch = try Scratch()
    let path = try writeFile(all, in: scratch, named: "corpus.txt")
    var found: [FoundBookmark] = []
    try BookmarkScanner(chunkSize: 4096).scan(fileAt: path) { found.append($0) }
    #expect(found.isEmpty)
    #expect(BookmarkScanner().scan(Data(all).base64EncodedString().utf8).isEmpty)
    for shift in 1...2 {
      #expect(BookmarkScanner().scan(Data(all.dropFirst(shift)).base64EncodedString().utf8).isEmpty)
    }
  }

  static let corpusFiles: [String] = {
    let manager = FileManager.default
    var files: [String] = []
    if let licences = try? manager.contentsOfDirectory(atPath: "/usr/share/common-licenses") {
      files += licences.sorted().map { "/usr/share/common-licenses/\($0)" }
    }
    if let packages = try? manager.contentsOfDirectory(atPath: "/usr/share/doc") {
      files += packages.sorted().map { "/usr/share/doc/\($0)/copyright" }
    }
    return files.filter { path in
      var isFolder: ObjCBool = false
      return manager.fileExists(atPath: path, isDirectory: &isFolder) && !isFolder.boolValue
    }
  }()
}

// MARK: - Helpers

private struct NoSuchBookmark: Error {}

/// SplitMix64: a small, fast generator with a seed, so failures can be replayed.
fileprivate struct SeededGenerator: RandomNumberGenerator {
  private var state: UInt64

  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var value = state
    value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
    value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
    return value ^ (value >> 31)
  }
}

fileprivate func randomBytes(_ count: Int, _ random: inout SeededGenerator) -> [UInt8] {
  var bytes = [UInt8](repeating: 0, count: count)
  bytes.withUnsafeMutableBytes { buffer in
    var index = 0
    while index + 8 <= count {
      buffer.storeBytes(of: random.next(), toByteOffset: index, as: UInt64.self)
      index += 8
    }
    while index < count {
      buffer[index] = UInt8(truncatingIfNeeded: random.next())
      index += 1
    }
  }
  return bytes
}

/// A document assembled from random bytes and bookmarks in known forms, with the finds
/// the scanner should report.
fileprivate struct DocumentBuilder {
  var bytes: [UInt8] = []
  var expected: [FoundBookmark] = []
  /// The byte range each form takes.
  var extents: [Range<Int>] = []

  mutating func appendRandom(_ count: Int, _ random: inout SeededGenerator) {
    bytes += randomBytes(count, &random)
  }

  mutating func appendBinary(_ bookmark: Bookmark) {
    add(bookmark.bytes, found: 0, .binary, bookmark)
  }

  /// The text form between spaces, as in a text document.
  mutating func appendText(_ bookmark: Bookmark) {
    add(Array(" \(bookmark.text) ".utf8), found: 1, .text, bookmark)
  }

  /// Standard base64 of the record alone, as a JSON string.
  mutating func appendBase64(_ bookmark: Bookmark, escaped: Bool) {
    let encoded = jsonString(bookmark.data.base64EncodedString(), escaped: escaped)
    add(Array("\"\(encoded)\"".utf8), found: 1, standaloneForm(bookmark), bookmark)
  }

  /// Standard base64 of a blob holding the record at byte `offset`, as a JSON string.
  /// The bookmark's base64 must use `+` or `/` (so an aligned record is base64, not text).
  mutating func appendBlob(
    _ bookmark: Bookmark, at offset: Int, suffix: Int, escaped: Bool, _ random: inout SeededGenerator
  ) {
    let blob = randomBytes(offset, &random) + bookmark.bytes + randomBytes(suffix, &random)
    let base64 = Data(blob).base64EncodedString()
    let encoded = jsonString(base64, escaped: escaped)
    let group = byteOffset(ofCharacter: 4 * (offset / 3), in: base64, escaped: escaped)
    add(Array("\"\(encoded)\"".utf8), found: 1 + group, .base64, bookmark)
  }

  private mutating func add(_ form: [UInt8], found offset: Int, _ kind: BookmarkForm, _ bookmark: Bookmark) {
    expected.append(FoundBookmark(offset: UInt64(bytes.count + offset), form: kind, bookmark: bookmark))
    extents.append(bytes.count..<(bytes.count + form.count))
    bytes += form
  }
}

/// Every form of every bookmark, blobs at every offset 0…5, among random bytes.
fileprivate func mixedDocument(
  _ bookmarks: [Bookmark], standard: [Bookmark], rounds: Int, _ random: inout SeededGenerator
) -> DocumentBuilder {
  var builder = DocumentBuilder()
  for round in 0..<rounds {
    for (index, bookmark) in bookmarks.enumerated() {
      builder.appendRandom(Int.random(in: 0..<400, using: &random), &random)
      switch (round + index) % 4 {
      case 0: builder.appendBinary(bookmark)
      case 1: builder.appendText(bookmark)
      case 2: builder.appendBase64(bookmark, escaped: index % 2 == 0)
      default:
        builder.appendBlob(
          standard[index % standard.count], at: (round + index) % 6, suffix: index % 3,
          escaped: round % 2 == 0,
          &random)
      }
    }
  }
  builder.appendRandom(50, &random)
  return builder
}

/// Base64 as it appears inside a JSON string: `/` escaped as `\/` when `escaped`.
fileprivate func jsonString(_ base64: String, escaped: Bool) -> String {
  escaped ? base64.replacingOccurrences(of: "/", with: "\\/") : base64
}

/// The byte offset of base64 character `index` once written in JSON.
fileprivate func byteOffset(ofCharacter index: Int, in base64: String, escaped: Bool) -> Int {
  let before = base64.utf8.prefix(index)
  return index + (escaped ? before.filter { $0 == UInt8(ascii: "/") }.count : 0)
}

/// The form the scanner gives the standard base64 of a whole record: base64 when it uses
/// `+` or `/` or ends with padding, else (the same characters as the text form) text.
fileprivate func standaloneForm(_ bookmark: Bookmark) -> BookmarkForm {
  let base64 = bookmark.data.base64EncodedString()
  return base64.contains("+") || base64.contains("/") || base64.hasSuffix("=") ? .base64 : .text
}

/// Whether the record's base64, without its last character (which a following byte may
/// change), uses `+` or `/`.
fileprivate func hasStandardCharacters(_ bookmark: Bookmark) -> Bool {
  let base64 = bookmark.data.base64EncodedString().filter { $0 != "=" }.dropLast()
  return base64.contains("+") || base64.contains("/")
}

fileprivate func standardBookmarks(_ fixture: inout BookmarkScannerTests.Fixture) throws -> [Bookmark] {
  _ = try fixture.bookmark(where: hasStandardCharacters)
  return fixture.bookmarks.filter(hasStandardCharacters)
}

/// A record with valid framing whose base64 uses only letters and digits: the magic, the
/// header, then zeros. Not signed; the scanner does not check signatures.
fileprivate func neutralRecord(length: Int) throws -> Bookmark {
  let bytes = BookmarkRecord.magic + [1, 0, UInt8(length >> 8), UInt8(length & 0xFF)]
  return try Bookmark(bytes: bytes + [UInt8](repeating: 0, count: length - bytes.count))
}

fileprivate func hit(_ offset: UInt64, _ form: BookmarkForm, _ bookmark: Bookmark) -> FoundBookmark {
  FoundBookmark(offset: offset, form: form, bookmark: bookmark)
}

fileprivate func firstIndex(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
  guard needle.count <= haystack.count else { return nil }
  return (0...(haystack.count - needle.count)).first { start in
    haystack[start..<(start + needle.count)].elementsEqual(needle)
  }
}

fileprivate func writeFile(_ bytes: [UInt8], in scratch: Scratch, named name: String) throws -> FilePath {
  let path = scratch.path(name)
  let fd = path.withCString { open($0, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) }
  guard fd >= 0 else { throw ScratchError.system("open \(path)", errno) }
  defer { close(fd) }
  var offset = 0
  while offset < bytes.count {
    let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
    guard written > 0 else { throw ScratchError.system("write \(path)", errno) }
    offset += written
  }
  return path
}
