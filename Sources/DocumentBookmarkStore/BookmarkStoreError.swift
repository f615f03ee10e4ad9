public import DocumentBookmarks

/// Why a store operation failed. Values carry facts (codes, keys, paths) for the app to
/// act on; ``description`` is one line for logs.
///
/// New cases may be added in later versions: a `switch` over them needs a `default`.
public enum BookmarkStoreError<Key: Hashable & Sendable>: Error, Hashable, Sendable, CustomStringConvertible,
  DocbmErrorCarrying
{
  /// A docbm call failed: making or resolving a bookmark, or saving the store file. The
  /// error's code and recommendation say what to do.
  case docbm(DocbmError)
  /// The target is already held by the record with this key (``StorePolicy/Duplicates/reject``).
  case duplicate(of: Key)
  /// No record has this key (it was never added, or was forgotten, here or by another process).
  case notFound(Key)
  /// The store file was written by a newer version of docbm (its `schemaVersion`); it is
  /// neither read nor ever overwritten by this version.
  case newerVersion(schemaVersion: Int, path: FilePath)
  /// The file at the store's path is not a store file (another program's file, a folder, a
  /// FIFO, or larger than a store can be); it is left as it is.
  case notAStore(path: FilePath, reason: String)
  /// The store file (or its last good copy) belongs to another user, or others than its
  /// owner may write it: what it holds could have been put there by someone else, so it is
  /// neither read nor written. Also a store in a folder other users may add files to
  /// (sticky or not), where a rollback journal one of them put beside it would be applied
  /// to it, or under a folder they could change; and a damaged store file whose last good
  /// copy is not restored because another user could change the store's folder (the path
  /// is then the copy's). (A lock file of another user stops the store being made or
  /// migrated with `permissionDenied`, and one that is not a regular file, such as a FIFO,
  /// with `unsupportedFileType`, each naming the lock file.)
  case untrusted(path: FilePath, reason: String)
  /// The store file cannot be decoded and no last good copy could restore it; it is left as
  /// it is for inspection.
  case corrupt(path: FilePath, reason: String)
  /// The store file lost its key (another program saved it without the key) while its
  /// records hold bookmarks, and the key cannot be put back, for `reason` (no escrow was
  /// given, the escrow has no copy of the key, or repair refuses the file): the records'
  /// bookmarks cannot be verified. Nothing was changed. ``BookmarkStore/reanchor()``
  /// bookmarks each record again at its last known path under a new key.
  case keyLost(path: FilePath, reason: String)
  /// A validator of the store's policy (``StoreValidator``, named by `validator`) refused
  /// the target at `path`, for `reason`; nothing was added or written.
  case refused(validator: String, path: FilePath, reason: String)

  public var description: String {
    switch self {
    case .docbm(let error): error.description
    case .duplicate(let key): "the target is already in the store, under the key \(key)"
    case .notFound(let key): "the store has no record with the key \(key)"
    case .newerVersion(let version, let path):
      "\(path) is a store file of a newer docbm (schema version \(version)); it is left unchanged"
    case .notAStore(let path, let reason):
      "\(path) is not a docbm store file (\(reason)); it is left unchanged"
    case .untrusted(let path, let reason):
      "\(path) is not trusted (\(reason)); it is left unchanged"
    case .corrupt(let path, let reason):
      "\(path) cannot be read (\(reason)) and no last good copy restores it; it is left unchanged"
    case .keyLost(let path, let reason):
      "\(path) lost its key (another program saved it without the key), so its records' bookmarks cannot be verified, and the key cannot be put back: \(reason)"
    case .refused(let validator, let path, let reason):
      "\(path) was not added: the store's \(validator) check refuses it, since \(reason)"
    }
  }

  /// The docbm error code, when the failure came from a docbm call.
  public var code: DocbmError.Code? { docbmError?.code }

  /// The docbm error, when the failure came from a docbm call (``docbm(_:)``): what makes
  /// `catch DocbmError.code(.missing)` catch a store's missing target too.
  public var docbmError: DocbmError? {
    if case .docbm(let error) = self { error } else { nil }
  }
}
