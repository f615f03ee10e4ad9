import DocbmSystem
import DocbmTestSupport
import Foundation
import Testing

@testable import DocumentBookmarks

@Suite("Bookmark format")
struct BookmarkFormatTests {
  /// A document with a key and one bookmark to a sibling file.
  struct Fixture {
    let scratch: Scratch
    let document: AnchoredDocument
    let target: FilePath
    let bookmark: Bookmark

    init() throws {
      scratch = try Scratch()
      let documentPath = try scratch.file("project/board.json", "{}")
      target = try scratch.file("project/images/cat.png", "PNG")
      document = BookmarkService(escrow: nil).documents(anchoredOn: documentPath)
      bookmark = try document.makeBookmark(to: target)
    }
  }

  @Test("the record is small and its base64 and text form start with docbmRec")
  func smallAndFindable() throws {
    let fixture = try Fixture()
    let bookmark = fixture.bookmark
    #expect(bookmark.bytes.count < 1024)
    #expect(Array(bookmark.bytes.prefix(6)) == [0x76, 0x87, 0x1B, 0x99, 0x17, 0x9C])
    #expect(bookmark.text.hasPrefix("docbmRec"))
    #expect(bookmark.data.base64EncodedString().hasPrefix("docbmRec"))
    #expect(bookmark.text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
  }

  @Test("text form, raw bytes and Codable round-trip")
  func roundTrips() throws {
    let fixture = try Fixture()
    let bookmark = fixture.bookmark
    #expect(try Bookmark(text: bookmark.text) == bookmark)
    #expect(try Bookmark(text: "  \(bookmark.text)\n") == bookmark)
    // Unicode white space (no-break space, line separator, ideographic space) around it too.
    #expect(try Bookmark(text: "\u{00A0}\(bookmark.text)\u{2028}\u{3000}") == bookmark)
    // A bookmark cut short, or with a character outside the alphabet, is no bookmark.
    #expect(throws: DocbmError.self) { try Bookmark(text: String(bookmark.text.dropLast(3))) }
    #expect(throws: DocbmError.self) { try Bookmark(text: bookmark.text + "=") }
    #expect(throws: DocbmError.self) { try Bookmark(text: "docbm") }
    #expect(try Bookmark(data: bookmark.data) == bookmark)
    struct Document: Codable, Equatable { let images: [Bookmark] }
    let json = try JSONEncoder().encode(Document(images: [bookmark]))
    #expect(String(decoding: json, as: UTF8.self).contains(bookmark.text))
    #expect(try JSONDecoder().decode(Document.self, from: json) == Document(images: [bookmark]))
  }

