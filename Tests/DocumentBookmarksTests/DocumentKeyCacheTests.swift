import Foundation
import Glibc
import Synchronization
import Testing

@testable import DocumentBookmarks

@Suite("Key cache")
struct DocumentKeyCacheTests {
  /// The cache's entry for `value`, if it makes or finds one.
  static func entry(_ value: [UInt8]) -> DocumentKeyCache.Entry? {
    value.withUnsafeBytes { DocumentKeyCache.entry(forValue: $0) }
  }

  @Test("the attribute's name as a static C string is the name")
  func staticName() {
    let expected = Array(KeyAttribute.name.utf8CString)
    #expect(String(cString: KeyAttribute.cName) == KeyAttribute.name)
    #expect(Array(UnsafeBufferPointer(start: KeyAttribute.cName, count: expected.count)) == expected)
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

  @Test(
    "the entry a thread used last stays alive in its slot after the cache drops it, and is let go when the thread ends"
  )
  func threadSlotReleased() throws {
    final class Watch: Sendable {
      let weakEntry = Mutex<WeakEntry>(WeakEntry())
      let looked = Atomic<Bool>(false)
      let finish = Atomic<Bool>(false)
    }
    struct WeakEntry { weak var entry: DocumentKeyCache.Entry? }
    /// Waits (blocking, polling) until `condition` holds or 10 s pass.
    func wait(_ condition: () -> Bool) -> Bool {
      for _ in 0..<10_000 {
        if condition() { return true }
        usleep(1_000)
      }
      return condition()
    }
    let watch = Watch()
    let value = KeyAttribute.encode(DocumentKey.random())
    let started = DetachedThread.start(named: "key-cache-test") {
      let entry = Self.entry(value)
      watch.weakEntry.withLock { $0.entry = entry }
      watch.looked.store(true, ordering: .releasing)
      // The thread lives on, holding nothing but its slot, until told to end.
      while !watch.finish.load(ordering: .acquiring) { usleep(1_000) }
    }
    try #require(started)
    try #require(wait { watch.looked.load(ordering: .acquiring) })
    // Other keys push it out of the table (other tests' keys may have already).
    for _ in 0...DocumentKeyCache.capacity { _ = Self.entry(KeyAttribute.encode(DocumentKey.random())) }
    #expect(watch.weakEntry.withLock { $0.entry } != nil, "the live thread's slot should keep its entry")
    watch.finish.store(true, ordering: .releasing)
    #expect(
      wait { watch.weakEntry.withLock { $0.entry } == nil }, "the ended thread's slot still holds the entry")
  }
}
