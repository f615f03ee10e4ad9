import DocbmSystem

/// The resolve of a bookmark whose target is where it was recorded, from a document that
/// has not moved: the common case, done with the system calls it cannot avoid (the key's
/// `getxattr`, the target's `statx`) and one allocation, the result's path.
///
/// It answers only when the answer is the one ``AnchoredDocument/resolve(_:)-(Bookmark)`` gives
/// through ``TargetLocator``, rule 1: the key read and its fingerprint the bookmark's, the
/// tag verified before any field is read, the relative path from the document's folder
/// naming the absolute path, and the object there the recorded one by kind, inode and
/// birth time (and not a Btrfs handle, which needs one more call). Anything else (no key,
/// another, a tag that fails, a field it cannot read, a moved target or document, a
/// filesystem without birth times, a Documents portal mounted and the document perhaps on
/// it) returns `nil`, and the full resolve starts over, reporting what it finds.
enum UnmovedResolver {
  /// Where the target of `bookmark` on `document` is, and what it is, when nothing moved;
  /// `nil` otherwise. The caller makes the ``Resolution`` where it returns it (the value
  /// is large).
  ///
  /// Whether the document is reached through the Documents portal is asked of
  /// ``PortalMounts`` with an answer up to a millisecond old: a portal mounted within it
  /// changes nothing but ``Resolution/portalDocument`` (nil where the full resolve would
  /// name the export), since the target returned is the recorded object at its recorded
  /// absolute path, through the portal or not.
  static func locate(_ bookmark: Bookmark, on document: AnchoredDocument) -> (
    path: FilePath, kind: TargetKind
  )? {
    guard let key = readKey(of: document.path, fingerprint: bookmark.keyFingerprint) else { return nil }
    guard BookmarkRecord.verify(bookmark.bytes, schedule: key.schedule),
      let found = locateVerified(bookmark.bytes, on: document)
    else { return nil }
    guard
      PortalMounts.noneMounted(maximumAge: PortalMounts.hotPathAnswerAge)
        || PortalDocument.of(document.path) == nil
    else { return nil }
    AnchoredDocumentRecorder.note(document.path, key.key.fingerprint)
    return found
  }

  /// ``locate(_:on:)`` with the document's key already read (the checker reads it once for
  /// all the bookmarks of a document) and what ``PortalDocument/of(_:)`` says of the
  /// document: a document reached through the portal is left to the full resolve.
  /// `folder`, when given, is the document's folder (``AnchoredDocument``'s), open: a
  /// target inside it is looked up from it (the tree check's documents were listed there).
  ///
  /// Returns whether the record was verified under `key` (so that the full resolve, when
  /// something moved, need not verify it again), and the target when nothing moved.
  static func locate(
    _ bookmark: Bookmark, on document: AnchoredDocument, key: DocumentKeyCache.Entry, portal: PortalDocument?,
    folder: FileDescriptor? = nil
  ) -> (verified: Bool, found: (path: FilePath, kind: TargetKind)?) {
    guard portal == nil, bookmark.keyFingerprint == key.key.fingerprint,
      BookmarkRecord.verify(bookmark.bytes, schedule: key.schedule)
    else { return (false, nil) }
    guard let found = locateVerified(bookmark.bytes, on: document, folder: folder) else { return (true, nil) }
    AnchoredDocumentRecorder.note(document.path, key.key.fingerprint)
    return (true, found)
  }

  /// The target of a verified record when its paths and identity say nothing moved.
  @inline(__always) private static func locateVerified(
    _ bytes: [UInt8], on document: AnchoredDocument, folder: FileDescriptor? = nil
  ) -> (path: FilePath, kind: TargetKind)? {
    // `nil` leaves the bookmark to the full resolve, which reports what is wrong.
    guard let fields = try? BookmarkFields.parse(bytes) else { return nil }
    guard fields.inode != 0, let birthTime = fields.birthTime,
      fields.fileHandleType.map({ !KernelFileHandle.namesSubvolume(type: $0) }) ?? true,
      document.folder.joined(bytes[fields.relativePath], normalizesTo: bytes[fields.absolutePath])
    else { return nil }
    // A target inside the folder that is open: looked up from it, by the rest of its path
    // (for one beside the document, one name instead of every folder from the root).
    var lookup = (base: FileDescriptor.currentWorkingDirectory, range: fields.absolutePath)
    if let folder,
      let rest = bytes.withUnsafeBytes({ record in
        document.folder.bytes.withUnsafeBytes { folder in
          FilePath.restStart(of: UnsafeRawBufferPointer(rebasing: record[fields.absolutePath]), below: folder)
        }
      })
    {
      lookup = (folder, (fields.absolutePath.lowerBound + rest)..<fields.absolutePath.upperBound)
    }
    guard isRecordedObject(at: lookup.range, from: lookup.base, of: bytes, fields, birthTime: birthTime)
    else {
      return nil
    }
    return (FilePath(uncheckedBytes: Array(bytes[fields.absolutePath])), fields.kind)
  }

  /// The key of the document at `path` when its attribute holds a key whose fingerprint is
  /// `fingerprint`: one `getxattr` into a stack buffer, the name a static C string.
  @inline(__always) private static func readKey(of path: FilePath, fingerprint: KeyFingerprint)
    -> DocumentKeyCache.Entry?
  {
    withUnsafeTemporaryAllocation(byteCount: KeyAttribute.valueLength + 1, alignment: 8) { buffer in
      guard
        case .value(let length) = ExtendedAttributes.readSmallValue(
          named: KeyAttribute.cName, of: .path(path, followSymlinks: true), into: buffer)
      else { return nil }
      let value = UnsafeRawBufferPointer(rebasing: buffer[..<length])
      guard KeyAttribute.storedFingerprint(of: value) == fingerprint else { return nil }
      return DocumentKeyCache.entry(forValue: value)
    }
  }

  /// Whether the object at the absolute path in `bytes[range]` (not following a final
  /// link) is the recorded one: kind, inode and birth time; one `statx`, with the path's C
  /// string made on the stack from the record.
  @inline(__always) private static func isRecordedObject(
    at range: Range<Int>, from base: FileDescriptor, of bytes: [UInt8], _ fields: BookmarkFields,
    birthTime: Timestamp
  ) -> Bool {
    bytes.withUnsafeBytes { record in
      withUnsafeTemporaryAllocation(of: CChar.self, capacity: range.count + 1) { cPath in
        UnsafeMutableRawBufferPointer(cPath).copyMemory(from: UnsafeRawBufferPointer(rebasing: record[range]))
        cPath[range.count] = 0
        // Not there, or not looked at: the full resolve looks again, and reports.
        guard
          let status = try? FileStatus.of(name: cPath.baseAddress!, relativeTo: base, followSymlinks: false),
          status.inode == fields.inode, status.birthTime == birthTime
        else { return false }
        switch (fields.kind, status.kind) {
        case (.file, .regular), (.folder, .directory): return true
        default: return false
        }
      }
    }
  }
}
