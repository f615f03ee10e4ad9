import DocumentBookmarks

/// `docbm decode BOOKMARK`: the recorded fields, unverified.
struct DecodeCommand {
  let bookmark: [UInt8]
  let json: Bool

  private struct Report: Encodable {
    let schemaVersion = JSONReport.schemaVersion
    let verified = false
    let size: Int
    let contents: BookmarkContents
  }

  func run(_ console: Console) throws -> Int32 {
    let bookmark = try Bookmark.operand(self.bookmark, console: console)
    let contents = try bookmark.decodeUnverified()
    if json {
      console.print(JSONReport.render(Report(size: bookmark.bytes.count, contents: contents)))
      return DocbmCommandLine.ExitStatus.success
    }
    let identity = contents.identity
    var lines = [
      "UNVERIFIED: these fields have not been checked against any document's key.",
      "version:           \(contents.version)",
      "size:              \(bookmark.bytes.count) bytes",
      "key fingerprint:   \(contents.keyFingerprint)",
      "kind:              \(contents.kind.rawValue)",
      "relative path:     \(contents.relativePath)",
      "absolute path:     \(contents.absolutePath)",
      "created:           \(contents.createdAt)",
      "inode:             \(identity.inode)",
      "size when made:    \(identity.size)",
      "modified:          \(identity.modificationTime)",
    ]
    if let handle = identity.fileHandle {
      let hex = handle.bytes.map { String($0, radix: 16).leftPadded(2) }.joined()
      lines.append("file handle:       type \(handle.type), \(hex)")
    }
    if let generation = identity.generation { lines.append("generation:        \(generation)") }
    if let birth = identity.birthTime { lines.append("born:              \(birth)") }
    if let fsid = contents.volume.filesystemID {
      lines.append("filesystem id:     \(String(fsid, radix: 16).leftPadded(16))")
    }
    if let mount = contents.volume.mountPoint { lines.append("mount point:       \(mount)") }
    if let document = contents.documentPath { lines.append("document:          \(document)") }
    if let document = contents.documentIdentity {
      lines.append("document inode:    \(document.inode)")
      if let birth = document.birthTime { lines.append("document born:     \(birth)") }
    }
    lines.forEach { console.print($0) }
    return DocbmCommandLine.ExitStatus.success
  }
}

extension String {
  func leftPadded(_ width: Int) -> String {
    String(repeating: "0", count: max(0, width - count)) + self
  }
}
