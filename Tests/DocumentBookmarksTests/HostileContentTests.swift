import DocbmTestSupport
import Foundation
import Testing

@testable import DocumentBookmarks

/// Crafted content costs bounded time and memory: overlapping fake headers, base64 that
/// fails late, more bookmarks than a check examines; documents with many real bookmarks
/// still check ok.
@Suite("Hostile content")
struct HostileContentTests {
  let scratch: Scratch

  init() throws {
    scratch = try Scratch()
  }

  @Test("16 MiB of overlapping binary headers that each claim 10 240 bytes: one record per 10 240 bytes")
  func overlappingBinaryHeaders() throws {
    let size = 16 << 20
    let path = try write(Crafted.overlappingBinaryHeaders(size: size), named: "crafted.bin")
    var statistics = BookmarkScanStatistics()
    var reportedBytes = 0
    var previousEnd: UInt64 = 0
    var overlapping = 0
    try BookmarkScanner().scan(fileAt: path, statistics: &statistics) { found in
      reportedBytes += found.bookmark.bytes.count
      if found.offset < previousEnd { overlapping += 1 }
      previousEnd = found.offset + UInt64(found.bookmark.bytes.count)
    }
    // Every header is a valid frame; before, each one was a bookmark with its own copy
    // (about 400 000 records, 4 GiB).
    #expect(statistics.completion == .complete)
    #expect(overlapping == 0)
    #expect(statistics.bookmarksFound <= size / BookmarkRecord.maximumLength + 1)
    #expect(reportedBytes <= size)
    // Besides the records, only the headers in the last 10 240 bytes (cut short there).
    #expect(statistics.candidatesExamined <= statistics.bookmarksFound + BookmarkRecord.maximumLength / 40)

    let check = DocumentChecker(escrow: nil).check(path)
    #expect(check.verdict == .keyLost, "\(check.message)")
    #expect(check.bookmarks.count == statistics.bookmarksFound)
  }

  @Test("overlapping headers in base64, whole or failing late on an invalid character, decode in linear time")
  func overlappingBase64Headers() throws {
    // 2 MiB: 87 000 headers, fewer than the candidates a scan examines.
    let size = 2 << 20
    let whole = try write(Crafted.overlappingBase64Headers(size: size, invalidEvery: nil), named: "whole.txt")
    var statistics = BookmarkScanStatistics()
    try BookmarkScanner().scan(fileAt: whole, statistics: &statistics) { _ in }
    let characters = (8 * BookmarkRecord.maximumLength + 5) / 6
    #expect(statistics.completion == .complete)
    #expect(statistics.bookmarksFound <= size / characters + 1)
    #expect(statistics.bookmarksFound >= size / characters - 1)
    #expect(statistics.bytesDecoded <= 3 * size)

    // A run of valid base64 with an invalid character every 13 000 bytes: no record fits,
    // and every candidate's decode would run to that character (quadratic before).
    let late = try write(
      Crafted.overlappingBase64Headers(size: size, invalidEvery: 13_000), named: "late.txt")
    statistics = BookmarkScanStatistics()
    try BookmarkScanner().scan(fileAt: late, statistics: &statistics) { _ in }
    #expect(statistics.bookmarksFound == 0)
    #expect(statistics.completion == .complete)
    #expect(statistics.candidatesExamined > size / 30)
    #expect(statistics.bytesDecoded <= 4 * size, "decoded \(statistics.bytesDecoded) bytes of \(size)")

    // The same with the alphabets mixed late: `+` early in each run, `-` at its end.
    let mixed = try write(
      Crafted.overlappingBase64Headers(size: size, invalidEvery: 13_000, invalid: "-"), named: "mixed.txt")
    statistics = BookmarkScanStatistics()
    try BookmarkScanner().scan(fileAt: mixed, statistics: &statistics) { _ in }
    #expect(statistics.bookmarksFound == 0)
    #expect(statistics.bytesDecoded <= 4 * size, "decoded \(statistics.bytesDecoded) bytes of \(size)")
  }

