import DocumentBookmarks
import FoundationEssentials

/// A store file of docbm 0.1: JSON (``StoreFormat``) with its journal beside it
/// (``StoreJournal``), read once to be migrated to a database, or read as it is where it
/// cannot be (a read-only disk).
struct LegacyStoreFile<Key: Hashable & Sendable & Codable, Metadata: Sendable & Codable & Equatable> {
  typealias Contents = StoreContents<Key, Metadata>
  typealias Failure = BookmarkStoreError<Key>

  let path: FilePath

  /// What the file and its journal hold.
  struct Read {
    var contents: Contents
    let journal: StoreJournal<Key, Metadata>
    /// Whether a whole line of the journal does not decode: it is kept aside, not removed.
    var journalDamaged: Bool
  }

  /// Reads the file and applies its journal.
  ///
  /// - Throws: ``BookmarkStoreError`` `newerVersion`, `notAStore`, `corrupt`, `untrusted`,
  ///   `docbm` (`permissionDenied`, `ioError`, …).
  func read() throws(Failure) -> Read {
    guard let bytes = try Self.readBytes(path) else {
      throw .docbm(DocbmError(.notFound, path: path, message: "there is no store at \(path)"))
    }
    var contents: Contents
    switch StoreFormat<Key, Metadata>.decode(bytes) {
    case .success(let decoded): contents = decoded
    case .failure(.corrupt(let reason)): throw .corrupt(path: path, reason: reason)
    case .failure(.notAStore(let reason)): throw .notAStore(path: path, reason: reason)
    case .failure(.newerVersion(let version)): throw .newerVersion(schemaVersion: version, path: path)
    }
    let journal = StoreJournal<Key, Metadata>(storePath: path)
    let reading = try journal.replay(onto: &contents, snapshot: contents.snapshotID)
    return Read(contents: contents, journal: journal, journalDamaged: reading.isDamaged)
  }

  /// The bytes of the file at `path`, or `nil` when there is none. Opened without blocking
  /// (a FIFO is refused, not waited on), a regular file only, at most the size limit.
  static func readBytes(_ path: FilePath) throws(Failure) -> [UInt8]? {
    try StoreFileOpener.readWhole(path, for: Key.self)
  }
}
