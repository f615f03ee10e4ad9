import DocumentBookmarks

/// A `docbm_adoption`: a document's ``AdoptionCandidate``s, with their strings in C form,
/// kept whole for ``AnchoredDocument/adopt(_:)``.
final class AdoptionHandle: CHandle {
  /// One candidate and its strings.
  struct Candidate {
    let candidate: AdoptionCandidate
    let bookmark: CStringCopy
    let key: CStringCopy
    let recordedPath: CStringCopy
    let recordedDocument: CStringCopy?
    let target: CStringCopy?
  }

  let candidates: [Candidate]

  init(_ candidates: [AdoptionCandidate]) {
    self.candidates = candidates.map { candidate in
      Candidate(
        candidate: candidate, bookmark: CStringCopy(candidate.found.bookmark.text),
        key: CStringCopy(candidate.keyFingerprint.description),
        recordedPath: CStringCopy(candidate.recordedRelativePath.bytes),
        recordedDocument: candidate.recordedDocument.map { CStringCopy($0.bytes) },
        target: candidate.target.map { CStringCopy($0.bytes) })
    }
  }

  deinit {
    for candidate in candidates {
      candidate.bookmark.release()
      candidate.key.release()
      candidate.recordedPath.release()
      candidate.recordedDocument?.release()
      candidate.target?.release()
    }
  }
}
