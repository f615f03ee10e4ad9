import DocbmTestSupport
import DocumentBookmarks
import DocumentWatching
import Foundation
import Glibc
import Synchronization
import Testing

/// Collects a watcher's events as its callback delivers them, and waits for the one a test
/// expects (woken by each event, never by a timer), up to a time limit.
final class WatchRecorder: Sendable {
  let watcher: DocumentWatcher
  private let seen = Mutex<[DocumentEvent]>([])
  private let arrived = DispatchSemaphore(value: 0)

  init(_ watcher: DocumentWatcher) {
    self.watcher = watcher
  }

  /// Starts the watcher; `before` runs on the watcher's thread ahead of recording each event
  /// (a slow consumer, for the overflow test).
  func start(before: @escaping @Sendable (DocumentEvent) -> Void = { _ in }) throws {
    try watcher.start { [self] event in
      before(event)
      seen.withLock { $0.append(event) }
      arrived.signal()
    }
  }

  var events: [DocumentEvent] { seen.withLock { $0 } }

  /// The first event so far, or arriving within `seconds`, that matches `matches`.
  func first(
    within seconds: Double = 30, where matches: (DocumentEvent) -> Bool
  ) -> DocumentEvent? {
    let end = Date().addingTimeInterval(seconds)
    while true {
      if let found = events.first(where: matches) { return found }
      let left = end.timeIntervalSinceNow
      guard left > 0, arrived.wait(timeout: .now() + left) == .success else {
        return events.first(where: matches)
      }
    }
  }

  /// The first event of `kind` about `path` (its new path, or its old one when it has none).
  func first(_ kind: DocumentEvent.Kind, _ path: FilePath, within seconds: Double = 30) -> DocumentEvent? {
    first(within: seconds) { $0.kind == kind && ($0.path ?? $0.oldPath) == path }
  }

  /// Whether `count` events of `kind` about `path` have arrived, or arrive within `seconds`.
  func awaitCount(
    _ count: Int, _ kind: DocumentEvent.Kind, _ path: FilePath, within seconds: Double = 30
  ) -> Bool {
    let matching = { [self] in events.count { $0.kind == kind && ($0.path ?? $0.oldPath) == path } }
    return first(within: seconds) { _ in matching() >= count } != nil || matching() >= count
  }

  deinit { watcher.stop() }
}

/// A scratch folder with an escrow, and documents carrying keys made by real bookmarks.
struct WatchScratch {
  let scratch: Scratch
  let escrow: KeyEscrow
  let service: BookmarkService

  init(userFolder: Bool = false) throws {
    if userFolder, let scratch = Scratch.inUserFolder() {
      self.scratch = scratch
    } else {
      scratch = try Scratch()
    }
    escrow = KeyEscrow(folder: scratch.path("state/docbm"))
    service = BookmarkService(escrow: escrow)
  }

  /// The watched folder.
  var folder: FilePath { scratch.path("docs") }

  /// A document at `relative` under the watched folder, holding a bookmark (text form) to a
  /// sibling image: it carries a key, escrowed and recorded at its path.
  @discardableResult
  func document(_ relative: String) throws -> (
    path: FilePath, bookmark: Bookmark, fingerprint: KeyFingerprint
  ) {
    let image = try scratch.file("images/\(relative).png", "png")
    let path = try scratch.file("docs/\(relative)", "placeholder\n")
    let bookmark = try service.documents(anchoredOn: path).makeBookmark(to: image)
    try scratch.write("{\"image\": \"\(bookmark.text)\"}\n", to: path)
    let fingerprint = try #require(try service.documents(anchoredOn: path).keyFingerprint())
    return (path, bookmark, fingerprint)
  }

  /// The fingerprint of the key the file at `path` carries; `nil` also when it is gone or
  /// cannot be read.
  func key(_ path: FilePath) -> KeyFingerprint? {
    (try? BookmarkService(escrow: nil).documents(anchoredOn: path).keyFingerprint()) ?? nil
  }
}

/// Runs a program and requires it to succeed.
@discardableResult
func outside(_ executable: String, _ arguments: [String]) throws -> ProcessResult {
  let result = run(executable, arguments)
  try #require(result.status == 0, "\(executable) \(arguments) failed: \(result.error)")
  return result
}

/// The path of a program, or `nil` (the test then skips, saying so).
func program(_ candidates: String...) -> String? {
  candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
}

/// Makes `count` empty files `f0`, `f1`, … in `folder` (each open and close is an
/// `IN_CREATE` and an `IN_CLOSE_WRITE` for a watch on the folder).
func makeEmptyFiles(_ count: Int, in folder: FilePath) throws {
  for index in 0..<count {
    let fd = folder.appending("f\(index)").withCString { open($0, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644) }
    try #require(fd >= 0, "cannot make a file in \(folder)")
    close(fd)
  }
}