  @Test("decodeUnverified shows the recorded fields")
  func recordedFields() throws {
    let fixture = try Fixture()
    let contents = try fixture.bookmark.decodeUnverified()
    #expect(contents.version == 1)
    #expect(contents.kind == .file)
    #expect(contents.relativePath == "images/cat.png")
    #expect(contents.absolutePath == fixture.target)
    #expect(contents.keyFingerprint == fixture.bookmark.keyFingerprint)
    #expect(contents.identity.size == 3)
    #expect(contents.identity.inode != 0)
    #expect(contents.volume.mountPoint != nil)
    let document = try FileStatus.of(fixture.scratch.path("project/board.json"), followSymlinks: true)
    #expect(
      contents.documentIdentity == RecordedDocument(inode: document.inode, birthTime: document.birthTime))
  }

  @Test(
    "the document's identity field: an inode and a birth time, or an inode alone; any other length is corrupt"
  )
  func documentIdentityField() throws {
    let fixture = try Fixture()
    let key = try #require(try fixture.document.readKey())
    let made = try fixture.bookmark.decodeUnverified()
    func record(_ identity: RecordedDocument?) -> [UInt8] {
      let contents = BookmarkContents(
        version: made.version, keyFingerprint: made.keyFingerprint, kind: made.kind,
        relativePath: made.relativePath, absolutePath: made.absolutePath, createdAt: made.createdAt,
        identity: made.identity, volume: made.volume, documentPath: made.documentPath,
        documentIdentity: identity)
      return BookmarkRecord.encode(contents, key: key)
    }
    for identity in [
      RecordedDocument(inode: 42, birthTime: Timestamp(seconds: 1_700_000_000, nanoseconds: 5)),
      RecordedDocument(inode: 42, birthTime: nil), nil,
    ] {
      let bytes = record(identity)
      #expect(try Bookmark(bytes: bytes).decodeUnverified().documentIdentity == identity)
    }
    // The field is the last before the tag: shorten its value by one byte and fix the
    // lengths, so that only the field's own shape is wrong.
    var bytes = Array(record(RecordedDocument(inode: 42, birthTime: nil)).dropLast(BookmarkRecord.tagLength))
    let fieldStart = bytes.count - 11
    #expect(bytes[fieldStart] == 0x81)
    bytes.remove(at: bytes.count - 1)
    bytes[fieldStart + 2] = 7
    let total = bytes.count + BookmarkRecord.tagLength
    bytes[8] = UInt8(total >> 8)
    bytes[9] = UInt8(total & 0xFF)
    bytes += BookmarkRecord.mac(bytes[...], key: key)
    let error = try #require(throws: DocbmError.self) { try Bookmark(bytes: bytes).decodeUnverified() }
    #expect(error.code == .corrupt)
  }

  @Test("every single-bit flip of a valid record is rejected")
  func everyBitFlip() throws {
    let fixture = try Fixture()
    let bytes = fixture.bookmark.bytes
    var codes: [DocbmError.Code: Int] = [:]
    for index in bytes.indices {
      for bit in 0..<8 {
        var flipped = bytes
        flipped[index] ^= 1 << bit
        do {
          let bookmark = try Bookmark(bytes: flipped)
          _ = try fixture.document.resolve(bookmark)
          Issue.record("byte \(index) bit \(bit): a flipped record resolved")
        } catch {
          codes[error.code, default: 0] += 1
        }
      }
    }
    #expect(codes.values.reduce(0, +) == bytes.count * 8)
    // Flips in the payload or tag fail the MAC; in the fingerprint, the key check.
    #expect(codes[.tampered, default: 0] > bytes.count * 8 / 2)
    #expect(codes[.keyMismatch, default: 0] == 64)
    #expect(Set(codes.keys).isSubset(of: [.tampered, .keyMismatch, .corrupt, .unsupportedVersion]))
  }

  @Test("a record from document A fails against document B with keyMismatch")
  func otherDocument() throws {
    let fixture = try Fixture()
    let otherPath = try fixture.scratch.file("other.json")
    let other = BookmarkService(escrow: nil).documents(anchoredOn: otherPath)
    _ = try other.makeBookmark(to: fixture.target)
    let error = #expect(throws: DocbmError.self) { try other.resolve(fixture.bookmark) }
    #expect(error?.code == .keyMismatch)
    #expect(error?.recommendation == .pickAgain)
  }

  @Test("a document without a key gives keyMissing")
  func keyMissing() throws {
    let fixture = try Fixture()
    let bare = BookmarkService(escrow: nil).documents(anchoredOn: try fixture.scratch.file("bare.json"))
    let error = #expect(throws: DocbmError.self) { try bare.resolve(fixture.bookmark) }
    #expect(error?.code == .keyMissing)
  }

  @Test("cut-short, lengthened and foreign inputs are corrupt")
  func framing() throws {
    let fixture = try Fixture()
    let bytes = fixture.bookmark.bytes
    for length in [0, 5, 6, 17, 18, 40, bytes.count - 1] {
      let error = #expect(throws: DocbmError.self) { try Bookmark(bytes: Array(bytes.prefix(length))) }
      #expect(error?.code == .corrupt)
    }
    #expect(throws: DocbmError.self) { try Bookmark(bytes: bytes + [0]) }
    #expect(throws: DocbmError.self) { try Bookmark(text: "hello") }
    #expect(throws: DocbmError.self) { try Bookmark(text: fixture.bookmark.text + "A") }
    #expect(throws: DocbmError.self) { try Bookmark(text: "docbmRec!!") }
    var future = bytes
    future[6] = 2
    let versionError = #expect(throws: DocbmError.self) { try Bookmark(bytes: future) }
    #expect(versionError?.code == .unsupportedVersion)
    // Any byte of the magic changed, in a record otherwise whole: not a bookmark (the
    // header says so, before any other check).
    for index in 0..<BookmarkRecord.magic.count {
      var foreign = bytes
      foreign[index] ^= 0x40
      let error = #expect(throws: DocbmError.self) { try Bookmark(bytes: foreign) }
      #expect(error?.message.contains("do not start with a docbm bookmark") == true, "magic byte \(index)")
    }
    // And the key attribute's magic, likewise.
    let documentPath = fixture.document.path
    let key = try #require(try KeyAttribute.read(atPath: documentPath).key(of: documentPath))
    let stored = KeyAttribute.encode(key)
    for index in 0..<KeyAttribute.magic.count {
      var foreign = stored
      foreign[index] ^= 0x40
      guard case .malformed(let reason, _) = KeyAttribute.decode(foreign) else {
        Issue.record("key magic byte \(index) changed, still read")
        continue
      }
      #expect(reason.contains("magic"), "key magic byte \(index)")
    }
    guard case .key = KeyAttribute.decode(stored) else {
      Issue.record("the key's own value was not read")
      return
    }
  }

  @Test("100,000 mutated and random records never crash the decoder")
  func mutationFuzz() throws {
    let fixture = try Fixture()
    let bytes = fixture.bookmark.bytes
    var generator = SplitMix64(seed: 0x5EED_D0C8)
    var accepted = 0
    var disagreements = 0
    for round in 0..<100_000 {
      var mutated = bytes
      switch round % 6 {
      case 0:
        for _ in 0..<(1 + Int(generator.next() % 8)) {
          let index = Int(generator.next() % UInt64(mutated.count))
          mutated[index] ^= UInt8(truncatingIfNeeded: generator.next() | 1)
        }
      case 1:
        mutated = Array(mutated.prefix(Int(generator.next() % UInt64(mutated.count))))
      case 2:
        mutated += (0..<Int(generator.next() % 64)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
      case 3:
        // Keep the header, randomise the rest, and fix up the length so framing passes.
        let tail = (0..<Int(generator.next() % 300)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        mutated = Array(bytes.prefix(18)) + tail
        mutated[8] = UInt8(mutated.count >> 8)
        mutated[9] = UInt8(mutated.count & 0xFF)
      case 4:
        // Change one field length byte somewhere in the payload.
        let index = 18 + Int(generator.next() % UInt64(mutated.count - 34))
        mutated[index] = UInt8(truncatingIfNeeded: generator.next())
      default:
        mutated = (0..<Int(generator.next() % 400)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
      }
      guard let bookmark = try? Bookmark(bytes: mutated) else { continue }
      let decoded = try? bookmark.decodeUnverified()
      // The checker's short way to the recorded path agrees with the whole decode.
      if bookmark.unverifiedAbsolutePath != decoded?.absolutePath { disagreements += 1 }
      if (try? fixture.document.resolve(bookmark)) != nil, mutated != bytes { accepted += 1 }
    }
    #expect(accepted == 0)
    #expect(disagreements == 0)
  }
}

/// A small deterministic generator, so a failing fuzz round can be replayed.
struct SplitMix64: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

/// The MAC's bytes never change, whichever library computes them: records signed by any
/// earlier build keep verifying.
@Suite("The bookmark MAC, known answers")
struct BookmarkMACKnownAnswerTests {
  static func bytes(hex: String) -> [UInt8] {
    var result: [UInt8] = []
    var index = hex.startIndex
    while index < hex.endIndex {
      let next = hex.index(index, offsetBy: 2)
      result.append(UInt8(hex[index..<next], radix: 16)!)
      index = next
    }
    return result
  }

  /// Key 00 01 … 1f; a record (kind, relative and absolute path) whose 16-byte tag is the
  /// truncated HMAC-SHA-256 computed by the libsodium build (and by Python's hmac module).
  static let key = DocumentKey(bytes: Array(0..<32))!
  static let record = bytes(
    hex:
      "76871b99179c0100005bb0fdc5990e00361e0100010102000e696d616765732f6361742e706e670300212f686f6d652f757365722f70726f6a6563742f696d616765732f6361742e706e678bcfa331832f90c7c55586514d0c47a9"
  )

  @Test("a record signed before verifies, and its tag is recomputed byte for byte")
  func knownRecord() throws {
    let bookmark = try Bookmark(bytes: Self.record)
    #expect(bookmark.keyFingerprint == Self.key.fingerprint)
    #expect(BookmarkRecord.verify(Self.record, key: Self.key))
    let signed = Self.record[..<(Self.record.count - BookmarkRecord.tagLength)]
    #expect(BookmarkRecord.mac(signed, key: Self.key) == Array(Self.record.suffix(BookmarkRecord.tagLength)))
    for index in [0, 20, Self.record.count - 1] {
      var changed = Self.record
      changed[index] ^= 0x01
      #expect(!BookmarkRecord.verify(changed, key: Self.key))
    }
  }

  @Test("HMAC-SHA-256 of RFC 4231, test case 2")
  func rfc4231() {
    let tag = Self.key.authenticate(context: [], Array("what do ya want for nothing?".utf8)[...])
    let reference = DocumentKey(bytes: Array(0..<32))!.authenticate(
      context: Array("what do ya ".utf8), Array("want for nothing?".utf8)[...])
    #expect(tag == reference)
    #expect(
      HMACSHA256.tag(key: Array("Jefe".utf8), Array("what do ya want for nothing?".utf8)[...])
        == Self.bytes(hex: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"))
  }

  @Test("a key's schedule (its padded blocks and a prefix hashed once) gives the same tags, from any thread")
  func schedule() async {
    let message = Array("what do ya want for nothing?".utf8)
    let reference = Self.bytes(hex: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    #expect(HMACSHA256.Schedule(key: Array("Jefe".utf8)).tag(message[...]) == reference)
    // The prefix cut anywhere, even inside what a block holds: the same tag.
    for cut in [0, 1, 10, 27, message.count] {
      let jefe = HMACSHA256.Schedule(key: Array("Jefe".utf8), prefix: Array(message[..<cut]))
      #expect(jefe.tag(message[cut...]) == reference, "cut at \(cut)")
    }
    #expect(
      HMACSHA256.Schedule(key: Array("Jefe".utf8), prefix: Array(message[..<10])).tag(message[11...])
        != reference)
    let schedule = HMACSHA256.Schedule(key: Self.key.bytes, prefix: BookmarkRecord.macContext)
    let signed = Self.record[..<(Self.record.count - BookmarkRecord.tagLength)]
    let expected = Array(Self.record.suffix(BookmarkRecord.tagLength))
    await withTaskGroup(of: Bool.self) { group in
      for _ in 0..<8 {
        group.addTask {
          (0..<200).allSatisfy { _ in
            Array(schedule.tag(signed).prefix(BookmarkRecord.tagLength)) == expected
          }
        }
      }
      for await agreed in group { #expect(agreed) }
    }
  }
}
