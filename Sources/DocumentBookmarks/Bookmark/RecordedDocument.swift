import DocbmSystem

/// The document a bookmark was made in, as the file it was then
/// (``BookmarkContents/documentIdentity``): what tells that very file from a copy of it, such
/// as a restored backup beside the renamed original.
///
/// A save that writes the document anew (``AnchoredDocument/replaceDocument(options:_:)``, an
/// editor's save) makes it another file too, so a document that does not match is a copy
/// or a later version: evidence, never a verdict on its own.
public struct RecordedDocument: Hashable, Sendable, Codable {
  /// The document's inode number. Numbers are reused, so it counts only with ``birthTime``.
  public let inode: UInt64
  /// The document's birth time (statx `stx_btime`), where the filesystem keeps one.
  public let birthTime: Timestamp?

  /// Records a document's inode number and birth time.
  public init(inode: UInt64, birthTime: Timestamp?) {
    self.inode = inode
    self.birthTime = birthTime
  }

  /// The identity of the document whose status is `status`.
  init(_ status: FileStatus) {
    self.init(inode: status.inode, birthTime: status.birthTime)
  }

  /// Whether `status` is this very file: the same inode number and birth time. `nil` when
  /// a birth time is missing on either side, since an inode number alone is reused.
  func isSameFile(_ status: FileStatus) -> Bool? {
    guard let birthTime, let other = status.birthTime else { return nil }
    return status.inode == inode && other == birthTime
  }
}
