import DocbmSystem
import DocbmTestSupport
import Foundation
import Glibc
import Testing

@testable import DocumentBookmarks

/// Saves that cannot succeed, or that would change what a save keeps, are refused before the
/// writer runs, with an error that says what to do about the save.
@Suite("Saves refused before writing")
struct SaveRefusalTests {
  let scratch: Scratch
  let documentPath: FilePath
  let document: AnchoredDocument

  init() throws {
    scratch = try Scratch()
    documentPath = try scratch.file("project/board.json", "old contents")
    document = BookmarkService(escrow: nil).documents(anchoredOn: documentPath)
    _ = try document.makeBookmark(to: try scratch.file("project/cat.png"))
  }

  private func contents(_ path: FilePath) throws -> String {
    String(decoding: try readWholeFile(path), as: UTF8.self)
  }

  private func leftovers(in folder: String = "project") throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: scratch.path(folder).description)
      .filter { $0.contains(".docbm-save-") }
  }

  /// Saves through a writer that records whether it ran.
  private func save(_ anchored: AnchoredDocument, options: ReplaceOptions = ReplaceOptions()) -> (
    error: DocbmError?, wrote: Bool
  ) {
    var wrote = false
    let error = #expect(throws: DocbmError.self) {
      try anchored.replaceDocument(options: options) { url in
        wrote = true
        try Data("new".utf8).write(to: url)
      }
    }
    return (error, wrote)
  }

  // MARK: Immutable and append-only

  /// `chattr` with `flag` on `path`; `false` (and a message) when this filesystem or user
  /// cannot set it.
  private func setFlag(_ flag: String, on path: FilePath) -> Bool {
    guard Capabilities.isRoot, FileManager.default.isExecutableFile(atPath: "/usr/bin/chattr") else {
      print("skipped: chattr needs root and /usr/bin/chattr")
      return false
    }
    let result = run("/usr/bin/chattr", [flag, path.description])
    if result.status != 0 {
      print("skipped: the test folder's filesystem does not take chattr \(flag): \(result.error)")
      return false
    }
    return true
  }

  private func clearFlags(_ path: FilePath) {
    run("/usr/bin/chattr", ["-i", "-a", path.description])
  }

  @Test(
    "an immutable or append-only document is refused with immutable before writing",
    arguments: ["+i", "+a"])
  func immutableDocument(flag: String) throws {
    guard setFlag(flag, on: documentPath) else { return }
    defer { clearFlags(documentPath) }
    let (error, wrote) = save(document)
    #expect(error?.code == .immutable, "\(String(describing: error))")
    #expect(error?.step == .inspectDocument)
    #expect(error?.recommendation == .clearFlags)
    #expect(error?.isTransient == false)
    #expect(error?.message.contains("chattr -\(flag.dropFirst()) ") == true, "\(String(describing: error))")
    #expect(!wrote, "the writer ran for a save that could not succeed")
    #expect(try leftovers().isEmpty)
    clearFlags(documentPath)
    #expect(try contents(documentPath) == "old contents")
    #expect(try document.keyFingerprint() != nil)
  }

  @Test(
    "a document in an immutable or append-only folder is refused with immutable before writing",
    arguments: ["+i", "+a"])
  func immutableFolder(flag: String) throws {
    let folder = scratch.path("project")
    guard setFlag(flag, on: folder) else { return }
    defer { clearFlags(folder) }
    let (error, wrote) = save(document)
    #expect(error?.code == .immutable, "\(String(describing: error))")
    #expect(error?.step == .prepareTemporary)
    #expect(error?.path == folder)
    #expect(error?.recommendation == .clearFlags)
    #expect(error?.message.contains("chattr -\(flag.dropFirst()) \(folder)") == true)
    #expect(!wrote)
    clearFlags(folder)
    #expect(try leftovers().isEmpty)
    #expect(try contents(documentPath) == "old contents")
  }

  // MARK: Read-only documents

  @Test("a read-only document is refused before the writer runs, unless allowed; the save keeps its mode")
  func readOnlyDocument() throws {
    chmod(documentPath.description, 0o444)
    let (error, wrote) = save(document)
    #expect(error?.code == .readOnlyDocument)
    #expect(error?.recommendation == .confirmSave)
    #expect(error?.step == .inspectDocument)
    #expect(error?.message.contains("save again allowing a read-only document") == true)
    #expect(!wrote)
    #expect(try contents(documentPath) == "old contents")
    #expect(try leftovers().isEmpty)

    // A copy saved over a read-only file is refused alike.
    let other = try scratch.file("project/other.json", "other")
    chmod(other.description, 0o444)
    let copy = #expect(throws: DocbmError.self) { try document.saveCopy(to: other, data: Data("new".utf8)) }
    #expect(copy?.code == .readOnlyDocument)
    #expect(try contents(other) == "other")

    try document.replaceDocument(with: Data("new".utf8), options: ReplaceOptions(readOnlyDocument: .allow))
    #expect(try contents(documentPath) == "new")
    #expect(try FileStatus.of(documentPath, followSymlinks: false).permissions == 0o444)
    #expect(try document.keyFingerprint() != nil)
    // Writable by its owner only: the owner (root here, or the user running the tests) saves.
    chmod(documentPath.description, 0o600)
    try document.replaceDocument(with: Data("again".utf8))
    #expect(try contents(documentPath) == "again")
  }

  // MARK: A folder document saved with data

  @Test("a URL writer for a name that is not UTF-8 is never run; the bytes writer gets the name exactly")
  func nameNotUTF8() throws {
    let folder = try scratch.folder("latin")
    let name: [UInt8] = Array("r".utf8) + [0xE9] + Array("sum".utf8) + [0xE9] + Array(".txt".utf8)
    let path = folder.appending(name)
    _ = try scratch.file(bytes: path, "first")
    let latin = BookmarkService(escrow: nil).documents(anchoredOn: path)
    _ = try latin.makeBookmark(to: try scratch.file("project/dog.png"))
    var ran = false
    do {
      try latin.replaceDocument { url in
        ran = true
        try Data("second".utf8).write(to: url)
      }
      Issue.record("a URL writer was handed a path a URL cannot hold")
    } catch {
      #expect(error.code == .writerFailed, "\(error)")
      #expect(error.message.contains("not UTF-8"), "\(error.message)")
    }
    #expect(!ran)
    #expect(try contents(path) == "first")
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: folder.description).count == 1, "a stray file")
    // The writer handed bytes (libdocbm's) writes the new version at its exact name.
    try latin.replaceDocumentByPath { new in
      let fd = try FileDescriptor.open(new, [.writeOnly, .create, .exclusive], permissions: 0o600)
      try fd.closeAfter { fd throws(SystemCallError) in try fd.writeAll(Array("second".utf8)) }
    }
    #expect(try contents(path) == "second")
    #expect(try latin.keyFingerprint() != nil)
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.description).count == 1)
  }

  @Test("a folder document saved with data is unsupportedFileType, not transient, before writing")
  func folderDocumentWithData() throws {
    let package = try scratch.folder("Project.pkg")
    try scratch.file("Project.pkg/inside.txt", "inside")
    let folderDocument = BookmarkService(escrow: nil).documents(anchoredOn: package)
    _ = try folderDocument.makeBookmark(to: scratch.path("Project.pkg/inside.txt"))
    let error = #expect(throws: DocbmError.self) { try folderDocument.replaceDocument(with: Data("x".utf8)) }
    #expect(error?.code == .unsupportedFileType, "\(String(describing: error))")
    #expect(error?.isTransient == false)
    #expect(error?.recommendation == .saveElsewhere)
    #expect(error?.step == .inspectDocument)
    #expect(error?.message.contains("saved by a writer that makes the new folder") == true)
    #expect(try contents(scratch.path("Project.pkg/inside.txt")) == "inside")
    #expect(try FileStatus.of(package, followSymlinks: false).kind == .directory)
    #expect(try leftovers(in: ".").isEmpty)
    // The same for a copy of a folder document made from data.
    let copyError = #expect(throws: DocbmError.self) {
      try folderDocument.saveCopy(to: scratch.path("Copy.pkg"), data: Data("x".utf8))
    }
    #expect(copyError?.code == .unsupportedFileType)
    #expect(!FileManager.default.fileExists(atPath: scratch.path("Copy.pkg").description))
  }

  // MARK: Paths over PATH_MAX

  /// A document whose absolute path is longer than PATH_MAX, made one folder at a time
  /// relative to its parent (the whole path is soon too long to use).
  private func deepDocument() throws -> FilePath {
    let name = String(repeating: "d", count: 200)
    var folder = scratch.root
    var fd = open(folder.description, O_DIRECTORY | O_RDONLY | O_CLOEXEC)
    while folder.bytes.count < Int(PATH_MAX) + 100 {
      guard fd >= 0, mkdirat(fd, name, 0o755) == 0 else { throw ScratchError.system("mkdirat", errno) }
      let child = openat(fd, name, O_DIRECTORY | O_RDONLY | O_CLOEXEC)
      close(fd)
      fd = child
      folder = folder.appending(name)
    }
    let file = openat(fd, "doc.json", O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
    guard file >= 0 else { throw ScratchError.system("openat", errno) }
    close(file)
    close(fd)
    return folder.appending("doc.json")
  }

  @Test("a path over PATH_MAX is pathTooLong when saving, resolving and inspecting, not notFound")
  func pathTooLong() throws {
    let deep = try deepDocument()
    let anchored = BookmarkService(escrow: nil).documents(anchoredOn: deep)
    let saveError = #expect(throws: DocbmError.self) { try anchored.replaceDocument(with: Data("x".utf8)) }
    #expect(saveError?.code == .pathTooLong, "\(String(describing: saveError))")
    #expect(saveError?.message.contains("too long") == true)
    #expect(saveError?.recommendation == .saveElsewhere)

    let bookmark = try document.makeBookmark(to: scratch.path("project/cat.png"))
    let resolveError = #expect(throws: DocbmError.self) { try anchored.resolve(bookmark) }
    #expect(resolveError?.code == .pathTooLong, "\(String(describing: resolveError))")
    #expect(resolveError?.recommendation == .useAnotherLocation)
    let inspectError = #expect(throws: DocbmError.self) { try anchored.keyFingerprint() }
    #expect(inspectError?.code == .pathTooLong)

    // A single name over NAME_MAX is told apart.
    let longName = BookmarkService(escrow: nil).documents(
      anchoredOn: scratch.path("project/" + String(repeating: "n", count: 300)))
    let nameError = #expect(throws: DocbmError.self) { try longName.replaceDocument(with: Data("x".utf8)) }
    #expect(nameError?.code == .pathTooLong)
    #expect(nameError?.message.contains("255") == true, "\(String(describing: nameError))")
  }

  // MARK: Recommendations that fit a save

  @Test("save errors recommend what to do about the save, resolve errors about the bookmark")
  func saveRecommendations() throws {
    // A missing folder: choose where to save, not pick the file again.
    let nowhere = BookmarkService(escrow: nil).documents(anchoredOn: scratch.path("gone/board.json"))
    let missing = #expect(throws: DocbmError.self) { try nowhere.replaceDocument(with: Data("x".utf8)) }
    #expect(missing?.code == .notFound)
    #expect(missing?.recommendation == .saveElsewhere)

    // A hard-linked document: allow the split, or save a copy.
    #expect(link(documentPath.description, scratch.path("project/other.json").description) == 0)
    let linked = #expect(throws: DocbmError.self) { try document.replaceDocument(with: Data("x".utf8)) }
    #expect(linked?.code == .hardLinked)
    #expect(linked?.recommendation == .confirmSave)
    unlink(scratch.path("project/other.json").description)

    // A full disk: free space and save again (still worth retrying).
    let full = SaveFaults.$injected.withValue(SaveFaults.Fault(step: .write, errno: ENOSPC)) {
      #expect(throws: DocbmError.self) { try document.replaceDocument(with: Data("x".utf8)) }
    }
    #expect(full?.code == .noSpace)
    #expect(full?.recommendation == .freeSpace)
    #expect(full?.isTransient == true)

    // A read-only filesystem or a folder one cannot write: save elsewhere.
    for errno in [EROFS, EACCES] {
      let refused = SaveFaults.$injected.withValue(SaveFaults.Fault(step: .prepareTemporary, errno: errno)) {
        #expect(throws: DocbmError.self) { try document.replaceDocument(with: Data("x".utf8)) }
      }
      #expect(refused?.recommendation == .saveElsewhere, "\(String(describing: refused))")
    }
    #expect(try contents(documentPath) == "old contents")

    // Resolving keeps the resolve-side recommendations.
    let bookmark = try document.makeBookmark(to: scratch.path("project/cat.png"))
    let gone = BookmarkService(escrow: nil).documents(anchoredOn: scratch.path("gone/board.json"))
    let notFound = #expect(throws: DocbmError.self) { try gone.resolve(bookmark) }
    #expect(notFound?.code == .notFound)
    #expect(notFound?.recommendation == .pickAgain)
  }
}
