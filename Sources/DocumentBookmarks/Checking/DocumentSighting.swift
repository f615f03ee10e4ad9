import DocbmSystem

/// A document as a check found it, open: its status and the escrow record repair would
/// make of it (``EscrowEntry/Document/of(_:status:path:real:origin:)``).
///
/// A tree check made for a repairer takes one of each document that lost its key, so that
/// the hint (``DocumentRepairer/prospect(_:)``) applies repair's rule (``EscrowRule``) to the
/// very file the verdict was read from, without opening it again. A repair opens the
/// document itself and decides on what it opened.
struct DocumentSighting: Hashable, Sendable {
  /// The document's status, read from the check's descriptor.
  let status: FileStatus
  /// The record of the document as it was found, at its canonical path.
  let record: EscrowEntry.Document
}
