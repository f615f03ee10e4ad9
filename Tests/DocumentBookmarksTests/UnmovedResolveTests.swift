import DocbmSystem
import DocbmTestSupport
import Foundation
import Glibc
import Testing

@testable import DocumentBookmarks

/// The unmoved resolve (``UnmovedResolver``) answers only when the full resolve would give
/// the same answer, and hands every other case to it.
@Suite("Unmoved resolve")
struct UnmovedResolveTests {
  let scratch: Scratch
  let documentPath: FilePath
  let document: AnchoredDocument

  init() throws {
    scratch = try Scratch()
    documentPath = try scratch.file("project/board.json", "{}")
    document = BookmarkService(escrow: nil).documents(anchoredOn: documentPath)
  }

  /// The full resolve, without the unmoved one in front of it.
  func fullResolve(_ bookmark: Bookmark, on document: AnchoredDocument? = nil) throws -> Resolution {
    let document = document ?? self.document
    let key = try #require(try document.readKey())
    return try document.resolve(bookmark, key: key)
  }

  @Test("a file and a folder where they were: the same resolution as the full resolve")
  func sameAnswer() throws {
    let file = try scratch.file("project/images/cat.png")
    let folder = try scratch.folder("project/sounds")
    for target in [file, folder] {
      let bookmark = try document.makeBookmark(to: target)
      let located = try #require(UnmovedResolver.locate(bookmark, on: document))
      #expect(located.path == target)
      let resolution = try document.resolve(bookmark)
      #expect(resolution == (try fullResolve(bookmark)))
      #expect(resolution.recorded == (try bookmark.decodeUnverified()))
      #expect(!resolution.isStale && resolution.refreshed == nil && resolution.portalDocument == nil)
    }
  }

  @Test("a document reached by another spelling of its path (., .., a doubled slash) resolves unmoved")
  func otherSpelling() throws {
    let target = try scratch.file("project/images/cat.png")
    let bookmark = try document.makeBookmark(to: target)
    let spelled = BookmarkService(escrow: nil).documents(
      anchoredOn: FilePath(scratch.path("project").description + "/./images/..//board.json"))
    #expect(UnmovedResolver.locate(bookmark, on: spelled)?.path == target)
  }

  @Test("a renamed target, a replaced one, another kind there, a link there: left to the full resolve")
  func targetChanged() throws {
    let renamed = try scratch.file("project/images/renamed.png")
    let replaced = try scratch.file("project/images/replaced.png")
    let kind = try scratch.file("project/images/kind.png")
    let linked = try scratch.file("project/images/linked.png")
    let bookmarks = try [renamed, replaced, kind, linked].map { try document.makeBookmark(to: $0) }
    try scratch.move(renamed, scratch.path("project/images/renamed-now.png"))
    try scratch.replaceAtomically(replaced, with: "new")
    try scratch.remove(kind)
    try scratch.folder("project/images/kind.png")
    try scratch.move(linked, scratch.path("project/images/linked-target.png"))
    try scratch.symlink("linked-target.png", at: linked)
    for bookmark in bookmarks {
      #expect(UnmovedResolver.locate(bookmark, on: document) == nil)
    }
    #expect(try document.resolve(bookmarks[0]).staleReasons == [.targetMoved])
    #expect(try document.resolve(bookmarks[1]).staleReasons == [.identityChanged])
  }

  @Test("a moved project, a copied document: left to the full resolve, which says documentMoved")
  func documentMoved() throws {
    let target = try scratch.file("project/images/cat.png")
    let bookmark = try document.makeBookmark(to: target)
    try scratch.move(scratch.path("project"), scratch.path("moved"))
    let moved = BookmarkService(escrow: nil).documents(anchoredOn: scratch.path("moved/board.json"))
    #expect(UnmovedResolver.locate(bookmark, on: moved) == nil)
    let resolution = try moved.resolve(bookmark)
    #expect(resolution.path == scratch.path("moved/images/cat.png"))
    #expect(resolution.staleReasons == [.documentMoved])
  }

  @Test(
    "a changed byte, another document's key, no key, a damaged key: nothing answered, the full resolve's error"
  )
  func untrusted() throws {
    let target = try scratch.file("project/images/cat.png")
    let bookmark = try document.makeBookmark(to: target)
    #expect(UnmovedResolver.locate(bookmark, on: document) != nil)

    // The creation time's last second: a change that leaves every path and the identity
    // as they were, so only the tag can tell.
    var changed = bookmark.bytes
    let absolute = try BookmarkFields.parse(changed).absolutePath
    #expect(changed[absolute.upperBound] == BookmarkRecord.Tag.createdAt)
    changed[absolute.upperBound + 3 + 7] ^= 0x01
    let tampered = try Bookmark(bytes: changed)
    #expect(UnmovedResolver.locate(tampered, on: document) == nil)
    #expect((#expect(throws: DocbmError.self) { try document.resolve(tampered) })?.code == .tampered)

    let other = BookmarkService(escrow: nil).documents(
      anchoredOn: try scratch.file("project/other.json", "{}"))
    _ = try other.makeBookmark(to: target)
    #expect(UnmovedResolver.locate(bookmark, on: other) == nil)
    #expect((#expect(throws: DocbmError.self) { try other.resolve(bookmark) })?.code == .keyMismatch)

    // A key whose last byte changed but whose stored fingerprint is the original's: the
    // cache (which holds the original) must not take it for the original.
    var value = try #require(
      try ExtendedAttributes.value(KeyAttribute.name, of: .path(documentPath, followSymlinks: true)))
    value[KeyAttribute.valueLength - KeyFingerprint.byteCount - 1] ^= 0x01
    try ExtendedAttributes.set(KeyAttribute.name, to: value, on: .path(documentPath, followSymlinks: true))
    #expect(UnmovedResolver.locate(bookmark, on: document) == nil)
    #expect((#expect(throws: DocbmError.self) { try document.resolve(bookmark) })?.code == .keyMalformed)

