import DocbmTestSupport

@testable import DocumentBookmarks

/// A scratch folder with an escrow inside it, and a service that escrows every key it makes
/// there: the setting of the checking and escrow suites.
enum EscrowScratch {
  static func make() throws -> (scratch: Scratch, escrow: KeyEscrow, service: BookmarkService) {
    let scratch = try Scratch()
    let escrow = KeyEscrow(folder: scratch.path("state/docbm"))
    return (scratch, escrow, BookmarkService(escrow: escrow))
  }
}
