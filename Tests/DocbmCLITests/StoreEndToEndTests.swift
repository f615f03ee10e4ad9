import DocbmTestSupport
import DocumentBookmarks
import Foundation
import Glibc
import Testing

@Suite("docbm store, end to end")
struct StoreEndToEndTests {
  let scratch: Scratch
  let store: FilePath
  let docbm = Capabilities.docbmExecutable

  init() throws {
    scratch = try Scratch()
    store = scratch.path("app/recents.json")
  }

  private func fingerprint() throws -> KeyFingerprint? {
    try BookmarkService(escrow: nil).documents(anchoredOn: store).keyFingerprint()
  }

  @Test("add, list, refresh after a move and a deletion, pin, forget")
  func lifecycle() throws {
    let plan = try scratch.file("notes/plan.md")
    let photos = try scratch.folder("photos")
    // A store that is not there is made only when asked: a mistyped STORE is refused.
    let refused = run(docbm, ["store", "add", store.description, plan.description])
    #expect(refused.status == 1)
    #expect(refused.error.contains("there is no store at \(store); to make one there, add with --create"))
    #expect(!FileManager.default.fileExists(atPath: store.description))
    let first = run(docbm, ["store", "add", "--create", store.description, plan.description])
    #expect(first.status == 0)
    // The store this add made is said so; the next add is quiet.
    #expect(first.error.contains("made a new store at \(store)"), "\(first.error)")
    let second = run(
      docbm, ["store", "add", "--key", "photos", "--pin", store.description, photos.description])
    #expect(second.status == 0 && second.error.isEmpty, "\(second.error)")
    let moved = scratch.path("notes/plan-final.md")
    try scratch.move(plan, moved)
    let refreshed = run(docbm, ["store", "refresh", store.description])
    #expect(refreshed.status == 0, "\(refreshed.error)")
    let list = run(docbm, ["store", "list", "--json", store.description])
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(list.output.utf8)) as? [String: Any])
    let records = try #require(object["records"] as? [[String: Any]])
    #expect(records.map { $0["key"] as? String } == [plan.description, "photos"])
    #expect(records[0]["path"] as? String == moved.description)
    #expect(records[1]["pinned"] as? Bool == true)
    try scratch.remove(moved)
    let failing = run(docbm, ["store", "refresh", store.description, plan.description])
    #expect(failing.status == 2)
    #expect(failing.error.contains("missing"))
    let text = run(docbm, ["store", "list", store.description]).output
    #expect(text.contains("missing since") && text.contains("gone"))
    let forget = run(docbm, ["store", "forget", store.description, plan.description, "nothing"])
    #expect(forget.status == 1)
    #expect(forget.error.contains("no record has the key nothing"))
    // The record forgotten is said to be gone, not listed as a record.
    #expect(forget.output.hasPrefix("forgot \(plan.description)  "), "\(forget.output)")
    #expect(!forget.output.contains("missing since"), "\(forget.output)")
    #expect(run(docbm, ["store", "list", store.description]).output.split(separator: "\n").count == 1)
    // The store is a document like any other: its bookmarks check out.
    #expect(run(docbm, ["check", store.description]).status == 0)
  }

  @Test("a store file saved without its key gets it back; with no copy of the key, reanchor starts it again")
  func storeSavedWithoutItsKey() throws {
    let plan = try scratch.file("notes/plan.md")
    let todo = try scratch.file("notes/todo.md")
    #expect(
      run(docbm, ["store", "add", "--create", store.description, plan.description, todo.description]).status
        == 0)
    let key = try #require(try fingerprint())
    // Another program writes the store file anew, readable by everyone, without its key.
    func saveWithoutKey() throws {
      let bytes = try Data(contentsOf: store.url)
      let temporary = scratch.path("app/.recents.tmp")
      #expect(FileManager.default.createFile(atPath: temporary.description, contents: bytes))
      #expect(chmod(temporary.description, 0o644) == 0)
      #expect(rename(temporary.description, store.description) == 0)
    }
    try saveWithoutKey()
    let listed = run(docbm, ["store", "refresh", store.description])
    #expect(listed.status == 0, "\(listed.error)")
    #expect(
      listed.error.contains("had lost its key") && listed.error.contains("narrowed to 600"), "\(listed.error)"
    )
    #expect(try fingerprint() == key)
    var status = stat()
    #expect(stat(store.description, &status) == 0 && status.st_mode & 0o777 == 0o600)

    // On an account whose escrow never had the key: the store says so, and how to go on.
    try saveWithoutKey()
    let elsewhere = ["DOCBM_ESCROW_DIR": scratch.path("other-escrow").description]
    let refused = run(
      docbm, ["store", "add", "--create", store.description, try scratch.file("c.md").description],
      environment: elsewhere
    )
    #expect(refused.status == 1)
    #expect(
      refused.error.contains("lost its key") && refused.error.contains("import that escrow"),
      "\(refused.error)")
    #expect(refused.error.contains("'docbm store reanchor \(store)'"), "\(refused.error)")
    #expect(try fingerprint() == nil)
    try scratch.remove(todo)
    let reanchored = run(docbm, ["store", "reanchor", store.description], environment: elsewhere)
    #expect(reanchored.status == 0, "\(reanchored.error)")
    #expect(reanchored.output.contains("\(plan.description)  available"), "\(reanchored.output)")
    #expect(reanchored.output.contains("missing since"), "\(reanchored.output)")
    #expect(run(docbm, ["check", store.description], environment: elsewhere).status == 0)
    let again = run(docbm, ["store", "reanchor", store.description], environment: elsewhere)
    #expect(again.status == 0 && again.error.contains("nothing to reanchor"), "\(again.error)")
  }

  @Test("usage errors name the problem")
  func usage() {
    let noAction = run(docbm, ["store"])
    #expect(noAction.status == 64 && noAction.error.contains("Missing expected argument 'ACTION'"))
    let wrong = run(docbm, ["store", "lsit", store.description])
    #expect(wrong.status == 64 && wrong.error.contains("Unknown action 'lsit'"))
    let misplaced = run(docbm, ["store", "forget", "--pin", store.description, "k"])
    #expect(misplaced.status == 64)
    let missing = run(docbm, ["store", "list", store.description])
    #expect(missing.status == 1 && missing.error.contains("there is no store"))
  }

  @Test("four processes adding at once lose nothing, and the store keeps its key")
  func concurrentWriters() throws {
    let rounds = Int(ProcessInfo.processInfo.environment["DOCBM_STORE_ROUNDS"] ?? "") ?? 25
    for writer in 1...4 {
      for round in 1...rounds { try scratch.file("targets/w\(writer)-\(round).txt") }
    }
    #expect(
      run(
        docbm,
        [
          "store", "add", "--create", "--key", "seed", store.description,
          scratch.path("targets/w1-1.txt").description,
        ]
      ).status == 0)
    let fingerprint = try #require(try fingerprint())
    let processes = try (1...4).map { writer -> Process in
      let process = Process()
      process.executableURL = URL(fileURLWithPath: "/bin/sh")
      process.arguments = [
        "-c",
        "for i in $(seq 1 \(rounds)); do \"$0\" store add --key w\(writer)-$i \"$1\" \"$2/w\(writer)-$i.txt\" >/dev/null || exit 1; done",
        docbm, store.description, scratch.path("targets").description,
      ]
      process.environment = childEnvironment(["DOCBM_ESCROW_DIR": scratch.path("escrow").description])
      try process.run()
      return process
    }
    for process in processes {
      process.waitUntilExit()
      #expect(process.terminationStatus == 0)
    }
    let list = run(docbm, ["store", "list", "--json", store.description])
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(list.output.utf8)) as? [String: Any])
    let keys = Set(try #require(object["records"] as? [[String: Any]]).compactMap { $0["key"] as? String })
    // w1-1 was added twice (as seed, then as w1-1): the second add returned the first record.
    #expect(keys.count == 4 * rounds)
    for writer in 1...4 {
      for round in 1...rounds where !(writer == 1 && round == 1) {
        #expect(keys.contains("w\(writer)-\(round)"), "w\(writer)-\(round) was lost")
      }
    }
    #expect(try self.fingerprint() == fingerprint)
    #expect(run(docbm, ["check", store.description]).status == 0)
  }

  @Test("a writer killed with SIGKILL in the middle of a change releases the store at once")
  func killedHolder() throws {
    let target = try scratch.file("a.txt")
    #expect(run(docbm, ["store", "add", "--create", store.description, target.description]).status == 0)
    // Another process holds the store's write lock, in a transaction it never ends (SQLite's
    // own locks, taken by Python's sqlite3 as by any SQLite program).
    let holder = Process()
    holder.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    holder.arguments = [
      "-c",
      "import sqlite3, sys\nc = sqlite3.connect(sys.argv[1], isolation_level=None)\nc.execute('BEGIN IMMEDIATE')\nc.execute(\"UPDATE meta SET value = value WHERE name = 'version'\")\nprint('held', flush=True)\nsys.stdin.read()",
      store.description,
    ]
    let output = Pipe()
    // The holder waits on its standard input, which stays open until it is killed.
    let input = Pipe()
    holder.standardOutput = output
    holder.standardInput = input
    try holder.run()
    defer { if holder.isRunning { kill(holder.processIdentifier, SIGKILL) } }
    let line = output.fileHandleForReading.availableData
    try #require(String(decoding: line, as: UTF8.self).hasPrefix("held"), "the holder never took the lock")
    let adder = Process()
    adder.executableURL = URL(fileURLWithPath: docbm)
    adder.arguments = [
      "store", "add", "--create", "--key", "b", store.description, try scratch.file("b.txt").description,
    ]
    adder.environment = childEnvironment()
    try adder.run()
    let killed = ContinuousClock.now
    kill(holder.processIdentifier, SIGKILL)
    adder.waitUntilExit()
    let elapsed = ContinuousClock.now - killed
    #expect(adder.terminationStatus == 0)
    // At once: well inside SQLite's wait for a lock (10 s), on a loaded machine too.
    #expect(elapsed < .seconds(8), "the add took \(elapsed) after the holder died")
    let lines = run(docbm, ["store", "list", store.description]).output.split(separator: "\n")
    #expect(lines.contains { $0.hasPrefix("b ") && $0.contains("available") })
    #expect(lines.contains { $0.hasPrefix("\(target) ") })
  }

  @Test("a writer killed at any moment leaves the old or the new store, with its key")
  func killedWriter() throws {
    #expect(
      run(
        docbm,
        [
          "store", "add", "--create", "--key", "seed", store.description,
          try scratch.file("seed.txt").description,
        ]
      ).status == 0)
    let fingerprint = try #require(try fingerprint())
    for round in 0..<6 {
      for index in 0..<20 { try scratch.file("round\(round)/f\(index).txt") }
      let writer = Process()
      writer.executableURL = URL(fileURLWithPath: "/bin/sh")
      writer.arguments = [
        "-c", "for f in \"$2\"/*; do \"$0\" store add \"$1\" \"$f\" >/dev/null; done", docbm,
        store.description,
        scratch.path("round\(round)").description,
      ]
      writer.environment = childEnvironment()
      try writer.run()
      usleep(UInt32(40_000 + round * 37_000))
      // Kill the shell and whatever docbm it is running.
      _ = run("/usr/bin/pkill", ["-KILL", "-P", String(writer.processIdentifier)])
      kill(writer.processIdentifier, SIGKILL)
      writer.waitUntilExit()
      let list = run(docbm, ["store", "list", store.description])
      #expect(list.status == 0, "round \(round): \(list.error)")
      #expect(list.output.contains("seed"))
      #expect(try self.fingerprint() == fingerprint, "round \(round): the store's key changed")
    }
  }
}

