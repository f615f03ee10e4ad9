import DocumentBookmarks
import FoundationEssentials
import Synchronization

/// What a store keeps between its reads and writes of the store file, so that a change to
/// a large store costs about one save of its bytes:
///
/// - the contents last read or written, with the file's signature (device, inode, size,
///   modification and change times) at that moment and how far its journal was read: a
///   file with the same signature is the same version (every whole save replaces it by
///   rename, so another process's save gives a new inode, and a write in place changes its
///   times), so it is not decoded again, and only journal lines added since are read;
/// - each record's encoded JSON, reused while the record is unchanged.
final class StoreFileCache<Key: Hashable & Sendable & Codable, Metadata: Sendable & Codable & Equatable>:
  Sendable
{
  typealias Contents = StoreContents<Key, Metadata>
  typealias Record = StoreRecord<Key, Metadata>

  /// A version of the file (device, inode, size, modification and change times).
  typealias Signature = FileStatus.Version

  typealias JournalPosition = StoreJournal<Key, Metadata>.Position

  /// The version last seen: the store file's signature, its contents with the journal
  /// applied, and how far the journal was read.
  private struct Seen {
    let signature: Signature
    let contents: Contents
    let journal: JournalPosition?
  }

  private let seen = Mutex<Seen?>(nil)
  private let encoded = Mutex<[Key: (record: Record, json: [UInt8])]>([:])

  /// The contents last seen of the store file's version with `signature`, and how far its
  /// journal had been applied to them (`nil`: no line of it).
  func contents(for signature: Signature) -> (contents: Contents, journal: JournalPosition?)? {
    seen.withLock { seen in
      guard let seen, seen.signature == signature else { return nil }
      return (seen.contents, seen.journal)
    }
  }

  /// Remembers `value` as what the store file's version `signature` holds with its journal
  /// read to `journal`; with no signature, forgets what was seen.
  func remember(_ value: Contents, signature: Signature?, journal: JournalPosition?) {
    seen.withLock { seen in
      seen = signature.map { Seen(signature: $0, contents: value, journal: journal) }
    }
  }

  /// The record's JSON as the store file holds it (pretty, sorted members, indented for its
  /// place in the records list), made again only when the record changed.
  func json(for record: Record, make: (Record) throws -> [UInt8]) rethrows -> [UInt8] {
    if let cached = encoded.withLock({ $0[record.key] }), cached.record == record { return cached.json }
    let json = try make(record)
    encoded.withLock { $0[record.key] = (record, json) }
    return json
  }

  /// Forgets the encodings of records no longer in the store.
  func keepEncodings(of keys: Set<Key>) {
    encoded.withLock { cache in
      if cache.count > keys.count { cache = cache.filter { keys.contains($0.key) } }
    }
  }
}
