import DocumentBookmarks
import Foundation
import Synchronization

/// What a store keeps between its reads and writes of the store file, so that a change to
/// a large store costs about one save of its bytes:
///
/// - the contents last read or written, with the file's signature (device, inode, size,
///   modification and change times) at that moment: under the lock, a file with the same
///   signature is the same version (every save replaces it by rename, so another process's
///   save gives a new inode, and a write in place changes its times), so it is not decoded
///   again;
/// - each record's encoded JSON, reused while the record is unchanged.
final class StoreFileCache<Key: Hashable & Sendable & Codable, Metadata: Sendable & Codable & Equatable>:
  Sendable
{
  typealias Contents = StoreContents<Key, Metadata>
  typealias Record = StoreRecord<Key, Metadata>

  /// A version of the file, as `statx` tells it apart.
  struct Signature: Hashable, Sendable {
    let device: FileStatus.Device
    let inode: UInt64
    let size: UInt64
    let modificationTime: Timestamp
    let changeTime: Timestamp

    init(_ status: FileStatus) {
      device = status.device
      inode = status.inode
      size = status.size
      modificationTime = status.modificationTime
      changeTime = status.changeTime
    }
  }

  private let contents = Mutex<(signature: Signature, contents: Contents)?>(nil)
  private let encoded = Mutex<[Key: (record: Record, json: [UInt8])]>([:])

  /// The contents of the version with `signature`, when it is the one last seen.
  func contents(for signature: Signature) -> Contents? {
    contents.withLock { $0?.signature == signature ? $0?.contents : nil }
  }

  func remember(_ value: Contents, signature: Signature?) {
    contents.withLock { $0 = signature.map { ($0, value) } }
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
