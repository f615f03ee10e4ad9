import CDocbmShims
import DocumentBookmarks
import Foundation
import Glibc

/// `DocbmBenchmarks escrow`: what the escrow's database costs where a user feels it.
///
/// 1. `docbm check -r` of 10,000 documents of which 4,500 are `cp -a` copies of one
///    document (they carry its key; 500 more are plain copies under other names, which
///    quote its bookmark: `quotesBookmarks`, so the check exits 0), against its floor,
///    `check-floor` (the same reads and checks in plain C) over the same tree and escrow,
///    both pinned to one core (goal ≤ 1.5x), and how many times a check changed the
///    database (goal: at most once per check; copies are not recorded, so none); and,
///    shown, the same check with an empty escrow folder, which tells the escrow's share
///    from the cost of verifying and resolving the copies' bookmarks (whose targets are
///    not where they were recorded), and `getfattr -R -d` of the tree, as context.
/// 2. `docbm inspect DOC` with a 10,000-key escrow against the same kind of document in an
///    escrow of its own key alone (goal ≤ 1.2x: the cost does not grow with the escrow),
///    100 calls per round, 11 interleaved rounds; and, shown, that one-key escrow against a
///    folder without a database (what opening SQLite costs).
/// 3. Repair of one document, just saved by a plain write that dropped its key, with the
///    10,000-key escrow against the same repair with an escrow of 51 keys
///    (`DocumentRepairer.repair`, 51 alternating rounds, a document of its own each round
///    on both sides; goal ≤ 1.2x: the cost does not grow with the escrow). Each side is one
///    repairer, as an editor or a tree's repair holds one: SQLite's check of the whole
///    database runs at its first write (the first round, which only warms up) and again
///    only when someone else changed the file.
///
/// Returns whether every goal was met.
func runEscrowBenchmark(root: String, docbm: String) throws -> Bool {
  guard let floor = floorBeside(docbm, named: "check") else { return false }
  let folder = "\(root)/escrow-benchmark"
  makeFolders(folder)
  defer { _ = run("/bin/rm", ["-rf", folder]) }
  let taskset = ["/usr/bin/taskset", "/bin/taskset"].first {
    FileManager.default.isExecutableFile(atPath: $0)
  }
  let pin = taskset.map { [$0, "-c", "0"] } ?? []
  var met = true

  // 1. The tree of copies.
  let tree = "\(folder)/tree"
  let copies = KeyEscrow(folder: FilePath("\(folder)/copies-escrow"))
  makeFolders(tree)
  makeFile("\(tree)/target.png", "png")
  let original = "\(tree)/original.json"
  makeFile(original, "{}")
  let bookmark = try BookmarkService(escrow: copies).documents(anchoredOn: FilePath(original))
    .makeBookmark(to: FilePath("\(tree)/target.png"))
  makeFile(original, "{\"title\": \"the original\", \"image\": \"\(bookmark.text)\"}\n")
  for index in 0..<9_999 {
    let sub = "\(tree)/d\(index / 100)"
    if index % 100 == 0 { makeFolders(sub) }
    let path = "\(sub)/doc\(index).json"
    if index % 20 < 9 {
      _ = run("/bin/cp", ["-a", original, path])  // 4,500 copies carrying the key
    } else if index % 20 == 9 {
      _ = run("/bin/cp", [original, path])  // 500 plain copies: no key
    } else {
      makeFile(
        path,
        "{\"title\": \"document \(index)\", \"text\": \"\(String(repeating: "lorem ipsum ", count: 20))\"}\n")
    }
  }
  sync()
  let database = copies.databasePath.description
  let before = modificationTime(database)
  let environment = ["DOCBM_ESCROW_DIR=\(copies.folder)"]
  let check = measureCheck(
    docbm: pin + [docbm], baseline: pin + [floor, tree], tree: tree, environment: environment, status: 0)
  let changed = modificationTime(database) != before
  let checkMet = check.ratio <= 1.5 && !changed
  met = met && checkMet
  let emptyFolder = "\(folder)/empty-escrow"
  mkdir(emptyFolder, 0o700)
  let withoutEscrow = measureCheck(
    docbm: pin + [docbm], baseline: pin + [floor, tree], tree: tree,
    environment: ["DOCBM_ESCROW_DIR=\(emptyFolder)"], status: 0)
  let context = measureCheck(
    docbm: pin + [docbm], baseline: pin + ["/usr/bin/getfattr", "-R", "-d", tree], tree: tree,
    environment: environment, status: 0)
  print("| what | docbm | baseline | ratio | minimums (ratio) | CPU time (ratio) | goal |")
  print("|---|---:|---:|---:|---:|---:|---|")
  print(
    "| check -r, 10,000 documents, 4,500 copies of one key, one core, against check-floor | \(check.cells) | ≤ 1.5x, no escrow write: \(checkMet ? "met" : "NOT met") (database \(changed ? "changed" : "unchanged") over \(check.check.values.count + 1) checks) |"
  )
  print(
    "| the same, the escrow folder empty | \(withoutEscrow.cells) | shown: the escrow's share is \(String(format: "%.2fx", check.check.median / withoutEscrow.check.median)) |"
  )
  print("| the same, against getfattr -R -d | \(context.cells) | context |")

  // 2. inspect with 10,000 keys.
  let full = KeyEscrow(folder: FilePath("\(folder)/full-escrow"))
  let documents = "\(folder)/documents"
  try makeEscrowedDocuments(in: documents, count: 10_000, escrow: full)
  let inspected = "\(documents)/doc5000.json"
  // The yardsticks: the same kind of document in an escrow of its own key alone, and in a
  // folder without a database.
  let single = KeyEscrow(folder: FilePath("\(folder)/one-key-escrow"))
  let alone = "\(folder)/alone"
  makeFolders(alone)
  makeFile("\(alone)/target.png", "png")
  makeFile("\(alone)/doc5000.json", "{}")
  _ = try BookmarkService(escrow: single).documents(anchoredOn: FilePath("\(alone)/doc5000.json"))
    .makeBookmark(to: FilePath("\(alone)/target.png"))
  let inspect = measurePairedChildren(
    [docbm, "inspect", inspected], environment: ["DOCBM_ESCROW_DIR=\(full.folder)"],
    against: [docbm, "inspect", "\(alone)/doc5000.json"],
    baselineEnvironment: ["DOCBM_ESCROW_DIR=\(single.folder)"])
  let inspectRatio = inspect.operation.median / inspect.baseline.median
  let inspectMet = inspectRatio <= 1.2
  met = met && inspectMet
  print(
    "| inspect, 10,000-key escrow against a one-key escrow, per call | \(format(inspect.operation.median)) | \(format(inspect.baseline.median)) | \(String(format: "%.2fx", inspectRatio)) | \(format(inspect.operation.minimum)) / \(format(inspect.baseline.minimum)) (\(String(format: "%.2fx", inspect.operation.minimum / inspect.baseline.minimum))) | | ≤ 1.2x: \(inspectMet ? "met" : "NOT met") |"
  )
  let bare = measurePairedChildren(
    [docbm, "inspect", "\(alone)/doc5000.json"], environment: ["DOCBM_ESCROW_DIR=\(single.folder)"],
    against: [docbm, "inspect", "\(alone)/doc5000.json"],
    baselineEnvironment: ["DOCBM_ESCROW_DIR=\(emptyFolder)"])
  print(
    "| inspect, one-key escrow against a folder without a database, per call | \(format(bare.operation.median)) | \(format(bare.baseline.median)) | \(String(format: "%.2fx", bare.operation.median / bare.baseline.median)) | \(format(bare.operation.minimum)) / \(format(bare.baseline.minimum)) | | shown |"
  )

  // 3. Repair of one document with 10,000 keys, against the same with 51 keys: a
  // document of its own each round on both sides, so that each repair writes what it
  // confirms.
  let few = KeyEscrow(folder: FilePath("\(folder)/few-key-escrow"))
  let fewDocuments = "\(folder)/few"
  try makeEscrowedDocuments(in: fewDocuments, count: 51, escrow: few)
  let repairer = DocumentRepairer(escrow: full)
  let yardstick = DocumentRepairer(escrow: few)
  var timings = Timings()
  var baseline = Timings()
  for round in 0..<51 {
    let runs = [
      (true, "\(documents)/doc\(round).json", repairer),
      (false, "\(fewDocuments)/doc\(round).json", yardstick),
    ]
    for (isFull, path, repairer) in round % 2 == 0 ? runs : runs.reversed() {
      _ = cdocbm_lremovexattr(path, "user.docbm.key")
      let start = DispatchTime.now().uptimeNanoseconds
      let report = repairer.repair(FilePath(path))
      let end = DispatchTime.now().uptimeNanoseconds
      precondition(report.action == .restored, "repair should restore the key: \(report.message)")
      guard round > 0 else { continue }
      if isFull {
        timings.values.append(Double(end - start))
      } else {
        baseline.values.append(Double(end - start))
      }
    }
  }
  let repairRatio = timings.median / baseline.median
  let repairMet = repairRatio <= 1.2
  met = met && repairMet
  print(
    "| repair of one document, 10,000-key escrow against a 51-key escrow | \(format(timings.median)) | \(format(baseline.median)) | \(String(format: "%.2fx", repairRatio)) | \(format(timings.minimum)) / \(format(baseline.minimum)) (\(String(format: "%.2fx", timings.minimum / baseline.minimum))) | | ≤ 1.2x: \(repairMet ? "met" : "NOT met") |"
  )
  return met
}

