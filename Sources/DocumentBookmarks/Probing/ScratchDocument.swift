import DocbmSystem
import FoundationEssentials

/// A scratch document set up to show what a save breaks: it has a key, a bookmark inside its
/// contents pointing at a sibling file, two other user attributes and mode 0640, and,
/// when asked, a second hard link and a symbolic link through which it is saved.
///
/// By default it is an ordinary document: one name. Some programs save a hard-linked file
/// in place and replace an ordinary one (Vim, GLib's `g_file_replace_contents`), so a
/// second name would show a save that users' documents do not get.
///
/// The `docbm probe` command and the testing product's lint both run saves against it, and
/// ``SaveProbe`` compares what is there afterwards with what was there before.
public struct ScratchDocument: Sendable {
  /// What to prepare.
  public struct Options: Hashable, Sendable {
    /// Give the document a second name (a hard link) so that a save that splits links
    /// shows. Off by default: see ``ScratchDocument`` for why.
    public var hardLink: Bool
    /// Hand the save a symbolic link to the document instead of the document itself.
    public var throughSymbolicLink: Bool

    public init(hardLink: Bool = false, throughSymbolicLink: Bool = false) {
      self.hardLink = hardLink
      self.throughSymbolicLink = throughSymbolicLink
    }
  }

  /// The names of the two other user attributes the document carries.
  public static let otherAttributes = ["user.docbm-probe.color", "user.docbm-probe.note"]
  /// The document's mode.
  public static let mode: UInt32 = 0o640

  /// The scratch folder, a hidden folder in ``location``; ``remove()`` deletes it.
  public let folder: FilePath
  /// The folder the scratch folder was made in (its real path).
  public let location: FilePath
  /// Whether ``location`` is under `/tmp`, `/var/tmp` or `$TMPDIR`. Editors save files
  /// there differently from a user's folders (Vim's `backupskip`, Emacs's
  /// `temporary-file-directory`: no backup, written in place), so what a save does there
  /// is not what it does to a user's document.
  public let isInTemporaryFolder: Bool
  /// The document itself.
  public let document: FilePath
  /// The path a save is given: the document, or the symbolic link to it.
  public let savePath: FilePath
  /// The file the bookmark points at.
  public let sibling: FilePath
  /// The document's second name, when there is one.
  public let hardLink: FilePath?
  /// The symbolic link to the document, when there is one.
  public let symbolicLink: FilePath?
  /// The bookmark stored in the document's contents.
  public let bookmark: Bookmark
  /// The document's contents before the save.
  public let contents: [UInt8]
  let before: Snapshot

  /// What the document looked like before the save.
  struct Snapshot: Sendable {
    let status: FileStatus
    let fingerprint: KeyFingerprint
    let attributes: [String: [UInt8]]
    let entries: Set<[UInt8]>
  }

  /// Makes a scratch document in a new hidden folder (`.docbm-probe-XXXXXX`) in `base`,
  /// by default the current folder.
  ///
  /// The default is where a user's documents are, not `/tmp`: editors save files under
  /// `/tmp` and `$TMPDIR` differently (see ``isInTemporaryFolder``), so a scratch document
  /// there would show a save that users never get.
  ///
  /// - Throws: ``DocbmError`` when the folder cannot hold what is needed (it does not
  ///   exist, is not writable, or is on a filesystem without user extended attributes).
  public static func make(options: Options = Options(), in base: FilePath? = nil) throws(DocbmError)
    -> ScratchDocument
  {
    let folder = try makeTemporaryFolder(in: base ?? FilePath("."))
    do {
      return try prepare(in: folder, options: options)
    } catch {
      try? FileDescriptor.currentWorkingDirectory.removeTree(folder)  // clean-up; the error below stands
      throw error
    }
  }

