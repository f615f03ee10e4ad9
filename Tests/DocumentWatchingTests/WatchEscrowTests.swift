import DocbmTestSupport
import DocumentBookmarks
import DocumentWatching
import Foundation
import Glibc
import Testing

/// The escrow's rule for which file is a key's document, under a watcher: a file swapped
/// into a document's path gets no key, a shared temporary name carries no key to another
/// document, and real editors' saves are repaired every time.
@Suite("Watching documents: which file is a key's document")
struct WatchEscrowTests {
  private func watcher(
    _ setting: WatchScratch, repairs: Bool, settleTime: Duration = WatchOptions(escrow: nil).settleTime
  ) throws -> WatchRecorder {
    let options = WatchOptions(escrow: setting.escrow, repairs: repairs, settleTime: settleTime)
    return WatchRecorder(try DocumentWatcher(watching: [setting.folder], options: options))
  }

  @Test("a watcher records in the user's escrow unless the app passes nil")
  func userEscrowByDefault() {
    #expect(WatchOptions().escrow == KeyEscrow.default)
    #expect(WatchOptions(escrow: nil).escrow == nil)
  }

  /// A document of mode 0600 at `name` in the watched folder holding one bookmark (or none).
  private func document(_ setting: WatchScratch, _ name: String, bookmarks: Bool = true) throws -> (
    FilePath, KeyFingerprint
  ) {
    let path = try setting.scratch.file("docs/\(name)", "{}\n")
    chmod(path.description, 0o600)
    let bookmark = try setting.service.documents(anchoredOn: path).makeBookmark(
      to: try setting.scratch.file("images/\(name).png", "png"))
    if bookmarks { try setting.scratch.write("{\"image\": \"\(bookmark.text)\"}\n", to: path) }
    return (path, bookmark.keyFingerprint)
  }

  @Test(
    "a file swapped into a document's path in a shared folder gets no key, from a running watcher or one started after",
    arguments: [false, true])
  func swap(watcherStartsAfter: Bool) throws {
    let setting = try WatchScratch()
    try setting.scratch.folder("docs")
    chmod(setting.folder.description, 0o777)
    // Another of the user's files, older than the document's record, readable by everyone.
    let other = try setting.scratch.file("docs/notes.txt", "notes\n")
    chmod(other.description, 0o644)
    let (path, _) = try document(setting, "board.json")
    var recorder: WatchRecorder?
    if !watcherStartsAfter {
      recorder = try watcher(setting, repairs: true)
      try recorder?.start()
    }
    // The attacker, with write access to the folder: the document away, the other file in.
    try outside("/bin/mv", [path.description, setting.folder.appending("away.json").description])
    try outside("/bin/mv", [other.description, path.description])
    if watcherStartsAfter {
      recorder = try watcher(setting, repairs: true)
      try recorder?.start()
    }
    let watching = try #require(recorder)
    let refused = try #require(watching.first(.repairRefused, path), "\(watching.events)")
    #expect(refused.repair?.refusal == .unprovenSuccessor, "\(refused.message)")
    #expect(setting.key(path) == nil)
    #expect(watching.events.allSatisfy { $0.kind != .keyRestored }, "\(watching.events)")
  }

