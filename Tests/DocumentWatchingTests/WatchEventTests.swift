import DocbmTestSupport
import DocumentBookmarks
import DocumentWatching
import Foundation
import Testing

/// Each kind of event, caused by a real outside program on real files in a watched folder.
@Suite("Watching documents: events from outside programs")
struct WatchEventTests {
  /// A watched scratch folder with one document in it, and the recorder, started.
  private func watched(
    _ name: String = "board.json", userFolder: Bool = false, options: WatchOptions = WatchOptions(escrow: nil)
  ) throws -> (WatchScratch, FilePath, KeyFingerprint, WatchRecorder) {
    let setting = try WatchScratch(userFolder: userFolder)
    let document = try setting.document(name)
    let recorder = WatchRecorder(try DocumentWatcher(watching: [setting.folder], options: options))
    try recorder.start()
    return (setting, document.path, document.fingerprint, recorder)
  }

  @Test(
    "a watched folder removed is a folderGone event; after the last, the watcher stops and its events end",
    .timeLimit(.minutes(1)))
  func foldersGone() async throws {
    let setting = try WatchScratch()
    try setting.document("board.json")
    let other = try setting.scratch.folder("other")
    let watcher = try DocumentWatcher(watching: [setting.folder, other])
    var events = watcher.events().makeAsyncIterator()
    var seen: [DocumentEvent] = []
    try outside("/bin/rm", ["-rf", other.description])
    while let event = await events.next() {
      seen.append(event)
      if event.kind == .folderGone { break }
    }
    #expect(seen.last?.path == other, "\(seen)")
    #expect(seen.last?.message.contains("nothing in it is watched any more") == true)
    #expect(!watcher.hasNothingLeftToWatch)

    try outside("/bin/rm", ["-rf", setting.folder.description])
    // The sequence ends by itself: the watcher has stopped.
    while let event = await events.next() { seen.append(event) }
    let gone = seen.filter { $0.kind == .folderGone }
    #expect(gone.map(\.path) == [other, setting.folder], "\(seen)")
    #expect(gone.last?.message.contains("nothing is left to watch") == true, "\(seen)")
    #expect(watcher.hasNothingLeftToWatch)
    #expect(watcher.summary.folders == 0)
  }

  @Test(
    "the app's own replaceDocument is a replacement marked as its own; createDocument appears, marked too")
  func ownSaves() throws {
    let (setting, document, fingerprint, recorder) = try watched()
    let anchored = setting.service.documents(anchoredOn: document)
    try anchored.replaceDocument(with: Data("{\"saved\": true}\n".utf8))
    let own = try #require(recorder.first(.replaced, document), "\(recorder.events)")
    #expect(own.isOwnSave)
    #expect(own.identity == (try DocumentIdentity.of(document)))
    #expect(own.fingerprint == fingerprint)

    // Another program's save is not the app's.
    try outside("/usr/bin/sed", ["-i", "s/saved/edited/", document.description])
    #expect(recorder.awaitCount(2, .replaced, document), "\(recorder.events)")
    #expect(recorder.events.filter { $0.kind == .replaced }.map(\.isOwnSave) == [true, false])

    // A document made by createDocument arrives as itself, not as a move from its save's
    // hidden name.
    let made = setting.folder.appending("made.json")
    try setting.service.newDocument(at: made).createDocument(with: Data("{}".utf8))
    let appeared = try #require(recorder.first(.appeared, made), "\(recorder.events)")
    #expect(appeared.isOwnSave)
    #expect(!recorder.events.contains { $0.kind == .moved && $0.path == made }, "\(recorder.events)")
  }

  /// Has another program copy `document` until a copy gets the inode number `inode` (freed
  /// just before), and rename that copy over `document`; the other copies are removed.
  /// Returns whether a copy got it (a test elsewhere on the filesystem may take it first).
  private func copyOver(_ document: FilePath, takingInode inode: UInt64) -> Bool {
    let script = """
      found=1; for i in $(seq 64); do cp "$1" "$1.$i"
        if [ "$(stat -c %i "$1.$i")" = "$2" ]; then mv "$1.$i" "$1"; found=0; break; fi
      done; rm -f "$1".[0-9]*; exit $found
      """
    return run("/bin/sh", ["-c", script, "sh", document.description, "\(inode)"]).status == 0
  }

