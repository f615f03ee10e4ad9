import DocbmSystem
import DocbmTestSupport
import Foundation
import Glibc
import Testing

@testable import DocumentBookmarks

/// What common ways of saving do to a document on Linux, recorded by running them. The
/// table in docs/save-safety.md comes from these tests' output.
@Suite("What saves do to a document")
struct SaveBehaviourTests {
  /// What a save left behind.
  struct Observation: CustomStringConvertible {
    var documentExists = false
    var contentsAreNew = false
    var keyKept = false
    var otherAttributeKept = false
    var mode: UInt32 = 0
    var sameInode = false
    var error: String?

    var description: String {
      let mode = documentExists ? String(mode, radix: 8) : "-"
      return
        "document \(documentExists ? "exists" : "GONE"), contents \(contentsAreNew ? "new" : "old/other"), "
        + "key \(keyKept ? "kept" : "lost"), user.other \(otherAttributeKept ? "kept" : "lost"), "
        + "mode \(mode), inode \(sameInode ? "same" : "new")" + (error.map { ", threw: \($0)" } ?? "")
    }
  }

  /// Makes a document with a key, `user.other` and mode 0640, runs `save` on it with the
  /// new contents "new", and observes the result.
  func observe(_ method: String, _ save: (URL, Data) throws -> Void) throws -> Observation {
    let scratch = try Scratch()
    let path = try scratch.file("doc.txt", "old")
    let document = BookmarkService(escrow: nil).documents(anchoredOn: path)
    _ = try document.makeBookmark(to: try scratch.file("target"))
    let key = try document.keyFingerprint()
    try ExtendedAttributes.set("user.other", to: [1, 2, 3], on: .path(path, followSymlinks: false))
    chmod(path.description, 0o640)
    let inode = try FileStatus.of(path, followSymlinks: false).inode

    var observation = Observation()
    do {
      try save(path.url, Data("new".utf8))
    } catch {
      observation.error = "\(type(of: error))"
    }
    if let status = try? FileStatus.of(path, followSymlinks: false) {
      observation.documentExists = true
      observation.mode = status.permissions
      observation.sameInode = status.inode == inode
      observation.contentsAreNew = (try? readWholeFile(path)) == Array("new".utf8)
      observation.keyKept = (try? document.keyFingerprint()) == key
      observation.otherAttributeKept =
        (try? ExtendedAttributes.value("user.other", of: .path(path, followSymlinks: false))) == [1, 2, 3]
    }
    print("save-behaviour | \(method) | \(observation)")
    return observation
  }

  @Test("Data.write(options: .atomic) loses the key, the attributes and the mode")
  func dataAtomic() throws {
    let seen = try observe("Data.write(.atomic)") { url, data in try data.write(to: url, options: .atomic) }
    #expect(seen.documentExists && seen.contentsAreNew)
    #expect(!seen.keyKept && !seen.otherAttributeKept)
    #expect(seen.mode != 0o640)
    #expect(!seen.sameInode)
  }

  @Test("String.write(atomically: true) loses the key, the attributes and the mode")
  func stringAtomic() throws {
    let seen = try observe("String.write(atomically: true)") { url, _ in
      try "new".write(to: url, atomically: true, encoding: .utf8)
    }
    #expect(seen.documentExists && seen.contentsAreNew)
    #expect(!seen.keyKept && !seen.otherAttributeKept)
    #expect(seen.mode != 0o640)
  }

  @Test("FileManager.replaceItemAt destroys the document (swift-corelibs-foundation 6.3.1)")
  func replaceItemAt() throws {
    let seen = try observe("FileManager.replaceItemAt") { url, data in
      let replacement = url.deletingLastPathComponent().appendingPathComponent("replacement.txt")
      try data.write(to: replacement)
      _ = try FileManager.default.replaceItemAt(url, withItemAt: replacement)
    }
    // The arguments of its rename are swapped: the document path ends up empty, or holding
    // something other than the new contents, and the key does not survive at the path.
    #expect(!seen.documentExists || !seen.contentsAreNew)
    #expect(!seen.keyKept)
  }

  @Test("remove, then move the new file into place: loses the key; a window with no document")
  func removeThenMove() throws {
    let seen = try observe("remove then move") { url, data in
      let replacement = url.deletingLastPathComponent().appendingPathComponent("replacement.txt")
      try data.write(to: replacement)
      try FileManager.default.removeItem(at: url)
      try FileManager.default.moveItem(at: replacement, to: url)
    }
    #expect(seen.documentExists && seen.contentsAreNew)
    #expect(!seen.keyKept && !seen.otherAttributeKept)
    #expect(!seen.sameInode)
  }

  @Test("an in-place write keeps everything (but is not crash-safe)")
  func inPlace() throws {
    let seen = try observe("in-place write (Data.write, no options)") { url, data in try data.write(to: url) }
    #expect(seen.documentExists && seen.contentsAreNew)
    #expect(seen.keyKept && seen.otherAttributeKept)
    #expect(seen.mode == 0o640)
    #expect(seen.sameInode)
  }

  @Test("replaceDocument keeps the key, the attributes and the mode, with a new inode")
  func replaceDocument() throws {
    let seen = try observe("replaceDocument") { url, data in
      try BookmarkService(escrow: nil).documents(anchoredOn: url).replaceDocument(with: data)
    }
    #expect(seen.documentExists && seen.contentsAreNew)
    #expect(seen.keyKept && seen.otherAttributeKept)
    #expect(seen.mode == 0o640)
    #expect(!seen.sameInode)
    #expect(seen.error == nil)
  }
}
