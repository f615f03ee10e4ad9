import DocbmSystem
import DocbmTestSupport
import DocumentBookmarks
import Glibc
import Testing

@testable import DocumentWatching

/// A file that gets a followed document's inode number and birth time in turn: a filesystem
/// gives a deleted file's number to the next file made, and two files made within one tick
/// of the clock, while nothing asks for fine-grained times, have one birth time
/// (`cp -a A tmp && mv tmp A` in a loop, read late by a loaded watcher). Which files share a
/// birth time is the clock's doing, so the engine is handed the state such a watcher is in.
@Suite("Watching documents: a file that takes a document's identity in turn")
struct WatchReusedInodeTests {
  @Test("a keyless file with a followed document's identity but another handle: no key lost")
  func anotherFileWithTheIdentity() throws {
    let setting = try WatchScratch()
    let (document, _, fingerprint) = try setting.document("A.json")
    let key = try #require(
      try ExtendedAttributes.value(KeyAttribute.name, of: .path(document, followSymlinks: false)))
    let engine = WatchEngine(inotify: try Inotify(), options: WatchOptions(escrow: nil), mode: .folders)
    _ = try engine.addRoot(setting.folder)
    let watch = try #require(engine.folders.first { $0.value.root == setting.folder }?.key)

    // A copy carrying the key, as the watcher saw it; then, at its name, a copy begun anew,
    // its key not copied yet.
    let temporary = try setting.scratch.file("docs/tmp", "{}\n")
    try ExtendedAttributes.set(KeyAttribute.name, to: key, on: .path(temporary, followSymlinks: false))
    guard let seen = WatchEngine.handle(at: temporary) else {
      print("skipped: this filesystem gives no file handles")
      return
    }
    #expect(unlink(temporary.description) == 0)
    try setting.scratch.file("docs/tmp", "{}\n")
    let identity = try DocumentIdentity.of(temporary)
    let current = try #require(WatchEngine.handle(at: temporary))
    #expect(current != seen, "a new file, a new generation")

    /// The key checked with the copy followed under `identity`, its key read on the file
    /// whose handle is `handle`.
    func checkKey(readOn handle: KernelFileHandle) -> [DocumentEvent] {
      var followed = WatchEngine.Document(
        entry: WatchEngine.Entry(folder: watch, name: Array("tmp".utf8)), identity: identity,
        fingerprint: fingerprint, hasKey: true)
      followed.handle = handle
      engine.documents[identity] = followed
      var events: [DocumentEvent] = []
      engine.checkKey(identity, at: temporary, retryRepair: true, &events)
      return events
    }
    let stranger = checkKey(readOn: seen)
    #expect(!stranger.contains { $0.kind == .keyLost }, "\(stranger.map(\.message))")
    // The same file, its key gone: lost.
    let same = checkKey(readOn: current)
    #expect(same.contains { $0.kind == .keyLost && $0.path == temporary }, "\(same.map(\.message))")
  }
}
