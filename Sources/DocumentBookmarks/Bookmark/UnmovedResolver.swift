import Glibc

/// The resolve of a bookmark whose target is where it was recorded, from a document that
/// has not moved: the common case, done with the system calls it cannot avoid (the key's
/// `getxattr`, the target's `statx`) and one allocation, the result's path.
///
/// It answers only when the answer is the one ``AnchoredDocument/resolve(_:)`` gives
/// through ``TargetLocator``, rule 1: the key read and its fingerprint the bookmark's, the
/// tag verified before any field is read, the relative path from the document's folder
/// naming the absolute path, and the object there the recorded one by kind, inode and
/// birth time (and not a Btrfs handle, which needs one more call). Anything else (no key,
/// another, a tag that fails, a field it cannot read, a moved target or document, a
/// filesystem without birth times, a Documents portal mounted and the document perhaps on
/// it) returns `nil`, and the full resolve starts over, reporting what it finds.
enum UnmovedResolver {
  /// Where the target of `bookmark` on `document` is, and what it is, when nothing moved;
  /// `nil` otherwise. (The caller makes the ``Resolution`` where it returns it: the value is
  /// large, and making it here cost a copy.)
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
    let bytes = bookmark.bytes
    let split = bytes.count - BookmarkRecord.tagLength
    let verifies = key.schedule.withTag(BookmarkRecord.macContext[...], bytes[..<split]) { tag in
      BookmarkRecord.tagMatches(tag, bytes)
    }
    guard verifies, let found = locateVerified(bytes, on: document) else { return nil }
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
  static func locate(
    _ bookmark: Bookmark, on document: AnchoredDocument, key: DocumentKey, portal: PortalDocument?
  ) -> (path: FilePath, kind: TargetKind)? {
    guard portal == nil, bookmark.keyFingerprint == key.fingerprint,
      BookmarkRecord.verify(bookmark.bytes, key: key),
      let found = locateVerified(bookmark.bytes, on: document)
    else { return nil }
    AnchoredDocumentRecorder.note(document.path, key.fingerprint)
    return found
  }

  /// The target of a verified record when its paths and identity say nothing moved.
  private static func locateVerified(
    _ bytes: [UInt8], on document: AnchoredDocument
  ) -> (path: FilePath, kind: TargetKind)? {
    guard case .success(let fields) = BookmarkFields.parse(bytes) else { return nil }
    guard fields.inode != 0, let birthTime = fields.birthTime,
      fields.fileHandleType.map({ !KernelFileHandle.namesSubvolume(type: $0) }) ?? true,
      document.folder.joined(bytes[fields.relativePath], normalizesTo: bytes[fields.absolutePath])
    else { return nil }
    let absolute = FilePath(uncheckedBytes: Array(bytes[fields.absolutePath]))
    guard isRecordedObject(at: absolute, fields, birthTime: birthTime) else { return nil }
    return (absolute, fields.kind)
  }

  /// The key of the document at `path` when its attribute holds a key whose fingerprint is
  /// `fingerprint`: one `getxattr` into a stack buffer.
  private static func readKey(of path: FilePath, fingerprint: KeyFingerprint) -> DocumentKeyCache.Entry? {
    let entry = ExtendedAttributes.withSmallValue(
      named: KeyAttribute.cName, of: .path(path, followSymlinks: true), capacity: KeyAttribute.valueLength + 1
    ) { value -> DocumentKeyCache.Entry? in
      guard let value, value.count == KeyAttribute.valueLength else { return nil }
      let stored = value.baseAddress! + (KeyAttribute.valueLength - KeyFingerprint.byteCount)
      guard fingerprint.withUnsafeBytes({ memcmp(stored, $0.baseAddress!, KeyFingerprint.byteCount) }) == 0
      else { return nil }
      return DocumentKeyCache.entry(forValue: value)
    }
    return entry ?? nil
  }

  /// Whether the object at `absolute` (not following a final link) is the recorded one:
  /// kind, inode and birth time; one `statx`.
  private static func isRecordedObject(at absolute: FilePath, _ fields: BookmarkFields, birthTime: Timestamp)
    -> Bool
  {
    guard let status = try? FileStatus.of(absolute, followSymlinks: false),
      status.inode == fields.inode, status.birthTime == birthTime
    else { return false }
    switch (fields.kind, status.kind) {
    case (.file, .regular), (.folder, .directory): return true
    default: return false
    }
  }
}
