import DocbmSystem
import DocbmTestSupport
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
      // The whole value still finds its key (the same entry, unless tests running at the
      // same time filled the process's cache of 16 keys meanwhile and a new one was made).
      #expect(Self.entry(value)?.key.bytes == key.bytes, "byte \(index)")
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

  @Test("a document's key read through the cache: the same entry for the same value, nil without a key")
  func cachedKeyOfDocument() throws {
    let scratch = try Scratch()
    let path = try scratch.file("doc.json", "{}")
    let copy = try scratch.file("copy.json", "{}")
    let plain = try scratch.file("plain.json", "{}")
    let key = DocumentKey.random()
    for file in [path, copy] {
      try ExtendedAttributes.set(
        KeyAttribute.name, to: KeyAttribute.encode(key), on: .path(file, followSymlinks: false))
    }
    func cached(_ file: FilePath) throws(DocbmError) -> DocumentKeyCache.Entry? {
      let fd = try mappingSystemErrors(.readKey, path: file) { () throws(SystemCallError) in
        try FileDescriptor.open(file, [.readOnly])
      }
      defer { fd.close() }
      return try KeyAttribute.cachedKey(from: fd, path: file)
    }
    let entry = try #require(try cached(path))
    #expect(entry.key == key)
    #expect(try cached(copy) === entry, "a copy carrying the same value finds the same entry")
    #expect(try cached(plain) == nil)
  }

  @Test(
    "a key value that cannot be used is an error through the cache, as through a plain read",
    arguments: [
      ("one key byte changed", 10, false), ("another version", 4, true), ("a longer value", -1, false),
    ])
  func cachedKeyMalformed(label: String, byte: Int, unsupported: Bool) throws {
    let scratch = try Scratch()
    let path = try scratch.file("doc.json", "{}")
    var value = KeyAttribute.encode(DocumentKey.random())
    if byte >= 0 { value[byte] ^= 0x02 } else { value += [UInt8](repeating: 7, count: 100) }
    try ExtendedAttributes.set(KeyAttribute.name, to: value, on: .path(path, followSymlinks: false))
    let fd = try FileDescriptor.open(path, [.readOnly])
    defer { fd.close() }
    let error = #expect(throws: DocbmError.self, "\(label)") {
      try KeyAttribute.cachedKey(from: fd, path: path)
    }
    #expect(error?.code == (unsupported ? .unsupportedVersion : .keyMalformed), "\(label)")
    let plain = #expect(throws: DocbmError.self, "\(label)") {
      try KeyAttribute.read(from: fd, path: path).key(of: path)
    }
    #expect(plain?.code == error?.code, "\(label)")
  }

  @Test("a record verifies with the key's schedule exactly when it verifies with the key")
  func scheduleAgreesWithKey() throws {
    let scratch = try Scratch()
    let path = try scratch.file("doc.json", "{}")
    let bookmark = try BookmarkService(escrow: nil).documents(anchoredOn: path).makeBookmark(
      to: try scratch.file("t"))
    let key = try #require(try KeyAttribute.read(atPath: path).key(of: path))
    let entry = DocumentKeyCache.Entry(key)
    let other = DocumentKeyCache.Entry(DocumentKey.random())
    #expect(BookmarkRecord.verify(bookmark.bytes, schedule: entry.schedule))
    #expect(!BookmarkRecord.verify(bookmark.bytes, schedule: other.schedule))
    for index in bookmark.bytes.indices {
      var changed = bookmark.bytes
      changed[index] ^= 0x01
      #expect(!BookmarkRecord.verify(changed, schedule: entry.schedule), "byte \(index)")
      #expect(!BookmarkRecord.verify(changed, key: key), "byte \(index)")
    }
    #expect(!BookmarkRecord.verify(Array(bookmark.bytes.prefix(8)), schedule: entry.schedule))
  }
}