  /// Runs `round` (which frees an inode number and returns it, or `nil` where the filesystem
  /// keeps no birth time) until `copyOver` takes that number over `document`, up to ten
  /// times; returns whether it did, having said why the test skips when not.
  private func reuseInode(over document: FilePath, _ round: () throws -> UInt64?) throws -> Bool {
    for _ in 1...10 {
      guard let inode = try round() else {
        print("skipped: the filesystem under \(document) keeps no birth time")
        return false
      }
      if copyOver(document, takingInode: inode) { return true }
    }
    print("skipped: no new file beside \(document) got a freed inode number in ten rounds")
    return false
  }

  @Test("a file given the inode number of the app's deleted save is another program's, not the app's")
  func reusedInodeNumber() throws {
    let (setting, document, _, recorder) = try watched()
    var saved: DocumentIdentity?
    let reused = try reuseInode(over: document) {
      let note = try setting.scratch.file("docs/note.txt", "first\n")
      try setting.service.documents(anchoredOn: note).replaceDocument(with: Data("saved\n".utf8))
      saved = try DocumentIdentity.of(note)
      try outside("/bin/rm", [note.description])
      return saved?.birthTime == nil ? nil : saved?.inode
    }
    guard reused, let saved else { return }
    let replaced = try #require(recorder.first(.replaced, document), "\(recorder.events)")
    #expect(replaced.identity?.inode == saved.inode)
    #expect(replaced.identity != saved)
    #expect(!replaced.isOwnSave, "\(replaced)")
  }

