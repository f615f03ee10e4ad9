import DocbmTestSupport
import Glibc
import Testing

@testable import DocbmSystem

@Suite("A new file made whole before it has its name")
struct NewFileTests {
  let marker = Array(".test-new-".utf8)

  /// The contents of the file at `path`.
  private func contents(_ path: FilePath) throws -> String {
    let fd = try FileDescriptor.open(path, [.readOnly, .noFollow])
    defer { fd.close() }
    return String(decoding: try fd.readWhole(limit: 1 << 20), as: UTF8.self)
  }

  /// The names in `folder` other than `.` and `..`, as text.
  private func names(in folder: FilePath) throws -> Set<String> {
    let fd = try FileDescriptor.open(folder, [.readOnly, .directory])
    defer { fd.close() }
    return Set(try DirectoryStream.entries(of: fd).map { String(decoding: $0.name, as: UTF8.self) })
  }

  @Test(
    "a file gets its name only when it is whole, mode 0600 whatever the umask, with or without a temporary name",
    arguments: [false, true])
  func named(needsPath: Bool) throws {
    let scratch = try Scratch()
    let folder = try scratch.folder("out")
    let fd = try FileDescriptor.open(folder, [.readOnly, .directory])
    defer { fd.close() }
    let previous = umask(0)
    defer { umask(previous) }
    let file = try NewFile(FilePath("keys"), in: fd, marker: marker, needsPath: needsPath)
    try file.descriptor.writeAll(Array("secret".utf8))
    // Before it is named, nothing is at the name; a temporary name only where asked for.
    #expect(
      try names(in: folder) == (needsPath ? [String(decoding: file.temporaryName.bytes, as: UTF8.self)] : []))
    guard case .named(let written) = try file.name(replacing: false) else {
      Issue.record("the file was not named")
      return
    }
    file.discard()
    #expect(try names(in: folder) == ["keys"])
    let status = try FileStatus.of(folder.appending("keys"), followSymlinks: false)
    #expect(status.inode == written.inode)
    #expect(status.permissions == 0o600)
    #expect(try contents(folder.appending("keys")) == "secret")
  }

  @Test("a name already taken is left as it is, and the new file is emptied and removed")
  func nameTaken() throws {
    let scratch = try Scratch()
    let folder = try scratch.folder("out")
    let existing = try scratch.file("out/keys", "theirs")
    let fd = try FileDescriptor.open(folder, [.readOnly, .directory])
    defer { fd.close() }
    for needsPath in [false, true] {
      let file = try NewFile(FilePath("keys"), in: fd, marker: marker, needsPath: needsPath)
      try file.descriptor.writeAll(Array("secret".utf8))
      guard case .nameTaken = try file.name(replacing: false) else {
        Issue.record("the taken name was replaced")
        return
      }
      // A second descriptor of the file, to see it after the first is closed.
      let kept = FileDescriptor(rawValue: dup(file.descriptor.rawValue))
      defer { kept.close() }
      file.discard()
      #expect(try FileStatus.of(kept).size == 0, "the file not named still holds the bytes")
      #expect(try names(in: folder) == ["keys"])
      #expect(try contents(existing) == "theirs")
    }
    // Replacing puts the new file there.
    let file = try NewFile(FilePath("keys"), in: fd, marker: marker, needsPath: false)
    try file.descriptor.writeAll(Array("mine".utf8))
    guard case .named = try file.name(replacing: true) else {
      Issue.record("the file was not named over the old one")
      return
    }
    file.discard()
    #expect(try contents(existing) == "mine")
    #expect(try names(in: folder) == ["keys"])
  }

  @Test(
    "a killed maker's temporary file is swept; a running one's, another kind of entry and other names are kept"
  )
  func abandoned() throws {
    let scratch = try Scratch()
    let folder = try scratch.folder("out")
    let dead = Int32.max  // above any pid_max: no process has it
    _ = try scratch.file("out/.keys.test-new-\(dead)-1", "left by a killed maker")
    _ = try scratch.file("out/.keys.test-new-\(ProcessID.current)-999", "a running maker's")
    _ = try scratch.file("out/.keys.other-\(dead)-1", "another marker")
    _ = try scratch.file("out/.keys.test-new-\(dead)-x", "not a number")
    _ = try scratch.folder("out/.dir.test-new-\(dead)-2")
    let fd = try FileDescriptor.open(folder, [.readOnly, .directory])
    defer { fd.close() }
    NewFile.removeAbandoned(in: fd, marker: marker)
    #expect(
      try names(in: folder) == [
        ".keys.test-new-\(ProcessID.current)-999", ".keys.other-\(dead)-1", ".keys.test-new-\(dead)-x",
        ".dir.test-new-\(dead)-2",
      ])
  }
}