/// The modification time of `path` in nanoseconds, or 0 when it cannot be read.
/// `count` documents, `doc0.json` on, in `folder` (made), each with a bookmark to
/// `target.png` beside them and its key in `escrow`.
private func makeEscrowedDocuments(in folder: String, count: Int, escrow: KeyEscrow) throws {
  makeFolders(folder)
  makeFile("\(folder)/target.png", "png")
  let service = BookmarkService(escrow: escrow)
  for index in 0..<count {
    let path = "\(folder)/doc\(index).json"
    makeFile(path, "{}")
    _ = try service.documents(anchoredOn: FilePath(path)).makeBookmark(to: FilePath("\(folder)/target.png"))
  }
}

private func modificationTime(_ path: String) -> Int {
  var status = stat()
  guard stat(path, &status) == 0 else { return 0 }
  return status.st_mtim.tv_sec * 1_000_000_000 + status.st_mtim.tv_nsec
}

/// Wall time per run of `arguments` and of `baseline`, 100 runs a batch, in 11 interleaved
/// rounds (the first only warms the caches).
private func measurePairedChildren(
  _ arguments: [String], environment: [String], against baseline: [String], baselineEnvironment: [String]
) -> (operation: Timings, baseline: Timings) {
  var operation = Timings()
  var base = Timings()
  let batch = { (command: [String], environment: [String]) -> Double in
    var seconds = 0.0
    for _ in 0..<100 {
      let run = measureChild(command, environment: environment)
      precondition(run.status == 0, "\(command) failed (exit \(run.status))")
      seconds += run.seconds
    }
    return seconds / 100 * 1e9
  }
  for round in 0..<11 {
    let first = round % 2 == 0
    let a = first ? batch(arguments, environment) : 0
    let b = batch(baseline, baselineEnvironment)
    let c = first ? 0 : batch(arguments, environment)
    if round > 0 {
      operation.values.append(first ? a : c)
      base.values.append(b)
    }
  }
  return (operation, base)
}
