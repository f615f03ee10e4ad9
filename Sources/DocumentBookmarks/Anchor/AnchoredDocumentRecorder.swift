import Synchronization

/// Records the documents that bookmarks were made on or resolved against, with their key's
/// fingerprint, while a recorder is installed on the current task. The testing product's
/// `.keepsDocumentKeys` trait uses it to check, after a test, that every such document
/// still carries its key.
package final class AnchoredDocumentRecorder: Sendable {
  private let seen = Mutex<[FilePath: KeyFingerprint]>([:])
  private let onNote: (@Sendable (FilePath, KeyFingerprint) -> Void)?

  /// `onNote` is called (on the caller's thread) each time a document is noted, so that a
  /// watcher can start following it at once.
  package init(onNote: (@Sendable (FilePath, KeyFingerprint) -> Void)? = nil) {
    self.onNote = onNote
    AnchoredDocumentRecorder.anyMade.store(true, ordering: .relaxed)
  }

  /// Whether a recorder was ever made in this process: checked first, so that a process
  /// that records nothing never looks up the task-local on every bookmark and resolve.
  private static let anyMade = Atomic<Bool>(false)

  /// The recorder of the current task, if any.
  @TaskLocal package static var current: AnchoredDocumentRecorder?

  /// Every document seen, with the fingerprint of the key it had then.
  package var documents: [FilePath: KeyFingerprint] {
    seen.withLock { $0 }
  }

  static func note(_ path: FilePath, _ fingerprint: KeyFingerprint) {
    guard anyMade.load(ordering: .relaxed), let recorder = current else { return }
    recorder.seen.withLock { $0[path] = fingerprint }
    recorder.onNote?(path, fingerprint)
  }
}
