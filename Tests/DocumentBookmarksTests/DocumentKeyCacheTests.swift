import Foundation
import Synchronization
import Testing

@testable import DocumentBookmarks

@Suite("Key cache")
struct DocumentKeyCacheTests {
  /// The cache's entry for `value`, if it makes or finds one.
  static func entry(_ value: [UInt8]) -> DocumentKeyCache.Entry? {
    value.withUnsafeBytes { DocumentKeyCache.entry(forValue: $0) }
  }

  @Test("an entry is found by the whole value: a value changed in any byte, fingerprint kept, is not it")
  func wholeValue() throws {
    let key = DocumentKey.random()
    let value = KeyAttribute.encode(key)
    let first = try #require(Self.entry(value))
    // Found again, from the thread's slot and from the table.
    #expect(Self.entry(value) === first)
    #expect(first.key.bytes == key.bytes)
    for index in 0..<(KeyAttribute.valueLength - KeyFingerprint.byteCount) {
      var changed = value
      changed[index] ^= 0x01
      // A damaged value fails its own decoding (fingerprint or magic): never the entry
      // found by its stored fingerprint alone.
      #expect(Self.entry(changed) == nil, "byte \(index)")
      #expect(Self.entry(value) === first, "byte \(index)")
    }
  }

  @Test("the entry a thread used last is let go when the thread ends, though the cache dropped it before")
  func threadSlotReleased() async throws {
    final class Watch: Sendable {
      let weakEntry = Mutex<WeakEntry>(WeakEntry())
      let done = Atomic<Bool>(false)
    }
    struct WeakEntry { weak var entry: DocumentKeyCache.Entry? }
    let watch = Watch()
    let value = KeyAttribute.encode(DocumentKey.random())
    let started = DetachedThread.start(named: "key-cache-test") {
      let entry = Self.entry(value)
      watch.weakEntry.withLock { $0.entry = entry }
      watch.done.store(true, ordering: .releasing)
    }
    #expect(started)
    while !watch.done.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(1)) }
    #expect(watch.weakEntry.withLock { $0.entry } != nil)
    // Other keys push it out of the table; only the ended thread's slot could hold it now.
    for _ in 0...DocumentKeyCache.capacity { _ = Self.entry(KeyAttribute.encode(DocumentKey.random())) }
    let deadline = ContinuousClock.now + .seconds(5)
    while watch.weakEntry.withLock({ $0.entry }) != nil, ContinuousClock.now < deadline {
      try await Task.sleep(for: .milliseconds(5))
    }
    #expect(watch.weakEntry.withLock { $0.entry } == nil, "the ended thread's slot still holds the entry")
  }
}
