import DocbmSystem
import DocumentBookmarks
import FoundationEssentials

/// New bookmarks put in the place of old ones in a document's bytes, as `adopt` and
/// `relink` save them: a text form is replaced where it was found; a binary or base64 form
/// is not (the bytes around it may count its length), so its new text form is printed
/// for the user to put there.
enum TextFormRewrite {
  /// The document's bytes, read again, with each found text form whose replacement is
  /// given in its place, and for each pair whether it was rewritten.
  static func rewrite(_ document: FilePath, replacing pairs: [(FoundBookmark, Bookmark?)]) throws -> (
    [UInt8], [Bool]
  ) {
    var bytes = try readWholeDocument(document)
    var rewritten = [Bool](repeating: false, count: pairs.count)
    // From the end, so that earlier offsets stay where they were.
    let order = pairs.indices.sorted { pairs[$0].0.offset > pairs[$1].0.offset }
    for index in order {
      let (found, replacement) = pairs[index]
      guard let new = replacement, found.form == .text else { continue }
      let old = Array(found.bookmark.text.utf8)
      let start = Int(found.offset)
      guard start + old.count <= bytes.count, bytes[start..<(start + old.count)].elementsEqual(old) else {
        continue
      }
      bytes.replaceSubrange(start..<(start + old.count), with: Array(new.text.utf8))
      rewritten[index] = true
    }
    return (bytes, rewritten)
  }

  /// The document's bytes, read again to be rewritten (as much as a save writes). Opened
  /// without blocking and read only when it is still a regular file: what was scanned may
  /// have been replaced meanwhile (a FIFO would block the read for good).
  private static func readWholeDocument(_ document: FilePath) throws -> [UInt8] {
    let read = Result { () throws(SystemCallError) -> (FileStatus, [UInt8]?) in
      let fd = try FileDescriptor.open(document, [.readOnly, .nonBlocking])
      return try fd.closeAfter { fd throws(SystemCallError) in
        let status = try FileStatus.of(fd)
        return (status, status.kind == .regular ? try fd.readWhole(limit: Int.max) : nil)
      }
    }
    switch read {
    case .failure(let error): throw DocbmError(error, operation: .openDocument, path: document)
    case .success((_, let bytes?)): return bytes
    case .success((let status, nil)):
      throw DocbmError(
        .unsupportedFileType, path: document,
        message:
          "\(document) is now a \(status.kindDescription), not the document that was read; nothing was saved")
    }
  }
}
