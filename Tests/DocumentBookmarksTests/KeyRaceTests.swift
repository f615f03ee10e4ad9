import DocbmTestSupport
import Foundation
import Glibc
import Synchronization
import Testing

@testable import DocumentBookmarks

/// A safe save racing the first bookmark of a document: the key the bookmark was signed
/// with must be the document's key afterwards, and the one escrowed.
@Suite("A save racing the first bookmark")
struct KeyRaceTests {
  /// Runs `first` and `second` on two threads released at the same moment.
  private func race(_ first: @escaping @Sendable () -> Void, _ second: @escaping @Sendable () -> Void) {
    let start = DispatchSemaphore(value: 0)
    let done = DispatchGroup()
    for body in [first, second] {
      done.enter()
      Thread.detachNewThread {
        start.wait()
        body()
        done.leave()
      }
    }
    start.signal()
    start.signal()
    done.wait()
  }

  @Test("1,000 rounds in one process: no bookmark is signed with a key the document loses")
  func libraryRounds() throws {
    let (scratch, escrow, service) = try EscrowScratch.make()
    let target = try scratch.file("target.png")
    let contents = Data(repeating: UInt8(ascii: "x"), count: 256 << 10)
    var lost = 0
    var escrowMismatches = 0
    for round in 0..<1000 {
      let path = try scratch.file("doc\(round).json", "{}")
      let document = service.documents(anchoredOn: path)
      let made = Mutex<Result<Bookmark, DocbmError>?>(nil)
      // The save's own outcome is not what the test judges: the bookmark's is.
      race(
        { _ = try? BookmarkService(escrow: nil).documents(anchoredOn: path).replaceDocument(with: contents) },
        { made.withLock { $0 = Result { () throws(DocbmError) in try document.makeBookmark(to: target) } } })
      let bookmark = try #require(made.withLock { $0 }).get()
      do {
        _ = try document.resolve(bookmark)
      } catch {
        lost += 1
      }
      let entry = escrow.entry(for: bookmark.keyFingerprint)
      if entry?.documents.contains(where: { $0.path == path }) != true { escrowMismatches += 1 }
      try scratch.remove(path)
    }
    #expect(lost == 0, "\(lost) of 1000 bookmarks were signed with a key the document lost")
    #expect(escrowMismatches == 0, "\(escrowMismatches) signing keys were not escrowed with their document")
  }
}