  @Test("more bookmarks than a check examines: the scan stops, the verdict is incomplete")
  func bookmarkLimit() throws {
    let limit = BookmarkScanLimits.standard.bookmarks
    let path = try write(Crafted.minimumRecords(count: limit + 5), named: "many.bin")
    var statistics = BookmarkScanStatistics()
    try BookmarkScanner().scan(fileAt: path, statistics: &statistics) { _ in }
    #expect(statistics.bookmarksFound == limit)
    #expect(
      statistics.completion == .stoppedAtBookmarkLimit(offset: UInt64(limit * BookmarkRecord.minimumLength)))
    #expect(try BookmarkScanner().scan(fileAt: path) { _ in } == statistics.completion)

    let check = DocumentChecker(escrow: nil).check(path)
    #expect(check.verdict == .incomplete)
    #expect(check.verdict.isProblem)
    #expect(check.bookmarks.count == limit)
    #expect(check.message.contains("more than \(limit) bookmarks"), "\(check.message)")
    // Exactly at the limit, the document is checked whole.
    let atLimit = try write(Crafted.minimumRecords(count: limit), named: "limit.bin")
    #expect(DocumentChecker(escrow: nil).check(atLimit).verdict == .keyLost)
  }

  @Test("more candidates than a check examines: the scan stops, the verdict is incomplete")
  func candidateLimit() throws {
    let limit = BookmarkScanLimits.standard.candidates
    let text = String(repeating: "docbmRec ", count: limit + 1)
    let path = try write(Array(text.utf8), named: "anchors.txt")
    var statistics = BookmarkScanStatistics()
    try BookmarkScanner().scan(fileAt: path, statistics: &statistics) { _ in }
    #expect(statistics.candidatesExamined == limit)
    #expect(statistics.completion == .stoppedAtCandidateLimit(offset: UInt64(9 * limit)))
    let check = DocumentChecker(escrow: nil).check(path)
    #expect(check.verdict == .incomplete)
    #expect(check.message.contains("places that look like bookmarks"), "\(check.message)")
    // One fewer is checked whole.
    let fewer = try write(Array(String(repeating: "docbmRec ", count: limit).utf8), named: "fewer.txt")
    #expect(DocumentChecker(escrow: nil).check(fewer).verdict == .noBookmarks)
  }

  @Test("a document with 3 000 real bookmarks, and one with one bookmark 5 000 times, check ok")
  func manyRealBookmarks() throws {
    let service = BookmarkService(escrow: nil)
    let documentPath = try scratch.file("board.json", "{}")
    let document = service.documents(anchoredOn: documentPath)
    var texts: [String] = []
    for index in 0..<3000 {
      texts.append(try document.makeBookmark(to: try scratch.file("images/\(index).png", "PNG")).text)
    }
    try document.replaceDocument(with: JSONEncoder().encode(texts))
    let check = DocumentChecker(escrow: nil).check(documentPath)
    #expect(check.verdict == .ok, "\(check.message)")
    #expect(check.bookmarks.count == 3000)
    #expect(check.bookmarks.allSatisfy { $0.verifies && $0.resolves })

    // The same record many times is verified and resolved once.
    try document.replaceDocument(with: JSONEncoder().encode([String](repeating: texts[0], count: 5000)))
    var collector = EvidenceCollector(
      path: documentPath,
      documentKey: try KeyAttribute.read(atPath: documentPath).key(of: documentPath).map(
        DocumentKeyCache.Entry.init),
      searchBudget: .standard, portal: nil)
    try BookmarkScanner().scan(fileAt: documentPath) { collector.add($0) }
    #expect(collector.evidence.count == 5000)
    #expect(collector.memoHits == 4999)
    #expect(collector.evidence.allSatisfy { $0.verifies && $0.resolves })
    #expect(collector.evidenceBytes < 5000 * EvidenceCollector.evidenceOverhead + 4096)
    #expect(DocumentChecker(escrow: nil).check(documentPath).verdict == .ok)
  }

  @Test("records that share a tag but differ are each judged, never mistaken for one another")
  func sharedTags() throws {
    let service = BookmarkService(escrow: nil)
    let documentPath = try scratch.file("tags.json", "{}")
    let document = service.documents(anchoredOn: documentPath)
    let genuine = try document.makeBookmark(to: try scratch.file("images/cat.png", "PNG"))
    var collector = EvidenceCollector(
      path: documentPath,
      documentKey: try KeyAttribute.read(atPath: documentPath).key(of: documentPath).map(
        DocumentKeyCache.Entry.init),
      searchBudget: .standard, portal: nil)
    collector.add(FoundBookmark(offset: 0, form: .binary, bookmark: genuine))
    // Forgeries: the genuine record with one byte of its body changed, the tag kept.
    for index in 0..<2000 {
      var bytes = genuine.bytes
      bytes[40 + index % 100] ^= UInt8(1 + index / 100)
      collector.add(
        FoundBookmark(offset: UInt64(index + 1), form: .binary, bookmark: try Bookmark(bytes: bytes)))
    }
    #expect(collector.memoHits == 0)
    #expect(collector.evidence.count == 2001)
    #expect(collector.evidence[0].verifies && collector.evidence[0].resolves)
    #expect(collector.evidence.dropFirst().allSatisfy { !$0.verifies })
  }

  private func write(_ bytes: [UInt8], named name: String) throws -> FilePath {
    let path = scratch.path(name)
    try Data(bytes).write(to: URL(fileURLWithPath: path.description))
    return path
  }
}

