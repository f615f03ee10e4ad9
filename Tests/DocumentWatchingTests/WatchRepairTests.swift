import DocbmTestSupport
import DocumentBookmarks
import DocumentWatching
import Foundation
import Glibc
import Synchronization
import Testing

/// Repair while watching puts back the keys saves drop, only under the trust rules; and a
/// queue overflow loses no change to a document.
@Suite("Watching documents: repair and overflow")
struct WatchRepairTests {
  private func repairing(_ setting: WatchScratch, sightings: Bool = true) throws -> WatchRecorder {
    let options = WatchOptions(escrow: setting.escrow, repairs: true, recordsSightings: sightings)
    return WatchRecorder(try DocumentWatcher(watching: [setting.folder], options: options))
  }

  @Test("sed -i drops the key; the watcher puts the escrowed key back, and the bookmark resolves")
  func repairAfterSed() throws {
    let setting = try WatchScratch()
    let (document, bookmark, fingerprint) = try setting.document("board.json")
    let recorder = try repairing(setting)
    try recorder.start()
    try outside("/usr/bin/sed", ["-i", "s/image/picture/", document.description])
    #expect(recorder.first(.keyLost, document)?.fingerprint == fingerprint, "\(recorder.events)")
    let restored = try #require(recorder.first(.keyRestored, document), "\(recorder.events)")
    #expect(restored.repair?.action == .restored)
    #expect(setting.key(document) == fingerprint)
    let resolution = try setting.service.documents(anchoredOn: document).resolve(bookmark)
    #expect(resolution.path == setting.scratch.path("images/board.json.png"))
  }