    _ = try ExtendedAttributes.remove(KeyAttribute.name, from: .path(documentPath, followSymlinks: true))
    #expect(UnmovedResolver.locate(bookmark, on: document) == nil)
    #expect((#expect(throws: DocbmError.self) { try document.resolve(bookmark) })?.code == .keyMissing)
  }

  @Test("joining a relative path agrees with appending it and normalizing, on every short combination")
  func joinedNormalization() {
    let folders: [FilePath] = ["/", "/a", "/a/b", "/a/b/c"]
    // Names that start or end with dots are names, not `.` or `..`.
    let pieces = ["", "/", ".", "..", "a", "b", ".c", "..d", "e.."]
    var relatives = [""]
    for _ in 0..<4 { relatives = relatives + relatives.flatMap { path in pieces.map { path + "/" + $0 } } }
    relatives = Array(Set(relatives.map { String($0.drop { $0 == "/" }) })).filter { !$0.isEmpty }
    var checked = 0
    for folder in folders {
      for relative in relatives {
        let expected = folder.appending(Array(relative.utf8)).lexicallyNormalized.bytes
        let bytes = Array(relative.utf8)
        #expect(folder.joined(bytes[...], normalizesTo: expected[...]), "\(folder) + \(relative)")
        // One byte more, or one less, is another path.
        #expect(!folder.joined(bytes[...], normalizesTo: (expected + [UInt8(ascii: "x")])[...]))
        if expected.count > 1 { #expect(!folder.joined(bytes[...], normalizesTo: expected.dropLast())) }
        checked += 1
      }
    }
    #expect(checked > 1_000)
  }

  @Test("normal form: one slash between names, none empty, `.` or `..`, no slash at the end")
  func normalForm() {
    func isNormal(_ path: String, absolute: Bool) -> Bool {
      Array(path.utf8).withUnsafeBytes { FilePath.isNormalForm($0, absolute: absolute) }
    }
    for path in ["/", "/a", "/a/b", "/.a", "/a../b", "/..a/.b."] {
      #expect(isNormal(path, absolute: true), "\(path)")
      #expect(!isNormal(path, absolute: false), "\(path) is absolute")
    }
    for path in ["a", "a/b", ".a", "a..", "..a/b/...c"] {
      #expect(isNormal(path, absolute: false), "\(path)")
      #expect(!isNormal(path, absolute: true), "\(path) is relative")
    }
    for path in ["", "//", "/a/", "/a//b", "/./a", "/a/.", "/a/..", "/../a", "/."] {
      #expect(!isNormal(path, absolute: true), "\(path)")
    }
    for path in ["", ".", "..", "a/", "./a", "../a", "a//b", "a/./b", "a/../b", "a/.", "a/.."] {
      #expect(!isNormal(path, absolute: false), "\(path)")
    }
  }
}

@Suite("Constant-time comparison")
struct ConstantTimeTests {
  @Test("equal bytes are equal; one changed bit anywhere, or another length, is not")
  func equality() {
    for length in 0..<41 {
      let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
      #expect(ConstantTime.equal(bytes, bytes))
      #expect(!ConstantTime.equal(bytes, bytes + [0]))
      for index in 0..<length {
        for bit in [0, 7] {
          var changed = bytes
          changed[index] ^= 1 << bit
          #expect(!ConstantTime.equal(bytes, changed), "length \(length), byte \(index), bit \(bit)")
        }
      }
    }
  }
}

@Suite("Documents portal mounts")
struct PortalMountsTests {
  @Test("with no portal in the mount table, none is mounted; with one, the answer is no")
  func answer() throws {
    // The first questions of a process are answered "not known"; after them the table is
    // read.
    for _ in 0...PortalMounts.questionsBeforeReading { _ = PortalMounts.noneMounted() }
    // The portal tests mount and unmount portals meanwhile: the answer counts when the
    // table said the same before and after it.
    for _ in 0..<20 {
      let before = try MountTable.current().mounts.contains { $0.isDocumentPortal }
      let answer = PortalMounts.noneMounted()
      let after = try MountTable.current().mounts.contains { $0.isDocumentPortal }
      guard before == after else {
        usleep(50_000)
        continue
      }
      #expect(answer == !before)
      return
    }
    Issue.record("the mount table kept changing")
  }

  @Test("a thread in a mount namespace of its own gets no answer: its mounts are not the table's")
  func ownNamespace() async throws {
    let answer = try await FilesystemLab.inNamespace("own namespace") { _ in PortalMounts.noneMounted() }
    if let answer { #expect(answer == false) }
  }
}
