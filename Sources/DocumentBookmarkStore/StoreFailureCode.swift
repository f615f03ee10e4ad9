package import DocumentBookmarks

/// The names of a store's own failures (``BookmarkStoreError``'s cases other than a docbm
/// call's failure), as `docbm store --json` and libdocbm report them: the case's name, with
/// `store` first where the bare name would read as a document's failure (`untrusted`,
/// `corrupt`, …), and `noSuchKey` for `notFound`, which names a missing file.
package enum StoreFailureCode: String, CaseIterable, Sendable {
  case noSuchKey
  case storeNewerVersion
  case notAStore
  case storeUntrusted
  case storeCorrupt
  case storeKeyLost
}

extension BookmarkStoreError {
  /// The store's own failure code, with the file it names; `nil` for a docbm call's failure
  /// (its own code says what failed) and for the failures only an app's policy makes
  /// (`duplicate`, `refused`).
  package var storeFailure: (code: StoreFailureCode, path: FilePath?)? {
    switch self {
    case .notFound: (.noSuchKey, nil)
    case .newerVersion(_, let path): (.storeNewerVersion, path)
    case .notAStore(let path, _): (.notAStore, path)
    case .untrusted(let path, _): (.storeUntrusted, path)
    case .corrupt(let path, _): (.storeCorrupt, path)
    case .keyLost(let path, _): (.storeKeyLost, path)
    case .docbm, .duplicate, .refused: nil
    }
  }
}
