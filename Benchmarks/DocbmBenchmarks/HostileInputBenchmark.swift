import DocbmSystem
import DocumentBookmarks
import Foundation
import Glibc

/// Hostile input that must cost what honest input costs: crafted escrow exports
/// (``runHostileImportBenchmark(root:)``) and Trash folders (``runTrashBenchmark(root:)``).
func runHostileInputBenchmark(root: String) -> Bool {
  let imports = runHostileImportBenchmark(root: root)
  print()
  let trash = runTrashBenchmark(root: root)
  return imports && trash
}

/// `docbm escrow import` of crafted exports (`Tests/Fixtures/hostile-export.py`: an endless
/// recursive view, a view of 3,000,000 rows, a generated column of 100 MB per row, text in
/// an integer column) against the import of the real export they were made from, as child
/// processes in alternating rounds, each into a new escrow.
///
/// **Goal: each crafted export refused (exit 1) in under a second, and within 2x the time
/// of importing the real one.**
func runHostileImportBenchmark(root: String) -> Bool {
  guard let docbm = docbmBesideBenchmarks() else { return false }
  let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Tests/Fixtures/hostile-export.py").path
  guard run("/usr/bin/python3", ["-c", "import sqlite3"]) == 0 else {
    print("python3 with sqlite3 is needed to craft the exports")
    return false
  }
  makeFolders("\(root)/hostile")
  makeFile("\(root)/hostile/board.json", "{}")
  makeFile("\(root)/hostile/img.png")
  let escrow = KeyEscrow(folder: FilePath("\(root)/hostile/escrow"))
  let document = BookmarkService(escrow: escrow).documents(anchoredOn: FilePath("\(root)/hostile/board.json"))
  guard (try? document.makeBookmark(to: FilePath("\(root)/hostile/img.png"))) != nil,
    (try? escrow.exportKeys(to: FilePath("\(root)/hostile/real.docbm"))) != nil
  else {
    print("cannot make the real export")
    return false
  }
  let kinds = ["recursive-view", "large-view", "generated-column", "text-inode"]
  for kind in kinds {
    guard
      run("/usr/bin/python3", [script, "\(root)/hostile/real.docbm", kind, "\(root)/hostile/\(kind).docbm"])
        == 0
    else {
      print("cannot craft \(kind)")
      return false
    }
  }
  print("| export | bytes | docbm escrow import | the real export's | ratio | exit | goal |")
  print("|---|---:|---:|---:|---:|---:|---|")
  var failed = false
  var round = 0
  /// One import into an escrow of its own.
  func importing(_ file: String) -> ChildRun {
    round += 1
    return measureChild(
      [docbm, "escrow", "import", file], environment: ["DOCBM_ESCROW_DIR=\(root)/hostile/into-\(round)"])
  }
  let median = { (values: [Double]) in values.sorted()[values.count / 2] }
  for kind in kinds {
    let file = "\(root)/hostile/\(kind).docbm"
    var crafted: [Double] = []
    var real: [Double] = []
    var status: Int32 = 0
    for pass in 0..<9 {
      let order =
        pass % 2 == 0 ? [file, "\(root)/hostile/real.docbm"] : ["\(root)/hostile/real.docbm", file]
      for path in order {
        let run = importing(path)
        guard pass > 0 else { continue }
        if path == file {
          crafted.append(run.seconds)
          status = run.status
        } else {
          precondition(run.status == 0, "the real export should import, got exit \(run.status)")
          real.append(run.seconds)
        }
      }
    }
    let size = (try? FileStatus.of(FilePath(file), followSymlinks: false).size) ?? 0
    let ratio = median(crafted) / median(real)
    let met = status == 1 && crafted.max() ?? 1 < 1 && ratio <= 2
    if !met { failed = true }
    print(
      "| \(kind) | \(size) | \(String(format: "%.1f ms", median(crafted) * 1000)) | \(String(format: "%.1f ms", median(real) * 1000)) | \(String(format: "%.2fx", ratio)) | \(status) | refused, < 1 s, ≤ 2x: \(met ? "met" : "NOT met") |"
    )
  }
  return !failed
}

/// A resolve of a deleted target (the near search, then the Trash, then `notFoundNearby`) with a
/// home Trash of 100,000 info files naming other paths, against the same resolve with no
/// Trash: a Trash another user made (owned by `nobody`, as one on a tmpfs `/tmp`'s top
/// would be; its info files sparse, 1 GiB each), and the user's own (read up to the bound
/// of 10,000 info files).
///
/// **Goal: another user's Trash within 1.5x of no Trash.** The user's own is reported
/// with its cost; its bound is what keeps it under a second.
func runTrashBenchmark(root: String) -> Bool {
  guard geteuid() == 0 else {
    print("the Trash rows need root (a Trash given to another user): skipped")
    return true
  }
  let folder = "\(root)/trash-bench"
  makeFolders("\(folder)/project")
  makeFile("\(folder)/project/board.json", "{}")
  makeFile("\(folder)/project/img.png")
  // The nearby search only: the rows measure the Trash, not a walk of the filesystem.
  let document = BookmarkService(searchBudget: .nearby, escrow: nil).documents(
    anchoredOn: FilePath("\(folder)/project/board.json"))
  guard let bookmark = try? document.makeBookmark(to: FilePath("\(folder)/project/img.png")) else {
    print("cannot make the bookmark")
    return false
  }
  unlink("\(folder)/project/img.png")
  let trashes = ["none": "\(folder)/none", "theirs": "\(folder)/theirs", "own": "\(folder)/own"]
  for (name, data) in trashes where name != "none" {
    makeFolders("\(data)/Trash/info")
    makeFolders("\(data)/Trash/files")
    for index in 0..<100_000 {
      let path = "\(data)/Trash/info/item-\(index).trashinfo"
      makeFile(path, "[Trash Info]\nPath=/elsewhere/item-\(index)\n")
      if name == "theirs" { truncate(path, 1 << 30) }
    }
    if name == "theirs" {
      for path in ["\(data)/Trash", "\(data)/Trash/info"] { chown(path, 65534, 65534) }
    }
  }
  makeFolders("\(folder)/none")
  let previous = getenv("XDG_DATA_HOME").map { String(cString: $0) }
  defer {
    if let previous { setenv("XDG_DATA_HOME", previous, 1) } else { unsetenv("XDG_DATA_HOME") }
  }
  /// One resolve with the home Trash in `data`; it must say `missing`.
  func resolve(_ data: String) {
    setenv("XDG_DATA_HOME", data, 1)
    do {
      _ = try document.resolve(bookmark)
      preconditionFailure("a deleted target resolved")
    } catch {
      precondition(error.code == .notFoundNearby, "expected notFoundNearby, got \(error.code)")
    }
  }
  let theirs = measurePaired(
    iterations: 5, rounds: 9, { resolve(trashes["theirs"]!) }, against: { resolve(trashes["none"]!) })
  let own = measurePaired(
    iterations: 1, rounds: 5, { resolve(trashes["own"]!) }, against: { resolve(trashes["none"]!) })
  return printTable([
    Row(
      operation: "resolve a deleted target, another user's Trash of 100,000 sparse info files", theirs,
      baselineName: "no Trash", goal: 1.5),
    Row(
      operation: "resolve a deleted target, the user's Trash of 100,000 info files (10,000 read)", own,
      baselineName: "no Trash", goal: nil),
  ])
}
