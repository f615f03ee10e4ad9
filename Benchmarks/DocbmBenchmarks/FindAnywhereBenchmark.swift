import DocumentBookmarks
import Foundation
import Glibc

/// A target moved far from its old place, in a home of `entries` entries that is a
/// filesystem of its own (a tmpfs mounted on the home folder, so that its whole filesystem
/// is the home, as `find HOME -xdev` sees it): `docbm resolve` against
/// `find HOME -xdev -inum N`, the command a user would reach for, both as child processes
/// in alternating rounds, warm cache; and 100 such targets of one document resolved
/// together against one.
///
/// **Goals: a target found at the far end, and one truly gone, each within 1.0x of
/// `find`; 100 missing targets within 1.2x of one.**
func runFindAnywhereBenchmark(root: String, entries: Int) -> Bool {
  guard geteuid() == 0 else {
    print("the find rows need root (a tmpfs mounted as the home): skipped")
    return true
  }
  guard let docbm = docbmBesideBenchmarks() else { return false }
  let home = "\(root)/home"
  makeFolders(home)
  guard run("/bin/mount", ["-t", "tmpfs", "-o", "size=4g,nr_inodes=0", "none", home]) == 0 else {
    print("cannot mount a tmpfs on \(home): skipped")
    return true
  }
  defer { _ = run("/bin/umount", [home]) }
  // 20 top folders of 50 folders of 10 folders of files: a home of about `entries` entries.
  let leaves = 20 * 50 * 10
  let filesPerLeaf = max(1, entries / leaves - 1)
  for top in 0..<20 {
    for middle in 0..<50 {
      for leaf in 0..<10 {
        let folder = "\(home)/top\(top)/m\(middle)/leaf\(leaf)"
        makeFolders(folder)
        for file in 0..<filesPerLeaf {
          let fd = open("\(folder)/file\(file).jpg", O_CREAT | O_WRONLY | O_CLOEXEC, 0o644)
          if fd >= 0 { close(fd) }
        }
      }
    }
  }
  makeFolders("\(home)/Documents/board/img")
  makeFile("\(home)/Documents/board/board.json", "{}")
  let environment = ["HOME=\(home)"]
  setenv("HOME", home, 1)
  let document = BookmarkService(escrow: nil).documents(
    anchoredOn: FilePath("\(home)/Documents/board/board.json"))
  var bookmarks: [Bookmark] = []
  for index in 0..<101 {
    let path = "\(home)/Documents/board/img/\(index).png"
    makeFile(path, "\(index)")
    guard let bookmark = try? document.makeBookmark(to: FilePath(path)) else {
      print("cannot make the bookmarks")
      return false
    }
    bookmarks.append(bookmark)
  }
  // The first target to the far end (the folder made first: a tmpfs lists the newest
  // entries first, so the walk, breadth-first, lists it last), the others to folders all
  // over the home; the last one deleted.
  _ = rename("\(home)/Documents/board/img/0.png", "\(home)/top0/m0/leaf0/far.png")
  for index in 1..<100 {
    _ = rename(
      "\(home)/Documents/board/img/\(index).png",
      "\(home)/top\(index % 20)/m\(index % 50)/leaf\(index % 10)/\(index).png")
  }
  unlink("\(home)/Documents/board/img/100.png")
  var status = stat()
  stat("\(home)/top0/m0/leaf0/far.png", &status)
  let farInode = String(status.st_ino)
  let documentPath = "\(home)/Documents/board/board.json"

  /// `docbm resolve` of `bookmark` against `find`, alternating, 9 rounds after one to warm.
  func paired(_ bookmark: Bookmark) -> (operation: Timings, baseline: Timings, status: Int32) {
    var ours: [Double] = []
    var theirs: [Double] = []
    var lastStatus: Int32 = 0
    for round in 0..<10 {
      let resolve = {
        measureChild([docbm, "resolve", documentPath, bookmark.text], environment: environment)
      }
      let find = { measureChild(["/usr/bin/find", home, "-xdev", "-inum", farInode]) }
      let (first, second) = round % 2 == 0 ? (resolve(), find()) : (find(), resolve())
      let (mine, floor) = round % 2 == 0 ? (first, second) : (second, first)
      lastStatus = mine.status
      guard round > 0 else { continue }
      ours.append(mine.seconds * 1e9)
      theirs.append(floor.seconds * 1e9)
    }
    return (Timings(values: ours), Timings(values: theirs), lastStatus)
  }
  let far = paired(bookmarks[0])
  let gone = paired(bookmarks[100])
  guard far.status == 0, gone.status == 1 else {
    print("unexpected exit status: far \(far.status), gone \(gone.status)")
    return false
  }
  // 100 targets moved all over the home, resolved together, against the one at the far end.
  let batch = Array(bookmarks[0..<100])
  let hundred = measurePaired(
    iterations: 1, rounds: 7,
    {
      let results = document.resolve(batch)
      precondition(results.allSatisfy { (try? $0.get()) != nil }, "a moved target was not found")
    },
    against: { _ = document.resolve([bookmarks[0]]) })
  let count = entries.formatted()
  return printTable([
    Row(
      operation: "docbm resolve, the target moved to the far end of a home of \(count) entries",
      (far.operation, far.baseline), baselineName: "find HOME -xdev -inum N", goal: 1.0),
    Row(
      operation: "docbm resolve, the target deleted (missing after the whole home)",
      (gone.operation, gone.baseline), baselineName: "find HOME -xdev -inum N", goal: 1.0),
    Row(
      operation: "100 targets moved all over the home, resolved together", hundred,
      baselineName: "the one at the far end", goal: 1.2),
  ])
}