  @Test("a temporary name shared by two saves never carries one document's key to the other")
  func sharedTemporaryName() throws {
    let setting = try WatchScratch()
    let (a, keyA) = try document(setting, "A.json")
    let (b, keyB) = try document(setting, "B.json", bookmarks: false)
    // A long settle time: the second save comes while the first one's names are unsettled,
    // as it does when a loaded watcher reads both at once.
    let recorder = try watcher(setting, repairs: true, settleTime: .seconds(30))
    try recorder.start()
    let folder = setting.folder.description
    try outside("/bin/sh", ["-c", "cd '\(folder)' && cp -a A.json tmp && mv tmp A.json"])
    #expect(recorder.first(.replaced, a) != nil, "\(recorder.events)")
    #expect(setting.key(a) == keyA)
    // A plain copy through the same name: B loses its key, and gets its own back.
    try outside("/bin/sh", ["-c", "cd '\(folder)' && cp B.json tmp && mv tmp B.json"])
    let restored = try #require(recorder.first(.keyRestored, b), "\(recorder.events)")
    #expect(restored.fingerprint == keyB)
    #expect(setting.key(b) == keyB)
    // The copy's name was never A's: B's file passing through it is not A's next version.
    let temporary = setting.folder.appending("tmp")
    #expect(
      !recorder.events.contains { ($0.kind == .replaced || $0.kind == .keyLost) && $0.path == temporary },
      "\(recorder.events)")
    #expect(recorder.first(.keyLost, b)?.fingerprint == keyB, "\(recorder.events)")
    let entry = try #require(setting.escrow.entry(for: keyA))
    #expect(!entry.documents.contains { $0.path == setting.folder.appending("tmp") }, "\(entry.documents)")
  }

  @Test("2,000 saves by cp -a and mv through one temporary name: the watcher reports no key lost")
  func copiesReadLate() throws {
    let setting = try WatchScratch()
    let (a, keyA) = try document(setting, "A.json")
    let recorder = try watcher(setting, repairs: true)
    // The watcher reads each save after the fact (the more so on a loaded machine), while
    // the next ones make the temporary name again.
    try recorder.start()
    let folder = setting.folder.description
    try outside(
      "/bin/sh", ["-c", "cd '\(folder)' && for i in $(seq 2000); do cp -a A.json tmp && mv tmp A.json; done"])
    // A last copy under a name of its own: once it is reported, every save before it was read.
    try outside("/bin/cp", ["-a", a.description, setting.folder.appending("B.json").description])
    #expect(
      recorder.first(.appeared, setting.folder.appending("B.json")) != nil, "\(recorder.events.count) events")
    let lost = recorder.events.filter { $0.kind == .keyLost || $0.kind == .repairRefused }
    #expect(lost.isEmpty, "\(lost.count) lost: \(lost.prefix(3).map(\.message))")
    #expect(setting.key(a) == keyA)
  }

  /// Vim's default save (`backupcopy=auto`): the document renamed to a backup, a new file
  /// written, the backup removed.
  static let vim = program("/usr/bin/vim.basic", "/usr/bin/vim")
  /// Emacs's default save: the document renamed to `name~` (kept), a new file written.
  static let emacs = program("/usr/bin/emacs")
  static let rounds = 20

  private static func save(with editor: String, _ path: FilePath) throws {
    if editor == emacs {
      try outside(
        editor,
        [
          "-Q", "--batch", path.description, "--eval",
          "(progn (goto-char (point-max)) (insert \"x\") (save-buffer))",
        ])
    } else {
      try outside(editor, ["-u", "NONE", "-N", "-es", "-c", "normal! Gox", "-c", "wq", path.description])
    }
  }

  @Test(
    "Vim's and Emacs's default saves under a repairing watcher: the key is back every time",
    arguments: ["vim", "emacs"])
  func editorsUnderRepair(_ name: String) throws {
    guard let editor = name == "vim" ? Self.vim : Self.emacs else {
      print("skipped: \(name) is not installed")
      return
    }
    // Where documents live, not under /tmp (where Vim writes in place).
    let setting = try WatchScratch(userFolder: true)
    let (path, fingerprint) = try document(setting, "board.json")
    let recorder = try watcher(setting, repairs: true)
    try recorder.start()
    for round in 1...Self.rounds {
      try Self.save(with: editor, path)
      #expect(recorder.awaitCount(round, .keyRestored, path), "round \(round): \(recorder.events.suffix(8))")
      #expect(setting.key(path) == fingerprint, "round \(round)")
    }
    // Emacs gives its new file the document's mode only after writing it: a repair tried in
    // between is refused (the file is readable by more users then) and tried again when the
    // mode changes, so what counts is that every round ends with the key back.
  }

  @Test(
    "Vim's and Emacs's default saves under a watcher that does not repair: repair puts the key back every time",
    arguments: ["vim", "emacs"])
  func editorsThenRepair(_ name: String) throws {
    guard let editor = name == "vim" ? Self.vim : Self.emacs else {
      print("skipped: \(name) is not installed")
      return
    }
    let setting = try WatchScratch(userFolder: true)
    let (path, fingerprint) = try document(setting, "board.json")
    let recorder = try watcher(setting, repairs: false)
    try recorder.start()
    for round in 1...Self.rounds {
      try Self.save(with: editor, path)
      // The watcher has seen the save once it reports the document replaced.
      #expect(recorder.awaitCount(round, .replaced, path), "round \(round): \(recorder.events.suffix(8))")
      let repair = DocumentRepairer(escrow: setting.escrow).repair(path)
      #expect(repair.action == .restored, "round \(round): \(repair.message)")
      #expect(setting.key(path) == fingerprint, "round \(round)")
    }
  }
}
