import DocumentBookmarks

/// `docbm bookmark DOCUMENT TARGET`: make a bookmark and print its text form.
struct BookmarkCommand {
  let document: FilePath
  let target: FilePath
  let json: Bool

  private struct Report: Encodable {
    let schemaVersion = JSONReport.schemaVersion
    let document: FilePath
    let target: FilePath
    let keyFingerprint: KeyFingerprint
    let bookmark: String
    let size: Int
  }

  func run(_ console: Console) throws -> Int32 {
    let anchored = BookmarkService().documents(anchoredOn: document)
    // A document the escrow records, which lost its key, gets that key back, never a new one.
    try anchored.restoreEscrowedKey(.default)
    let (bookmark, key) = try anchored.makeSignedBookmark(to: target)
    // The command line escrows the key it signed with (never the one the path carries
    // afterwards, which a racing save could have changed), so that `docbm repair` can
    // restore it. An escrow that cannot be written does not undo the bookmark: a warning.
    do {
      if try !KeyEscrow.default.deposit(key, document: document) {
        console.printError(
          "warning: the key of \(document) was not escrowed, so it could not be repaired: the document is not a file of yours (the escrow keeps keys of your own documents only)"
        )
      }
    } catch {
      console.printError(
        "warning: the key of \(document) was not escrowed, so it could not be repaired: \(error)")
    }
    if json {
      console.print(
        JSONReport.render(
          Report(
            document: document, target: target, keyFingerprint: bookmark.keyFingerprint,
            bookmark: bookmark.text, size: bookmark.bytes.count)))
    } else {
      console.print(bookmark.text)
    }
    return DocbmCommandLine.ExitStatus.success
  }
}
