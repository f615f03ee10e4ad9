import DocbmSystem
import Synchronization

/// The keys read most recently from documents' key attributes, each decoded and checked
/// once (its BLAKE2b fingerprint against the stored one) and with its HMAC schedule made:
/// an app resolves a document's bookmarks one after the other, and each resolve then
/// skips the fingerprint's hash and two of the MAC's SHA-256 blocks.
///
/// An entry is found by the attribute's whole value (magic, version, key and stored
/// fingerprint), compared in constant time once its public fingerprint matches, so a value
/// that differs in any byte is decoded on its own. At most ``capacity`` keys are kept (the
/// oldest make room); they stay in this process's memory as long as their entry does, as
/// a ``DocumentKey`` held by the app would.
enum DocumentKeyCache {
  /// One key, as its attribute held it.
  final class Entry: Sendable {
    /// The attribute's value (``KeyAttribute/valueLength`` bytes).
    fileprivate let value: [UInt8]
    /// The fingerprint the value stores: the lookup's first test.
    fileprivate let storedFingerprint: KeyFingerprint?
    let key: DocumentKey
    /// The key's schedule for bookmark tags (their context, ``BookmarkRecord/macContext``,
    /// hashed in already).
    let schedule: HMACSHA256.Schedule

    /// An entry for `key` that no lookup finds (for a value the cache does not hold).
    convenience init(_ key: DocumentKey) {
      self.init(value: KeyAttribute.encode(key), key: key)
    }

    fileprivate init(value: [UInt8], key: DocumentKey) {
      self.value = value
      self.storedFingerprint = value.withUnsafeBytes { KeyAttribute.storedFingerprint(of: $0) }
      self.key = key
      self.schedule = HMACSHA256.Schedule(key: key.bytes, prefix: BookmarkRecord.macContext)
    }
  }

  /// How many keys are kept.
  static let capacity = 16

  private struct Entries {
    var list: [Entry] = []
    /// Where the next new entry goes once the list is full.
    var next = 0
  }

  private static let entries = Mutex(Entries())

  /// The entry for a key attribute's value, decoding it (``KeyAttribute/decode(_:)``) when
  /// no entry holds it; `nil` when the value is not a key this version can use (the
  /// caller's own decoding then says why).
  static func entry(forValue value: UnsafeRawBufferPointer) -> Entry? {
    guard let fingerprint = KeyAttribute.storedFingerprint(of: value) else { return nil }
    let found = entries.withLock { entries -> Entry? in
      for index in entries.list.indices {
        let entry = entries.list[index]
        // The fingerprint is public (every bookmark shows it); the rest is compared in
        // constant time.
        if entry.storedFingerprint == fingerprint,
          entry.value.withUnsafeBytes({ ConstantTime.equal($0, value) })
        {
          return entry
        }
      }
      return nil
    }
    if let found { return found }
    let bytes = Array(value)
    guard case .key(let key) = KeyAttribute.decode(bytes) else { return nil }
    let entry = Entry(value: bytes, key: key)
    entries.withLock { entries in
      if entries.list.count < capacity {
        entries.list.append(entry)
      } else {
        entries.list[entries.next] = entry
        entries.next = (entries.next + 1) % capacity
      }
    }
    return entry
  }
}
