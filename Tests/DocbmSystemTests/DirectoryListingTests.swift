import DocbmTestSupport
import Glibc
import Testing

@testable import DocbmSystem

@Suite("Folder listings")
struct DirectoryListingTests {
  @Test("a listing holds every entry but . and .., in bytewise name order, with its type and inode")
  func listing() throws {
    let scratch = try Scratch()
    // Names that share their first 8 bytes, are prefixes of one another, or hold bytes
    // past 0x7F (not UTF-8), so that the order needs more than the leading bytes.
    let names: [[UInt8]] = [
      Array("document-b.json".utf8), Array("document-a.json".utf8), Array("document".utf8), Array("doc".utf8),
      Array("Zebra".utf8), [0xC3, 0xA9, 0x2E, 0x74], [0xFF, 0x41], Array("a".utf8),
      Array("document-a.jsonx".utf8),
    ]
    let folder = try scratch.folder("listed")
    for name in names { _ = try scratch.file(bytes: folder.appending(name), "x") }
    _ = try scratch.folder("listed/sub")
    let stream = try DirectoryStream(folder)
    let listing = DirectoryListing(stream)
    #expect(listing.failure == nil)
    let listed = listing.entries.map { listing.name(of: $0) }
    let expected = (names + [Array("sub".utf8)]).sorted { $0.lexicographicallyPrecedes($1) }
    #expect(listed == expected)
    for entry in listing.entries {
      let name = listing.name(of: entry)
      let path = listing.path(of: entry, in: folder)
      #expect(path == folder.appending(name))
      let status = try FileStatus.of(path, followSymlinks: false)
      #expect(entry.inode == status.inode)
      #expect(entry.type == (name == Array("sub".utf8) ? .directory : .regular))
      // The name as a C string where it lies: NUL-terminated, opened from the folder.
      let length = listing.withName(of: entry) { strlen($0) }
      #expect(length == name.count)
      if entry.type == .regular {
        let fd = try listing.withName(of: entry) { name throws(SystemCallError) in
          try FileDescriptor.open(name: name, [.readOnly, .noFollow], relativeTo: stream.descriptor)
        }
        fd.close()
      }
    }
    // From the root and from a relative folder, paths get one slash.
    if let first = listing.entries.first {
      #expect(listing.path(of: first, in: "/").bytes == [UInt8(ascii: "/")] + listing.name(of: first))
      #expect(listing.path(of: first, in: "/tmp/").bytes == Array("/tmp/".utf8) + listing.name(of: first))
      #expect(listing.path(of: first, in: FilePath(uncheckedBytes: [])).bytes == listing.name(of: first))
    }
  }

  @Test("opening a listed name that is gone reports the name, typed")
  func missingName() throws {
    let scratch = try Scratch()
    let folder = try scratch.folder("listed")
    _ = try scratch.file("listed/doc.json")
    let stream = try DirectoryStream(folder)
    let listing = DirectoryListing(stream)
    let entry = try #require(listing.entries.first)
    try FileManagerless.remove(folder.appending("doc.json"))
    #expect(throws: SystemCallError.self) {
      try listing.withName(of: entry) { name throws(SystemCallError) in
        try FileDescriptor.open(name: name, [.readOnly, .noFollow], relativeTo: stream.descriptor)
      }
    }
    do {
      _ = try listing.withName(of: entry) { name throws(SystemCallError) in
        try FileDescriptor.open(name: name, [.readOnly, .noFollow], relativeTo: stream.descriptor)
      }
    } catch {
      #expect(error.errno == .noSuchFile)
      #expect(error.path == "doc.json")
    }
  }
}

/// Removes a file by path, for tests that need it gone.
private enum FileManagerless {
  static func remove(_ path: FilePath) throws {
    guard path.withCString({ unlink($0) }) == 0 else { throw ScratchError.system("unlink \(path)", errno) }
  }
}