  @Test("a new file given the inode number of a document's replaced version is a stranger, not that version")
  func reusedDocumentInodeNumber() throws {
    let (setting, document, fingerprint, recorder) = try watched()
    let other = try setting.document("other.json").path
    var replaced: DocumentIdentity?
    var rounds = 0
    let reused = try reuseInode(over: document) {
      // A save by copy and rename (`cp -a`, keeping the key) frees the old version's number.
      replaced = try DocumentIdentity.of(other)
      try outside("/bin/sh", ["-c", #"cp -a "$1" "$1.new" && mv "$1.new" "$1""#, "sh", other.description])
      rounds += 1
      try #require(recorder.awaitCount(rounds, .replaced, other), "\(recorder.events)")
      return replaced?.birthTime == nil ? nil : replaced?.inode
    }
    guard reused, let replaced else { return }
    let lost = try #require(recorder.first(.keyLost, document), "\(recorder.events)")
    #expect(lost.fingerprint == fingerprint)
    #expect(lost.identity?.inode == replaced.inode)
    #expect(!recorder.events.contains { $0.kind == .moved && $0.path == document }, "\(recorder.events)")
    #expect(setting.key(other) != nil)
  }

  @Test("sed -i replaces the document with a new file, which lost the key")
  func sedInPlace() throws {
    let (setting, document, fingerprint, recorder) = try watched()
    defer { withExtendedLifetime(setting) {} }  // the scratch folder outlives the test
    let before = try DocumentIdentity.of(document)
    try outside("/usr/bin/sed", ["-i", "s/image/picture/", document.description])
    let replaced = try #require(recorder.first(.replaced, document), "\(recorder.events)")
    #expect(replaced.oldPath == document)
    #expect(replaced.oldIdentity == before)
    #expect(replaced.identity == (try DocumentIdentity.of(document)))
    #expect(replaced.identity != before)
    let lost = try #require(recorder.first(.keyLost, document), "\(recorder.events)")
    #expect(lost.fingerprint == fingerprint)
    // No escrow, no repair: the key stays lost.
    #expect(recorder.first(within: 0.3) { $0.kind == .keyRestored } == nil)
  }

  @Test("mv renames and moves the document; a folder made later is watched, and so is a moved folder")
  func moves() throws {
    let (setting, document, fingerprint, recorder) = try watched()
    let identity = try DocumentIdentity.of(document)
    let renamed = setting.folder.appending("renamed.json")
    try outside("/bin/mv", [document.description, renamed.description])
    let moved = try #require(recorder.first(.moved, renamed), "\(recorder.events)")
    #expect(moved.oldPath == document)
    #expect(moved.identity == identity && moved.oldIdentity == identity)
    #expect(moved.fingerprint == fingerprint)

    // A folder made after the watch began, then the document moved into it.
    try outside("/bin/mkdir", ["-p", setting.folder.appending("later/deeper").description])
    let deeper = setting.folder.appending("later/deeper/board.json")
    try outside("/bin/mv", [renamed.description, deeper.description])
    #expect(recorder.first(.moved, deeper)?.oldPath == renamed, "\(recorder.events)")

    // The folder holding it renamed: the document moved with it.
    let folderMoved = setting.folder.appending("earlier/deeper/board.json")
    try outside(
      "/bin/mv",
      [setting.folder.appending("later").description, setting.folder.appending("earlier").description])
    #expect(recorder.first(.moved, folderMoved)?.oldPath == deeper, "\(recorder.events)")

    // And it is still followed there: a save over it is seen.
    try outside("/usr/bin/sed", ["-i", "s/a/b/", folderMoved.description])
    #expect(recorder.first(.keyLost, folderMoved) != nil, "\(recorder.events)")
  }

  @Test("rm deletes the document; mv out of the watched folders moves it out")
  func deletedAndMovedOut() throws {
    let (setting, document, _, recorder) = try watched()
    let second = try setting.document("second.json").path
    try outside("/bin/rm", [document.description])
    let deleted = try #require(recorder.first(.deleted, document), "\(recorder.events)")
    #expect(deleted.path == nil)
    let outsidePath = setting.scratch.path("elsewhere.json")
    try outside("/bin/mv", [second.description, outsidePath.description])
    let left = try #require(recorder.first(.movedOut, second), "\(recorder.events)")
    #expect(left.path == nil && left.oldPath == second)
    #expect(!recorder.events.contains { $0.kind == .deleted && $0.oldPath == second })
  }

  @Test(
    "cp over the document: in place it is modified and keeps its key; with --remove-destination it is replaced"
  )
  func copiedOver() throws {
    let (setting, document, fingerprint, recorder) = try watched()
    let other = try setting.scratch.file("other.json", "{\"other\": true}\n")
    let identity = try DocumentIdentity.of(document)
    try outside("/bin/cp", [other.description, document.description])
    let modified = try #require(recorder.first(.modified, document), "\(recorder.events)")
    #expect(modified.identity == identity)
    #expect(setting.key(document) == fingerprint)
    #expect(!recorder.events.contains { $0.kind == .keyLost })

    try outside("/bin/cp", ["--remove-destination", other.description, document.description])
    let replaced = try #require(recorder.first(.replaced, document), "\(recorder.events)")
    // (The new file may get the removed one's inode number: the same identity.)
    #expect(replaced.oldIdentity == identity)
    #expect(recorder.first(.keyLost, document)?.fingerprint == fingerprint, "\(recorder.events)")
    // Removed and made anew is a replacement, not a deletion.
    #expect(!recorder.events.contains { $0.kind == .deleted })
  }

  @Test("Python's os.replace of a temporary replaces the document, which lost its key")
  func pythonReplace() throws {
    guard let python = program("/usr/bin/python3", "/usr/local/bin/python3") else {
      print("skipped: python3 is not installed")
      return
    }
    let (setting, document, fingerprint, recorder) = try watched()
    defer { withExtendedLifetime(setting) {} }  // the scratch folder outlives the test
    let script = """
      import os, sys
      path = sys.argv[1]
      with open(path + ".tmp", "w") as f: f.write("{}\\n")
      os.replace(path + ".tmp", path)
      """
    try outside(python, ["-c", script, document.description])
    #expect(recorder.first(.replaced, document) != nil, "\(recorder.events)")
    #expect(recorder.first(.keyLost, document)?.fingerprint == fingerprint, "\(recorder.events)")
  }

  @Test("Vim's default save (backup by rename, new file) replaces the document, which lost its key")
  func vimSave() throws {
    guard let vim = program("/usr/bin/vim.basic", "/usr/bin/vim") else {
      print("skipped: vim is not installed")
      return
    }
    // Where documents live, not under /tmp (where Vim writes in place).
    let (setting, document, fingerprint, recorder) = try watched(userFolder: true)
    defer { withExtendedLifetime(setting) {} }  // the scratch folder outlives the test
    let before = try DocumentIdentity.of(document)
    try outside(vim, ["-u", "NONE", "-N", "-es", "-c", "normal! Ax", "-c", "wq", document.description])
    let replaced = try #require(recorder.first(.replaced, document), "\(recorder.events)")
    #expect(replaced.oldIdentity == before && replaced.identity != before)
    #expect(recorder.first(.keyLost, document)?.fingerprint == fingerprint, "\(recorder.events)")
    // The backup Vim renamed the document to, then removed, is not reported as the document.
    #expect(recorder.first(within: 0.5) { $0.kind == .deleted } == nil, "\(recorder.events)")
  }

  @Test("setfattr -x strips the key in place: key lost, same file")
  func strippedInPlace() throws {
    guard let setfattr = program("/usr/bin/setfattr") else {
      print("skipped: setfattr (package attr) is not installed")
      return
    }
    let (setting, document, fingerprint, recorder) = try watched()
    defer { withExtendedLifetime(setting) {} }  // the scratch folder outlives the test
    try outside(setfattr, ["-x", "user.docbm.key", document.description])
    let lost = try #require(recorder.first(.keyLost, document), "\(recorder.events)")
    #expect(lost.fingerprint == fingerprint)
    #expect(lost.identity == (try DocumentIdentity.of(document)))
  }

  @Test(
    "a document followed on its own, as an AsyncSequence: renamed, then saved over", .timeLimit(.minutes(1)))
  func followedDocumentAsync() async throws {
    let setting = try WatchScratch()
    let document = try setting.document("board.json").path
    let unrelated = try setting.document("unrelated.json").path
    let watcher = try DocumentWatcher(following: [document])
    let renamed = setting.folder.appending("kept.json")
    let events = watcher.events()
    try outside("/bin/mv", [unrelated.description, setting.folder.appending("gone.json").description])
    try outside("/bin/mv", [document.description, renamed.description])
    try outside("/usr/bin/sed", ["-i", "s/a/b/", renamed.description])
    var kinds: [DocumentEvent.Kind] = []
    for await event in events {
      // Only the document followed is reported, not the other one in its folder.
      #expect(event.oldPath != unrelated)
      kinds.append(event.kind)
      if event.kind == .moved { #expect(event.oldPath == document && event.path == renamed) }
      if event.kind == .keyLost { break }
    }
    #expect(kinds == [.moved, .replaced, .keyLost])
    watcher.stop()
  }

  @Test("a copy that kept its key (cp -a) appears as a document")
  func copyAppears() throws {
    let (setting, document, fingerprint, recorder) = try watched()
    let copy = setting.folder.appending("copy.json")
    try outside("/bin/cp", ["-a", document.description, copy.description])
    let appeared = try #require(recorder.first(.appeared, copy), "\(recorder.events)")
    #expect(appeared.fingerprint == fingerprint)
  }

  @Test(
    "replaceDocument, the safe save, is one replaced event: the key is kept, nothing is written in place, no copy appears or moves"
  )
  func safeSave() throws {
    let (setting, document, fingerprint, recorder) = try watched()
    let before = try DocumentIdentity.of(document)
    try setting.service.documents(anchoredOn: document).replaceDocument(with: Data("{\"saved\": 1}\n".utf8))
    let replaced = try #require(recorder.first(.replaced, document), "\(recorder.events)")
    let after = try DocumentIdentity.of(document)
    #expect(replaced.oldIdentity == before && replaced.identity == after)
    #expect(replaced.fingerprint == fingerprint && replaced.isOwnSave)
    // Another program's write in place after it is reported; the save closing its own
    // descriptor after the rename is not a write in place.
    let other = try setting.scratch.file("other.json", "{\"other\": true}\n")
    try outside("/bin/cp", [other.description, document.description])
    let modified = try #require(recorder.first(.modified, document), "\(recorder.events)")
    #expect(modified.identity == after && !modified.isOwnSave)
    #expect(recorder.events.map(\.kind) == [.replaced, .modified], "\(recorder.events)")
    #expect(setting.key(document) == fingerprint)
  }

  @Test("a folder document followed on its own is followed when renamed")
  func folderDocument() throws {
    let setting = try WatchScratch()
    let package = try setting.scratch.folder("docs/Project.pkg")
    let image = try setting.scratch.file("images/cover.png", "png")
    _ = try setting.service.documents(anchoredOn: package).makeBookmark(to: image)
    let recorder = WatchRecorder(try DocumentWatcher(following: [package]))
    try recorder.start()
    let renamed = setting.folder.appending("Renamed.pkg")
    try outside("/bin/mv", [package.description, renamed.description])
    let moved = try #require(recorder.first(.moved, renamed), "\(recorder.events)")
    #expect(moved.oldPath == package)
    #expect(moved.identity == (try DocumentIdentity.of(renamed)))
  }
}
