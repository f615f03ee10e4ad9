import DocumentBookmarks

/// A `docbm_new_document`: a ``NewDocument``, whose key is made when the handle is made.
final class NewDocumentHandle: CHandle {
  let draft: NewDocument

  init(path: FilePath, escrow: KeyEscrow?) {
    draft = BookmarkService(escrow: escrow).newDocument(at: path)
  }
}
