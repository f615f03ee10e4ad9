import DocbmSystem
import DocbmTestSupport
import Glibc
import Testing

@testable import DocumentBookmarks

@Suite("System layer")
struct SystemTests {
  @Test("attribute values larger than the first buffer are read whole (ERANGE growth)")
  func largeValue() throws {
    let scratch = try Scratch()
    let file = try scratch.file("f")
    let value = (0..<3000).map { UInt8(truncatingIfNeeded: $0) }
    try ExtendedAttributes.set("user.big", to: value, on: .path(file, followSymlinks: false))
    #expect(
      try ExtendedAttributes.value("user.big", of: .path(file, followSymlinks: false), sizeHint: 16) == value)
    #expect(try ExtendedAttributes.value("user.absent", of: .path(file, followSymlinks: false)) == nil)
    #expect(
      try ExtendedAttributes.names(of: .path(file, followSymlinks: false)).contains(Array("user.big".utf8)))
    #expect(try ExtendedAttributes.remove("user.big", from: .path(file, followSymlinks: false)))
    #expect(try ExtendedAttributes.remove("user.big", from: .path(file, followSymlinks: false)) == false)
  }

  @Test("create-only refuses an existing name with EEXIST")
  func createOnly() throws {
    let scratch = try Scratch()
    let file = try scratch.file("f")
    try ExtendedAttributes.set("user.k", to: [1], on: .path(file, followSymlinks: false), mode: .createOnly)
    let error = #expect(throws: SystemCallError.self) {
      try ExtendedAttributes.set("user.k", to: [2], on: .path(file, followSymlinks: false), mode: .createOnly)
    }
    #expect(error?.errno == .fileExists)
    #expect(error?.call == "lsetxattr")
  }

  @Test("statx reports identity, birth time and the mount; the handle matches the inode")
  func status() throws {
    let scratch = try Scratch()
    let file = try scratch.file("f", "12345")
    let status = try FileStatus.of(file, followSymlinks: false)
    #expect(status.kind == .regular)
    #expect(status.size == 5)
    #expect(status.inode != 0)
    #expect(status.mountID != nil)
    let handle = try #require(try KernelFileHandle.of(file, followSymlinks: false))
    #expect(!handle.bytes.isEmpty)
    let missing = #expect(throws: SystemCallError.self) {
      try FileStatus.of(scratch.path("nope"), followSymlinks: false)
    }
    #expect(missing?.errno == .noSuchFile)
  }

  @Test("the mount point found by walking up agrees with /proc/self/mountinfo")
  func mountPoints() throws {
    let scratch = try Scratch()
    for path in [scratch.root, try scratch.file("a/b/c"), FilePath("/"), FilePath("/proc/self")] {
      let real = try TargetSnapshot.canonicalPath(path)
      let status = try FileStatus.of(real, followSymlinks: false)
      let walked = FileSystemIdentity.mountPoint(of: real, status: status)
      let listed = status.mountID.flatMap(FileSystemIdentity.mountPoint(ofMountID:))
      #expect(walked != nil)
      #expect(walked == listed, "\(real)")
    }
  }

  @Test("folder listing gives names and inode numbers")
  func directoryStream() throws {
    let scratch = try Scratch()
    let file = try scratch.file("one")
    try scratch.folder("two")
    let stream = try DirectoryStream(scratch.root)
    var entries: [String: DirectoryStream.Entry] = [:]
    while let entry = stream.next() { entries[String(decoding: entry.name, as: UTF8.self)] = entry }
    #expect(Set(entries.keys) == ["one", "two"])
    #expect(entries["one"]?.inode == (try FileStatus.of(file, followSymlinks: false)).inode)
    #expect(entries["two"]?.type == .directory)
  }
}
