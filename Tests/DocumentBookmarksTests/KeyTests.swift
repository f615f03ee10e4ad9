import DocbmSystem
import DocbmTestSupport
import Foundation
import Glibc
import Testing

@testable import DocumentBookmarks

@Suite("Document keys")
struct KeyTests {
  @Test("no key before the first bookmark; the first bookmark creates one, later ones reuse it")
  func createdOnFirstBookmark() throws {
    let scratch = try Scratch()
    let documentPath = try scratch.file("doc.json", "{}")
    let target = try scratch.file("a.txt")
    let document = BookmarkService(escrow: nil).documents(anchoredOn: documentPath)
    #expect(try document.keyFingerprint() == nil)
    #expect(
      try ExtendedAttributes.value(KeyAttribute.name, of: .path(documentPath, followSymlinks: false)) == nil)

    let first = try document.makeBookmark(to: target)
    let fingerprint = try #require(try document.keyFingerprint())
    #expect(first.keyFingerprint == fingerprint)
    let second = try document.makeBookmark(to: target)
    #expect(second.keyFingerprint == fingerprint)
    #expect(try document.keyFingerprint() == fingerprint)
  }

  @Test("the key value is 46 bytes: magic, version, algorithm, key, fingerprint")
  func valueLayout() throws {
    let scratch = try Scratch()
    let documentPath = try scratch.file("doc")
    let document = BookmarkService(escrow: nil).documents(anchoredOn: documentPath)
    _ = try document.makeBookmark(to: try scratch.file("t"))
    let value = try #require(
      try ExtendedAttributes.value(KeyAttribute.name, of: .path(documentPath, followSymlinks: false)))
    #expect(value.count == 46)
    #expect(Array(value[0..<4]) == Array("DBMK".utf8))
    #expect(value[4] == 1)
    #expect(value[5] == 1)
    #expect(Array(value[38..<46]) == (try document.keyFingerprint())?.bytes)
  }

  @Test("a failed bookmark (missing target) creates no key")
  func noKeyOnFailure() throws {
    let scratch = try Scratch()
    let documentPath = try scratch.file("doc")
    let document = BookmarkService(escrow: nil).documents(anchoredOn: documentPath)
    let error = #expect(throws: DocbmError.self) {
      try document.makeBookmark(to: scratch.path("nope"))
    }
    #expect(error?.code == .notFound)
    #expect(try document.keyFingerprint() == nil)
  }

  @Test("a malformed key attribute is reported and never overwritten")
  func malformedKey() throws {
    let scratch = try Scratch()
    let documentPath = try scratch.file("doc")
    let junk = Array("not a docbm key".utf8)
    try ExtendedAttributes.set(KeyAttribute.name, to: junk, on: .path(documentPath, followSymlinks: false))
    let document = BookmarkService(escrow: nil).documents(anchoredOn: documentPath)
    let error = #expect(throws: DocbmError.self) { try document.makeBookmark(to: scratch.file("t")) }
    #expect(error?.code == .keyMalformed)
    #expect(
      try ExtendedAttributes.value(KeyAttribute.name, of: .path(documentPath, followSymlinks: false)) == junk)

    // A damaged key (fingerprint check fails) is malformed too.
    var value = KeyAttribute.encode(.random())
    value[10] ^= 0xFF
    try ExtendedAttributes.set(KeyAttribute.name, to: value, on: .path(documentPath, followSymlinks: false))
    #expect(throws: DocbmError.self) { try document.keyFingerprint() }

    // A future version is unsupported, not malformed.
    value = KeyAttribute.encode(.random())
    value[4] = 9
    try ExtendedAttributes.set(KeyAttribute.name, to: value, on: .path(documentPath, followSymlinks: false))
    let versionError = #expect(throws: DocbmError.self) { try document.keyFingerprint() }
    #expect(versionError?.code == .unsupportedVersion)
  }

  @Test("a folder can be a document")
  func folderDocument() throws {
    let scratch = try Scratch()
    let package = try scratch.folder("Project.pkg")
    let target = try scratch.file("Project.pkg/assets/a.png")
    let document = BookmarkService(escrow: nil).documents(anchoredOn: package)
    let bookmark = try document.makeBookmark(to: target)
    #expect(try document.keyFingerprint() == bookmark.keyFingerprint)
    #expect(try document.resolve(bookmark).path == target)
  }

  @Test("the key never appears in descriptions, errors or bookmarks")
  func keyNeverShown() throws {
    let scratch = try Scratch()
    let documentPath = try scratch.file("doc")
    let document = BookmarkService(escrow: nil).documents(anchoredOn: documentPath)
    let bookmark = try document.makeBookmark(to: try scratch.file("t"))
    let value = try #require(
      try ExtendedAttributes.value(KeyAttribute.name, of: .path(documentPath, followSymlinks: false)))
    let key = Array(value[6..<38])
    let keyHex = key.map { String($0, radix: 16) }.joined()
    let other = try scratch.file("other")
    let mismatch = #expect(throws: DocbmError.self) {
      try BookmarkService(escrow: nil).documents(anchoredOn: other).resolve(bookmark)
    }
    let texts = [
      String(describing: DocumentKey(bytes: key)!), String(describing: mismatch as Any),
      bookmark.text, String(describing: try bookmark.decodeUnverified()),
    ]
    for text in texts {
      #expect(!text.contains(keyHex))
      #expect(!text.contains(Data(key).base64EncodedString()))
    }
    #expect(!bookmark.bytes.windows(ofCount: 32).contains { Array($0) == key })
  }

  @Test("threads anchoring one document at once end with one key that all of them use")
  func concurrentThreads() async throws {
    let scratch = try Scratch()
    for round in 0..<10 {
      let documentPath = try scratch.file("doc\(round)")
      let target = try scratch.file("target\(round)")
      let document = BookmarkService(escrow: nil).documents(anchoredOn: documentPath)
      let bookmarks = try await withThrowingTaskGroup(of: Bookmark.self) { group in
        for _ in 0..<8 {
          group.addTask { try document.makeBookmark(to: target) }
        }
        return try await group.reduce(into: []) { $0.append($1) }
      }
      #expect(Set(bookmarks.map(\.keyFingerprint)).count == 1)
      for bookmark in bookmarks {
        #expect(try document.resolve(bookmark).path == target)
      }
    }
  }

  @Test("an immutable document gives a typed error naming it")
  func immutableDocument() throws {
    guard Capabilities.isRoot else {
      print("skipped: chattr +i needs root (CAP_LINUX_IMMUTABLE)")
      return
    }
    let scratch = try Scratch()
    let documentPath = try scratch.file("doc")
    guard run("/usr/bin/chattr", ["+i", documentPath.description]).status == 0 else {
      print("skipped: chattr +i is not supported on this filesystem")
      return
    }
    defer { run("/usr/bin/chattr", ["-i", documentPath.description]) }
    let document = BookmarkService(escrow: nil).documents(anchoredOn: documentPath)
    let error = #expect(throws: DocbmError.self) { try document.makeBookmark(to: scratch.file("t")) }
    #expect(error?.code == .immutable)
    #expect(error?.path == documentPath)
    #expect(error?.message.contains(documentPath.description) == true)
    #expect(error?.recommendation == .useAnotherLocation)
  }
}

extension Array {
  fileprivate func windows(ofCount count: Int) -> [ArraySlice<Element>] {
    guard self.count >= count else { return [] }
    return (0...(self.count - count)).map { self[$0..<($0 + count)] }
  }
}