@Suite("docbm store and mounts")
struct StoreMountTests {
  let docbm = Capabilities.docbmExecutable

  @Test("records on a disk that is unmounted become unavailable (not gone) and come back when it is mounted")
  func unmountAndRemount() throws {
    guard Capabilities.canMountPrivately, FileManager.default.isExecutableFile(atPath: "/sbin/mkfs.ext4")
    else {
      print("skipped: loop-mounting an ext4 image needs root, unshare -m and mkfs.ext4")
      return
    }
    let scratch = try Scratch()
    let image = scratch.path("disk.img")
    let disk = try scratch.folder("media/disk")
    let store = scratch.path("app/places.json")
    let log = scratch.path("follow.log")
    let made = run("/bin/sh", ["-c", "truncate -s 8M '\(image)' && /sbin/mkfs.ext4 -q '\(image)'"])
    try #require(made.status == 0, "\(made.error)")
    // Inside a private mount namespace: a store with a folder and a path-only file on the
    // disk, followed by `docbm store follow` while the disk goes away and comes back.
    let script = """
      set -e
      mount -o loop '\(image)' '\(disk)' || exit 77
      mkdir '\(disk)/photos'; echo later > '\(disk)/later.txt'
      '\(docbm)' store add --create --key photos '\(store)' '\(disk)/photos' >/dev/null
      '\(docbm)' store add --key later --path-only '\(store)' '\(disk)/later.txt' >/dev/null
      mkfifo '\(log).fifo'
      '\(docbm)' store follow --json '\(store)' > '\(log).fifo' 2>&1 &
      follower=$!
      trap 'kill -TERM $follower 2>/dev/null' EXIT
      exec 3< '\(log).fifo'
      # Reads the follower's lines into the log as they come (a minute at most for each)
      # until lines matching every pattern given have come.
      await() {
        local -a want=("$@") got=()
        local line i all
        while IFS= read -r -t 60 line <&3; do
          printf '%s\n' "$line" >> '\(log)'
          for i in "${!want[@]}"; do [[ $line =~ ${want[$i]} ]] && got[$i]=1; done
          all=1
          for i in "${!want[@]}"; do [[ -n ${got[$i]:-} ]] || all=0; done
          [ $all = 1 ] && return 0
        done
        echo "no line matched $* in time" >&2
        exit 1
      }
      await '^following'
      echo MARK-unmount >> '\(log)'; umount '\(disk)'
      await '"key":"photos".*volumeUnavailable'
      echo MARK-mount >> '\(log)'; mount -o loop '\(image)' '\(disk)'
      await '"key":"photos".*"available"' '"hasBookmark":true.*"key":"later"'
      echo MARK-end >> '\(log)'
      kill -TERM $follower; wait $follower; trap - EXIT
      '\(docbm)' store list --json '\(store)'
      umount '\(disk)'
      """
    let result = run("/usr/bin/unshare", ["-m", "--propagation", "private", "/bin/bash", "-c", script])
    if result.status == 77 {
      print("skipped: the loop device could not be mounted")
      return
    }
    #expect(result.status == 0, "\(result.error)")
    let lines = try String(contentsOf: log.url, encoding: .utf8).split(separator: "\n").map(String.init)
    func section(_ from: String, _ to: String) -> [[String: Any]] {
      guard let start = lines.firstIndex(of: from), let end = lines.firstIndex(of: to) else { return [] }
      return lines[(start + 1)..<end].compactMap {
        try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
      }
    }
    func state(_ object: [String: Any]) -> String? {
      (object["status"] as? [String: Any])?["state"] as? String
    }
    func code(_ object: [String: Any]) -> String? { (object["status"] as? [String: Any])?["code"] as? String }
    let unmounted = section("MARK-unmount", "MARK-mount")
    let photosGone = unmounted.first { $0["key"] as? String == "photos" }
    #expect(photosGone.map(code) == "volumeUnavailable", "after the unmount: \(unmounted)")
    let mounted = section("MARK-mount", "MARK-end")
    let photosBack = mounted.last { $0["key"] as? String == "photos" }
    #expect(photosBack.map(state) == "available", "after the mount: \(mounted)")
    let laterBack = mounted.last { $0["key"] as? String == "later" }
    #expect(laterBack?["hasBookmark"] as? Bool == true, "the path-only record got its bookmark: \(mounted)")
    // What the store file says afterwards, for every process.
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
    let records = try #require(object["records"] as? [[String: Any]])
    #expect(records.allSatisfy { ($0["isGone"] as? Bool) == false })
    #expect(records.allSatisfy { state($0) == "available" })
  }
}