/// A target a watcher saw renamed far away, found through the renames it recorded
/// (`moves` in the escrow's folder, here with 1,000 other renames before the target's),
/// against the resolve of a target renamed in its own folder (found by the nearby search),
/// in process: both make the refreshed bookmark a stale resolve returns, so the ratio is
/// what finding a target far away costs over finding it beside its old place. The unmoved
/// resolve, which makes no bookmark, is shown for context.
///
/// **Goal: within 2x of the target renamed in its own folder.**
func runMoveJournalBenchmark(root: String) -> Bool {
  let folder = "\(root)/journal"
  makeFolders("\(folder)/project/img")
  makeFolders("\(folder)/archive/a/b/c/d/e/f")
  makeFolders("\(folder)/state")
  chmod("\(folder)/state", 0o700)
  makeFile("\(folder)/project/board.json", "{}")
  makeFile("\(folder)/project/img/moved.png", "moved")
  makeFile("\(folder)/project/img/still.png", "still")
  makeFile("\(folder)/project/img/renamed.png", "renamed")
  let escrow = KeyEscrow(folder: FilePath("\(folder)/state"))
  let document = BookmarkService(searchBudget: .nearby, escrow: escrow)
    .documents(anchoredOn: FilePath("\(folder)/project/board.json"))
  guard let moved = try? document.makeBookmark(to: FilePath("\(folder)/project/img/moved.png")),
    let still = try? document.makeBookmark(to: FilePath("\(folder)/project/img/still.png")),
    let renamed = try? document.makeBookmark(to: FilePath("\(folder)/project/img/renamed.png"))
  else {
    print("cannot make the bookmarks")
    return false
  }
  _ = rename("\(folder)/project/img/renamed.png", "\(folder)/project/img/renamed-again.png")
  let far = "\(folder)/archive/a/b/c/d/e/f/moved.png"
  _ = rename("\(folder)/project/img/moved.png", far)
  var status = stat()
  stat(far, &status)
  var lines = ""
  for index in 0..<1_000 {
    lines += "\(100_000 + index) - /home/ana/Pictures/2025/\(index).jpg /home/ana/Archive/2025/\(index).jpg\n"
  }
  lines += "\(status.st_ino) - \(folder)/project/img/moved.png \(far)\n"
  makeFile("\(folder)/state/moves", lines)
  chmod("\(folder)/state/moves", 0o600)
  let resolveMoved = {
    // A failed resolve stops the benchmark through the precondition, with its message.
    let resolution = try? document.resolve(moved)
    precondition(resolution?.path == FilePath(far), "the journal did not lead to the target")
  }
  // The baselines must succeed too: a failing one would be timed as a fast one.
  let timings = measurePaired(
    iterations: 200, rounds: 15, resolveMoved, against: { _ = try! document.resolve(renamed) })
  let unmoved = measurePaired(
    iterations: 200, rounds: 15, resolveMoved, against: { _ = try! document.resolve(still) })
  let nearby = measurePaired(
    iterations: 200, rounds: 15, { _ = try? document.resolve(renamed) },
    against: { _ = try? document.resolve(still) })
  // The same moved target located only, as the checker does: no refreshed bookmark made.
  // Each call here must succeed: a failure stops the benchmark, naming it.
  let key: DocumentKey
  do {
    guard let read = try document.readKey() else {
      print("the document has no key")
      return false
    }
    key = read
  } catch {
    print("cannot read the document's key: \(error)")
    return false
  }
  let located = measurePaired(
    iterations: 200, rounds: 15,
    {
      let resolution = try! document.resolve(moved, key: key, refreshing: false)
      precondition(resolution.path == FilePath(far), "the journal did not lead to the target")
    },
    against: { _ = try! document.resolve(still) })
  return printTable([
    Row(
      operation: "resolve a target a watcher saw moved far (journal of 1,001 renames)", timings,
      baselineName: "resolve of a target renamed in its folder", goal: 2.0),
    Row(
      operation: "the same, against a target that did not move (no bookmark made)", unmoved,
      baselineName: "unmoved resolve", goal: nil),
    Row(
      operation: "resolve a target renamed in its folder (found nearby, for comparison)", nearby,
      baselineName: "unmoved resolve", goal: nil),
    Row(
      operation: "the target the watcher saw moved, located only (no refreshed bookmark)", located,
      baselineName: "unmoved resolve", goal: nil),
  ])
}
