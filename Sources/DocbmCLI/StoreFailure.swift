import DocumentBookmarkStore
import DocumentBookmarks

/// A store failure that is not a docbm error (a newer version, not a store, damaged, …):
/// its code as libdocbm names it, the file it names, and what is wrong.
struct StoreFailure: Error, CustomStringConvertible {
  let code: StoreFailureCode
  let path: FilePath?
  let message: String

  var description: String { "\(code.rawValue): \(message)" }

  /// A store's error as the command line reports it: a docbm error as itself (so that its
  /// hint and exit status follow), the store's own as a `StoreFailure`.
  static func reported(_ error: BookmarkStoreError<JSONValue>) -> any Error {
    if case .docbm(let failure) = error { return failure }
    guard let (code, path) = error.storeFailure else {
      // The command line's stores return the existing record for a duplicate and have no
      // validators, so neither failure reaches it.
      return DocbmError(.systemFailure, message: error.description)
    }
    return StoreFailure(code: code, path: path, message: error.keyedDescription)
  }
}
