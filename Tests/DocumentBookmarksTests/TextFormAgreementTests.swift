import DocbmTestSupport
import Foundation
import Testing

@testable import DocumentBookmarks

/// The scanner reports a text form exactly when ``Bookmark/init(text:)`` would decode it:
/// a checker judges what the app would read.
@Suite("Scanner and text decoder agree")
struct TextFormAgreementTests {
  static let urlSafe = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

  /// The text forms the scanner reports at the start of `text`, embedded as a JSON string.
  private func scannedText(_ text: [UInt8]) -> [Bookmark] {
    let document = Array("\"".utf8) + text + Array("\"".utf8)
    return BookmarkScanner().scan(document).filter { $0.form == .text && $0.offset == 1 }.map(\.bookmark)
  }

  /// The header of a record of `length` bytes, with an all-zero fingerprint.
  static func zeroRecordHeader(length: Int) -> [UInt8] {
    BookmarkRecord.magic + [BookmarkRecord.version, 0, UInt8(length >> 8), UInt8(length & 0xFF)]
      + [UInt8](repeating: 0, count: 8)
  }

  private func decoded(_ text: [UInt8]) -> Bookmark? {
    try? Bookmark(text: String(decoding: text, as: UTF8.self))
  }

  @Test(
    "a text form whose last character has non-zero unused bits is corrupt, and the scanner does not report it"
  )
  func unusedBitsOfTheLastCharacter() throws {
    var fixture = try BookmarkScannerTests.Fixture()
    for remainder in [1, 2] {
      for alphabet in ["url-safe", "neutral"] {
        // A real bookmark's text nearly always has `-` or `_`; a neutral one (framing only,
        // zeros after the header) reads the same in both alphabets.
        let bookmark =
          alphabet == "neutral"
          ? try Bookmark(
            bytes: Self.zeroRecordHeader(length: 36 + remainder)
              + [UInt8](repeating: 0, count: 18 + remainder))
          : try fixture.bookmark {
            $0.bytes.count % 3 == remainder && ($0.text.contains("-") || $0.text.contains("_"))
          }
        #expect(bookmark.bytes.count % 3 == remainder)
        var text = Array(bookmark.text.utf8)
        #expect(scannedText(text) == [bookmark])
        // 1 byte over a group leaves 4 unused bits in the last character, 2 bytes leave 2.
        let value = Self.urlSafe.firstIndex(of: text[text.count - 1])!
        text[text.count - 1] = Self.urlSafe[value ^ 1]
        let error = #expect(throws: DocbmError.self) {
          try Bookmark(text: String(decoding: text, as: UTF8.self))
        }
        #expect(error?.code == .corrupt)
        #expect(scannedText(text).isEmpty, "\(alphabet), length \(bookmark.bytes.count)")
        #expect(BookmarkScanner().scan(Array("\"".utf8) + text + Array("\"".utf8)).isEmpty)
        // Checked as a document, it is no bookmark at all (before, it was ok).
        let path = try fixture.scratch.file(
          "mutated-\(remainder)-\(alphabet).json", "[\"\(String(decoding: text, as: UTF8.self))\"]")
        #expect(DocumentChecker(escrow: nil).check(path).bookmarks.isEmpty)
      }
    }
  }

  @Test("over many mutated texts, the scanner reports a text form exactly when Bookmark(text:) decodes it")
  func randomizedAgreement() throws {
    let fixture = try BookmarkScannerTests.Fixture(count: 12)
    var random = SplitMix(state: 11)
    var agreedDecoded = 0
    var agreedRejected = 0
    for bookmark in fixture.bookmarks {
      let original = Array(bookmark.text.utf8)
      // Every value of the last character, then random characters after the header
      // (which keeps the length, so the record spans the whole text).
      var mutations: [[UInt8]] = Self.urlSafe.map { original.dropLast() + [$0] }
      for _ in 0..<150 {
        var text = original
        for _ in 0..<Int.random(in: 1...3, using: &random) {
          text[Int.random(in: 24..<text.count, using: &random)] = Self.urlSafe.randomElement(using: &random)!
        }
        mutations.append(text)
      }
      for text in mutations {
        let scanned = scannedText(text)
        if let decoded = decoded(text) {
          #expect(scanned == [decoded], "\(String(decoding: text, as: UTF8.self))")
          agreedDecoded += 1
        } else {
          #expect(scanned.isEmpty, "\(String(decoding: text, as: UTF8.self))")
          agreedRejected += 1
        }
      }
    }
    #expect(agreedDecoded > 100)
    #expect(agreedRejected > 100)
  }
}

/// A seeded generator, so a failure can be replayed.
private struct SplitMix: RandomNumberGenerator {
  var state: UInt64

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
