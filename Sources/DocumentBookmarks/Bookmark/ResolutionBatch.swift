/// What the bookmarks resolved by one call share: the folders its searches list (one
/// ``SearchArea``), what the Documents portal says of the document, and the document's side
/// of refreshed bookmarks, each found out once for the whole call.
///
/// A batch is a snapshot of the call's time: made for one call and dropped after it.
package final class ResolutionBatch {
  let area: SearchArea
  /// What ``PortalDocument/of(_:)`` says of the document.
  let portal: PortalDocument?
  /// Whether any Documents portal was mounted when the batch was made.
  let portalsMounted: Bool
  /// The canonical paths and mount points of the folders of refreshed targets.
  let folders = SnapshotFolders()
  /// Whether the escrow was told that the document moved.
  var recordedMove = false
  private var origin: AnchoredDocument.SigningOrigin?

  /// A batch for bookmarks of `document`; `portal`, when the caller knows it already, is what
  /// ``PortalDocument/of(_:)`` says of the document; `filesystem`, when given, the walks of
  /// whole filesystems that this batch shares with others of the same call (a check's).
  init(
    for document: AnchoredDocument, portal: PortalDocument?? = nil, filesystem: FilesystemSearch? = nil,
    cancellation: SearchCancellation? = nil
  ) {
    area = SearchArea(
      budget: document.searchBudget, filesystem: filesystem, cancellation: cancellation,
      journal: document.moveJournal)
    portalsMounted = !PortalMounts.noneMounted(maximumAge: PortalMounts.hotPathAnswerAge)
    self.portal = portal ?? (portalsMounted ? PortalDocument.of(document.path) : nil)
  }

  /// The document's side of a refreshed bookmark, found out on first use.
  func signingOrigin(of document: AnchoredDocument, documentHostPath: FilePath?)
    -> AnchoredDocument.SigningOrigin
  {
    if let origin { return origin }
    let made = document.signingOrigin(documentHostPath: documentHostPath)
    origin = made
    return made
  }
}
