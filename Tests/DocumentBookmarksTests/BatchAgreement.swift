import Testing

@testable import DocumentBookmarks

extension AnchoredDocument {
  /// ``resolve(_:)-(Bookmark)``, after checking that a batch gives the same answer: the
  /// bookmark twice in one batch (the second from a search area the first has listed)
  /// must resolve as it does alone. Returns or throws what the single resolve does.
  func resolveAgreeing(
    _ bookmark: Bookmark, sourceLocation: SourceLocation = #_sourceLocation
  ) throws(DocbmError) -> Resolution {
    let single = Result { () throws(DocbmError) in try resolve(bookmark) }
    for (index, batched) in resolve([bookmark, bookmark]).enumerated() {
      #expect(
        Agreement(single) == Agreement(batched),
        "batch entry \(index) disagrees with the single resolve", sourceLocation: sourceLocation)
    }
    return try single.get()
  }
}

/// What a batch and a single resolve must agree on: everything but the refreshed
/// bookmark's bytes (made at another instant); for a failure, its code and message.
struct Agreement: Equatable, CustomStringConvertible {
  let path: FilePath?
  let kind: TargetKind?
  let staleReasons: [StaleReason]
  let refreshed: Bool
  let refreshedPath: FilePath?
  let candidates: [FilePath]
  let error: String?

  init(_ result: Result<Resolution, DocbmError>) {
    switch result {
    case .success(let resolution):
      path = resolution.path
      kind = resolution.kind
      staleReasons = resolution.staleReasons
      refreshed = resolution.refreshed != nil
      refreshedPath = resolution.refreshed.flatMap { refreshed in
        try? BookmarkRecord.header(of: refreshed.bytes).flatMap {
          BookmarkRecord.decodeFields(refreshed.bytes, header: $0)
        }.get().absolutePath
      }
      candidates = resolution.candidates.map(\.path)
      error = nil
    case .failure(let failure):
      path = nil
      kind = nil
      staleReasons = []
      refreshed = false
      refreshedPath = nil
      candidates = []
      error = "\(failure.code): \(failure.message)"
    }
  }

  var description: String {
    error ?? "\(path?.description ?? "-") \(staleReasons) refreshed to \(refreshedPath?.description ?? "-")"
  }
}
