import DocbmTestSupport
import DocumentBookmarks
import DocumentWatching
import Foundation
import Glibc
import Synchronization
import Testing

/// What watching costs: no wake-ups while nothing happens, a bounded number of watches, and
/// state for folders and documents only.
@Suite("Watching documents: costs and bounds")
struct WatchCostTests {
  /// The watcher's thread's voluntary context switches (each sleep it wakes from).
  private func wakeUps(_ thread: Int32) throws -> Int {
    let status = try String(contentsOfFile: "/proc/self/task/\(thread)/status", encoding: .utf8)
    let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("voluntary_ctxt_switches:") })
    return try #require(Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)))
  }

  @Test("idle, the watcher's thread sleeps in the kernel: no wake-up in 1.5 seconds")
  func idleCostsNothing() throws {
    let setting = try WatchScratch()
    let document = try setting.document("board.json").path
    try setting.scratch.folder("docs/a/b/c")
    let recorder = WatchRecorder(try DocumentWatcher(watching: [setting.folder]))
    let thread = Atomic<Int32>(0)
    try recorder.start { _ in
      // `/proc/thread-self` leads to `<pid>/task/<tid>` of the thread reading it.
      let link = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? ""
      thread.store(Int32(link.split(separator: "/").last ?? "") ?? 0, ordering: .sequentiallyConsistent)
    }
    // One event, to learn which thread delivers them (a move leaves nothing to settle).
    try outside("/bin/mv", [document.description, setting.folder.appending("moved.json").description])
    try #require(recorder.first { $0.kind == .moved } != nil, "\(recorder.events)")
    let tid = thread.load(ordering: .sequentiallyConsistent)
    try #require(tid > 0)
    Thread.sleep(forTimeInterval: 0.1)
    let before = try wakeUps(tid)
    Thread.sleep(forTimeInterval: 1.5)
    let after = try wakeUps(tid)
    #expect(after == before, "the watcher's thread woke \(after - before) times while nothing happened")
    // And it still answers at once afterwards.
    try outside("/usr/bin/sed", ["-i", "s/a/b/", setting.folder.appending("moved.json").description])
    #expect(recorder.first { $0.kind == .keyLost } != nil, "\(recorder.events)")
    // It woke for that (counted when it next goes to sleep, which may come just after the
    // event is delivered).
    #expect(try waitUntil { try wakeUps(tid) > after })
  }

  @Test("at most maximumFolders folders are watched; the others are named in a few notices, not a flood")
  func boundedWatches() throws {
    let setting = try WatchScratch()
    for index in 0..<8 { try setting.scratch.folder("docs/f\(index)") }
    let watcher = try DocumentWatcher(
      watching: [setting.folder], options: WatchOptions(escrow: nil, maximumFolders: 3))
    #expect(watcher.summary.folders == 3)
    #expect(watcher.summary.foldersNotWatched == 6)
    let recorder = WatchRecorder(watcher)
    try recorder.start()
    let more = recorder.first { $0.kind == .notWatched && $0.message.hasPrefix("3 more folders") }
    #expect(more != nil, "\(recorder.events)")
    let notices = recorder.events.filter { $0.kind == .notWatched }
    #expect(notices.count == 4, "\(notices)")
    #expect(notices.prefix(3).allSatisfy { $0.message.contains("the watcher's limit") })
    // A folder made later past the bound is named too.
    try setting.scratch.folder("docs/later")
    #expect(recorder.first { $0.kind == .notWatched && $0.path == setting.folder.appending("later") } != nil)
    #expect(recorder.watcher.summary.foldersNotWatched == 7)
  }

  @Test("state grows with folders and documents, not with the other files in them")
  func stateFollowsDocuments() throws {
    let setting = try WatchScratch()
    try setting.document("board.json")
    try makeEmptyFiles(2000, in: setting.folder)
    let watcher = try DocumentWatcher(watching: [setting.folder])
    #expect(watcher.summary.documents == 1)
    #expect(watcher.summary.folders == 1)
  }
}