  private static func prepare(in folder: FilePath, options: Options) throws(DocbmError) -> ScratchDocument {
    let document = folder.appending("document.json")
    let sibling = folder.appending("sibling.txt")
    try write(Array("the file the bookmark points at\n".utf8), to: sibling)
    try write(Array("{}\n".utf8), to: document)
    let anchored = BookmarkService(escrow: nil).documents(anchoredOn: document)
    let bookmark = try anchored.makeBookmark(to: sibling)
    let contents = Array("{\"sibling\": \"\(bookmark.text)\"}\n".utf8)
    try write(contents, to: document)
    try mappingSystemErrors(.writeKey, path: document) { () throws(SystemCallError) in
      for (index, name) in otherAttributes.enumerated() {
        try ExtendedAttributes.set(
          name, to: Array("value \(index)".utf8), on: .path(document, followSymlinks: false))
      }
      let fd = try FileDescriptor.open(document, .readOnly)
      try fd.closeAfter { fd throws(SystemCallError) in try fd.changeMode(mode) }
    }
    var hardLink: FilePath?
    if options.hardLink {
      let second = folder.appending("document-second-name.json")
      try preparing(second) { () throws(SystemCallError) in
        try SymbolicLink.makeHardLink(at: second, to: document)
      }
      hardLink = second
    }
    var symbolicLink: FilePath?
    if options.throughSymbolicLink {
      let alias = folder.appending("document-alias.json")
      try preparing(alias) { () throws(SystemCallError) in
        try SymbolicLink.create(at: alias, pointingTo: "document.json")
      }
      symbolicLink = alias
    }
    let location = folder.removingLastComponent
    let scratch = ScratchDocument(
      folder: folder, location: location, isInTemporaryFolder: isTemporaryFolder(location),
      document: document, savePath: symbolicLink ?? document, sibling: sibling,
      hardLink: hardLink, symbolicLink: symbolicLink, bookmark: bookmark, contents: contents,
      before: try snapshot(document: document, folder: folder, fingerprint: bookmark.keyFingerprint))
    return scratch
  }

  /// Deletes the scratch folder and everything in it, including what the program under
  /// test made hard to delete: folders it left without permissions, and files it made
  /// immutable or append-only (clearing those flags needs root).
  ///
  /// - Returns: the paths that could not be removed (empty when the folder is gone); a
  ///   caller says so, since the scratch document carries a key.
  @discardableResult
  public func remove() -> [FilePath] {
    FileDescriptor.currentWorkingDirectory.removeTreeForcibly(folder)
  }

  static func snapshot(document: FilePath, folder: FilePath, fingerprint: KeyFingerprint) throws(DocbmError)
    -> Snapshot
  {
    try mappingSystemErrors(.inspectTarget, path: document) { () throws(SystemCallError) in
      var attributes: [String: [UInt8]] = [:]
      for name in otherAttributes {
        attributes[name] = try ExtendedAttributes.value(name, of: .path(document, followSymlinks: false))
      }
      let fd = try FileDescriptor.open(folder, [.directory])
      defer { fd.close() }
      return Snapshot(
        status: try FileStatus.of(document, followSymlinks: false), fingerprint: fingerprint,
        attributes: attributes, entries: Set(try DirectoryStream.entries(of: fd).map(\.name)))
    }
  }

  /// Whether `folder` (a real path) is `/tmp`, `/var/tmp` or `$TMPDIR`, or inside one.
  public static func isTemporaryFolder(_ folder: FilePath) -> Bool {
    let candidates = ["/tmp", "/var/tmp"] + [ProcessEnvironment.value("TMPDIR")].compactMap { $0 }
    return candidates.contains { candidate in
      guard !candidate.isEmpty else { return false }
      // A candidate that cannot be resolved (not there) is compared as written.
      let real =
        (try? TargetSnapshot.canonicalPath(FilePath(candidate))) ?? FilePath(candidate).lexicallyNormalized
      return folder == real || folder.isBelow(real)
    }
  }

  /// The prefix of every scratch folder's name.
  public static let folderPrefix = ".docbm-probe-"

  private static func makeTemporaryFolder(in base: FilePath) throws(DocbmError) -> FilePath {
    let made = try preparing(base) { () throws(SystemCallError) in
      try TemporaryFolder.make(prefix: folderPrefix, in: base)
    }
    return try TargetSnapshot.canonicalPath(made.path)
  }

  private static func write(_ bytes: [UInt8], to path: FilePath) throws(DocbmError) {
    try mappingSystemErrors(.save(.write), path: path) { () throws(SystemCallError) in
      let fd = try FileDescriptor.open(path, [.writeOnly, .create, .truncate], permissions: 0o644)
      defer { fd.close() }
      try fd.writeAll(bytes)
    }
  }

  /// Runs `body`, a step of making the scratch document at `path`, its failure a
  /// ``DocbmError`` of preparing a save.
  private static func preparing<Value>(_ path: FilePath, _ body: () throws(SystemCallError) -> Value)
    throws(DocbmError) -> Value
  {
    try mappingSystemErrors(.save(.prepareTemporary), path: path, body)
  }
}