  @Test("a document that lost its key, renamed to another's path and back, never takes the other's key")
  func renamedThroughAnotherPath() throws {
    let setting = try WatchScratch()
    try setting.scratch.folder("docs")
    let recorder = try repairing(setting)
    try recorder.start()
    for round in 0..<100 {
      let (a, _, keyA) = try setting.document("a\(round).json")
      let (b, _, _) = try setting.document("b\(round).json")
      let away = setting.folder.appending("a\(round).away")
      let temporary = setting.folder.appending(".b\(round).tmp")
      #expect(recorder.first(.appeared, b) != nil, "\(recorder.events)")
      // A plain save of B, without its key or bookmarks; at once A moved away and B into
      // A's name; once the watcher has seen B there, both back.
      try setting.scratch.write("{}\n", to: temporary)
      #expect(rename(temporary.description, b.description) == 0)
      #expect(rename(a.description, away.description) == 0)
      #expect(rename(b.description, a.description) == 0)
      #expect(
        recorder.first { $0.kind == .moved && $0.oldPath == b && $0.path == a } != nil,
        "round \(round): \(recorder.events)")
      #expect(rename(a.description, b.description) == 0)
      #expect(rename(away.description, a.description) == 0)
      #expect(
        recorder.first { $0.kind == .moved && $0.oldPath == a && $0.path == b } != nil,
        "round \(round): \(recorder.events)")
      #expect(recorder.first { $0.kind == .moved && $0.oldPath == away && $0.path == a } != nil)
      #expect(setting.key(b) != keyA, "round \(round): B took A's key")
      #expect(setting.key(a) == keyA, "round \(round)")
    }
  }

  @Test("a document moved, then saved by sed -i, is repaired: the watcher recorded where it went")
  func movedThenSaved() throws {
    for sightings in [true, false] {
      let setting = try WatchScratch()
      let (document, _, fingerprint) = try setting.document("board.json")
      try setting.scratch.folder("docs/sub")
      let recorder = try repairing(setting, sightings: sightings)
      try recorder.start()
      let moved = setting.folder.appending("sub/board.json")
      try outside("/bin/mv", [document.description, moved.description])
      #expect(recorder.first(.moved, moved) != nil, "\(recorder.events)")
      try outside("/usr/bin/sed", ["-i", "s/image/picture/", moved.description])
      if sightings {
        #expect(recorder.first(.keyRestored, moved) != nil, "\(recorder.events)")
        #expect(setting.key(moved) == fingerprint)
      } else {
        // Without the sighting the escrow knows neither the path nor the new file: refused.
        let refused = try #require(recorder.first(.repairRefused, moved), "\(recorder.events)")
        #expect(refused.repair?.refusal == .notRecorded)
        #expect(setting.key(moved) == nil)
      }
    }
  }

  @Test(
    "a pasted bookmark or a plain copy never gets a key; another user's document is refused; yours is repaired"
  )
  func onlyRecordedDocuments() throws {
    let setting = try WatchScratch()
    let (document, bookmark, fingerprint) = try setting.document("board.json")
    let pasted = try setting.scratch.file("docs/pasted.txt", "see \(bookmark.text)\n")
    let copy = setting.folder.appending("copy.json")
    try outside("/bin/cp", [document.description, copy.description])
    var theirs: FilePath?
    if Capabilities.isRoot {
      let path = try setting.document("theirs.json").path
      try outside("/bin/chown", ["65534:65534", path.description])
      theirs = path
    } else {
      print("skipped (in part): giving a document to another user needs root")
    }
    let recorder = try repairing(setting)
    try recorder.start()
    try outside("/usr/bin/sed", ["-i", "s/see/look/", pasted.description])
    try outside("/usr/bin/sed", ["-i", "s/image/picture/", copy.description])
    if let theirs {
      try outside("/usr/bin/sed", ["-i", "s/image/picture/", theirs.description])
      let refused = try #require(recorder.first(.repairRefused, theirs), "\(recorder.events)")
      #expect(refused.repair?.refusal == .notOwned)
      #expect(setting.key(theirs) == nil)
    }
    // The recorded document, saved last, is repaired: the watcher saw everything before it.
    try outside("/usr/bin/sed", ["-i", "s/image/picture/", document.description])
    #expect(recorder.first(.keyRestored, document) != nil, "\(recorder.events)")
    #expect(setting.key(document) == fingerprint)
    #expect(setting.key(pasted) == nil)
    #expect(setting.key(copy) == nil)
    #expect(!recorder.events.contains { $0.kind == .keyRestored && $0.path != document })
  }

  @Test(
    "a recorded document that lost its key before the watch began is repaired when the watch starts; a pasted bookmark is not"
  )
  func lostBeforeTheWatch() throws {
    let setting = try WatchScratch()
    let (document, bookmark, fingerprint) = try setting.document("board.json")
    let pasted = try setting.scratch.file("docs/pasted.txt", "see \(bookmark.text)\n")
    try outside("/usr/bin/sed", ["-i", "s/image/picture/", document.description])
    #expect(setting.key(document) == nil)
    let recorder = try repairing(setting)
    try recorder.start()
    #expect(recorder.first(.keyLost, document) != nil, "\(recorder.events)")
    #expect(recorder.first(.keyRestored, document) != nil, "\(recorder.events)")
    #expect(setting.key(document) == fingerprint)
    // Saved again while watched: followed, repaired again.
    try outside("/usr/bin/sed", ["-i", "s/picture/image/", document.description])
    #expect(
      recorder.first {
        $0.kind == .keyRestored && recorder.events.filter { $0.kind == .keyRestored }.count == 2
      } != nil)
    #expect(setting.key(document) == fingerprint)
    #expect(setting.key(pasted) == nil)
    #expect(!recorder.events.contains { $0.path == pasted })
  }

  @Test("the kernel's queue overflows while the reader is held up; a rescan reports the save and repairs it")
  func overflowRescan() throws {
    let setting = try WatchScratch()
    let trigger = try setting.document("trigger.json").path
    let (changed, _, fingerprint) = try setting.document("changed.json")
    let moved = try setting.document("moved.json").path
    let noise = setting.folder.appending("noise")
    try setting.scratch.makeFolder(noise)
    let recorder = try repairing(setting)
    let held = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    let holding = Atomic<Bool>(true)
    try recorder.start { event in
      // The first event holds the watcher's thread: the kernel keeps queueing meanwhile.
      if holding.exchange(false, ordering: .sequentiallyConsistent) {
        held.signal()
        release.wait()
      }
    }
    try outside("/usr/bin/touch", [trigger.description])
    try outside("/bin/mv", [trigger.description, setting.folder.appending("trigger2.json").description])
    try #require(held.wait(timeout: .now() + 30) == .success, "no event arrived: \(recorder.events)")
    // More events than the queue holds: each file made gives IN_CREATE and IN_CLOSE_WRITE.
    let limit =
      Int(
        (try? String(contentsOfFile: "/proc/sys/fs/inotify/max_queued_events", encoding: .utf8))?
          .trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 16384
    let files = limit / 2 + 500
    try makeEmptyFiles(files, in: noise)
    // The changes the dropped events would have told.
    try outside("/usr/bin/sed", ["-i", "s/image/picture/", changed.description])
    let movedTo = setting.folder.appending("noise/moved.json")
    try outside("/bin/mv", [moved.description, movedTo.description])
    release.signal()
    #expect(recorder.first(within: 20) { $0.kind == .rescanned } != nil, "no overflow seen")
    #expect(
      recorder.first(.replaced, changed, within: 20) != nil,
      "\(recorder.events.filter { $0.kind != .appeared })")
    #expect(
      recorder.first(.keyRestored, changed, within: 20) != nil,
      "\(recorder.events.filter { $0.kind != .appeared })")
    #expect(setting.key(changed) == fingerprint)
    #expect(recorder.first(.moved, movedTo, within: 20)?.oldPath == moved)
    #expect(recorder.watcher.summary.rescans >= 1)
  }
}