/// Crafted documents.
enum Crafted {
  /// A header claiming the largest length, with a made-up fingerprint.
  static let largestHeader: [UInt8] =
    BookmarkRecord.magic + [BookmarkRecord.version, 0, 0x28, 0x00] + [UInt8](repeating: 0xAB, count: 8)

  /// Headers every 40 bytes, each claiming 10 240 bytes: every one frames a record.
  static func overlappingBinaryHeaders(size: Int) -> [UInt8] {
    let unit = largestHeader + [UInt8](repeating: 0, count: 40 - largestHeader.count)
    var bytes: [UInt8] = []
    bytes.reserveCapacity(size)
    while bytes.count + unit.count <= size { bytes += unit }
    return bytes + [UInt8](repeating: 0, count: size - bytes.count)
  }

  /// ``largestHeader`` with a fingerprint whose base64 holds `++++`.
  static let plusHeader: [UInt8] = Array(largestHeader.prefix(12)) + [0xFB, 0xEF, 0xBE, 0xAB, 0xAB, 0xAB]

  /// The base64 of headers back to back (24 characters each), with `invalid` every
  /// `invalidEvery` bytes; for `-`, the headers' base64 holds `+`, so the alphabets mix.
  static func overlappingBase64Headers(size: Int, invalidEvery: Int?, invalid: Character = "!") -> [UInt8] {
    let unit = Array(Data(invalid == "-" ? plusHeader : largestHeader).base64EncodedString().utf8)
    precondition(unit.count == 24 && unit.starts(with: Array("docbmRec".utf8)))
    precondition(invalid != "-" || unit.contains(UInt8(ascii: "+")))
    var bytes: [UInt8] = []
    bytes.reserveCapacity(size)
    var run = 0
    while bytes.count + unit.count + 1 <= size {
      if let invalidEvery, run + unit.count > invalidEvery {
        bytes.append(invalid.asciiValue!)
        run = 0
        continue
      }
      bytes += unit
      run += unit.count
    }
    return bytes + [UInt8](repeating: UInt8(ascii: " "), count: size - bytes.count)
  }

  /// Records of the smallest length (framing only, not signed), back to back.
  static func minimumRecords(count: Int) -> [UInt8] {
    let record =
      BookmarkRecord.magic + [BookmarkRecord.version, 0, 0, UInt8(BookmarkRecord.minimumLength)]
      + [UInt8](repeating: 0xCD, count: BookmarkRecord.minimumLength - 10)
    return Array([[UInt8]](repeating: record, count: count).joined())
  }
}
