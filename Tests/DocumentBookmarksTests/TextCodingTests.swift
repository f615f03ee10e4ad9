import DocbmSystem
import Foundation
import Testing

@testable import DocumentBookmarks

/// The text codings of the formats (URL-safe base64 of the text form and the escrow's
/// catalog, hex of fingerprints and file handles) decode exactly what they encode, and
/// nothing else.
@Suite("Text codings")
struct TextCodingTests {
  @Test("URL-safe base64 decodes what it encodes, at every length up to 64, and agrees with Foundation")
  func base64RoundTrip() {
    var generator = SystemRandomNumberGenerator()
    for length in 0...64 {
      let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
      let text = Base64URL.encode(bytes)
      #expect(Base64URL.decode(Array(text.utf8)) == bytes)
      #expect(Base64URL.decode(Array(text.utf8)[...]) == bytes)
      let standard = Data(bytes).base64EncodedString()
        .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
      #expect(text == standard)
    }
  }

  @Test("URL-safe base64 refuses padding, other alphabets, a lone last character and unused bits set")
  func base64Strict() {
    for text in ["QQ==", "QQ=", "Q", "QUJD+A", "QUJD/w", "QU JD", "QR", "QUJ"] {
      #expect(Base64URL.decode(Array(text.utf8)) == nil, "\(text)")
    }
    #expect(Base64URL.decode(Array("QQ".utf8)) == [0x41])
    #expect(Base64URL.decode(Array("QUI".utf8)) == [0x41, 0x42])
    #expect(Base64URL.decode(Array("QUE".utf8)) == [0x41, 0x41])
    #expect(Base64URL.decode([UInt8]()) == [])
  }

  @Test("hex writes two digits a byte, lowercase unless asked, and reads either case and nothing else")
  func hex() {
    #expect(Hex.encode([0x00, 0xFF, 0x7A, 0xA0]) == "00ff7aa0")
    #expect(Hex.digits(of: 0xA7, uppercase: true) == (UInt8(ascii: "A"), UInt8(ascii: "7")))
    for byte in 0...255 {
      let (high, low) = Hex.digits(of: UInt8(byte))
      #expect(Hex.value(of: high).map { $0 << 4 | Hex.value(of: low)! } == UInt8(byte))
    }
    #expect(Hex.value(of: UInt8(ascii: "F")) == 15)
    for character in "g-G /:@`" { #expect(Hex.value(of: character.asciiValue!) == nil, "\(character)") }
  }

  @Test("a fingerprint parses from its printed form, with or without the dash, and nothing else")
  func fingerprint() throws {
    let parsed = try #require(KeyFingerprint("3f2a9c0e-5b7d1e04"))
    #expect(parsed.bytes == [0x3F, 0x2A, 0x9C, 0x0E, 0x5B, 0x7D, 0x1E, 0x04])
    #expect(parsed.description == "3f2a9c0e-5b7d1e04")
    #expect(KeyFingerprint("3F2A9C0E5B7D1E04") == parsed)
    for text in ["3f2a9c0e-5b7d1e0", "3f2a9c0e-5b7d1e045", "3f2a9c0e-5b7d1e0g", "", "-"] {
      #expect(KeyFingerprint(text) == nil, "\(text)")
    }
  }
}
