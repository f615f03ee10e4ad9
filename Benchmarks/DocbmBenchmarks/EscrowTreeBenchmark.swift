import DocumentBookmarks
import Foundation
import Glibc

/// `DocbmBenchmarks escrow-tree [KEYS]`: a check of a folder of 100 documents (each with a
/// key and a bookmark) with an escrow of `KEYS` keys (default 100,000: the folder's 100 and
/// others recorded for documents elsewhere), against the same check with an escrow of the
/// folder's own 100 keys; `docbm check -r` as a child process, 20 runs a batch, in 11
/// interleaved rounds (the first only warms the caches). As root, all of it is on a tmpfs
/// of its own, so that making the large escrow (a transaction per key, each flushed) takes
/// seconds, not a quarter of an hour; otherwise on the scratch folder's filesystem.
///
/// **Goal: within 1.2x: a check's cost follows the tree, not the escrow.** Then `docbm
/// inspect` of a document with a key and no bookmark (whose verdict the escrow's record
/// decides), beside the folder, 100 calls a batch, with the large escrow against the
/// folder's own (which records it too). **Goal:
/// within 1.2x.**
func runEscrowTreeBenchmark(root: String, docbm: String, keys: Int) throws -> Bool {
  let folder = "\(root)/escrow-tree"
  let mounted = makeFolderOnOwnTmpfs(folder)
  if mounted { print("(on a tmpfs of its own)") }
  defer { if mounted { _ = run("/bin/umount", [folder]) } }
  let tree = "\(folder)/tree"
  makeFolders(tree)
  makeFolders("\(folder)/elsewhere")
  let own = KeyEscrow(folder: FilePath("\(folder)/own-escrow"))
  let large = KeyEscrow(folder: FilePath("\(folder)/large-escrow"))
  makeFile("\(tree)/target.png", "png")
  let service = BookmarkService(escrow: own)
  for index in 0..<100 {
    let path = "\(tree)/doc\(index).json"
    makeFile(path, "{}")
    let document = service.documents(anchoredOn: FilePath(path))
    let bookmark = try document.makeBookmark(to: FilePath("\(tree)/target.png"))
    makeFile(path, "{\"image\": \"\(bookmark.text)\"}\n")
    guard let key = try document.readKey() else {
      print("cannot read the key of \(path)")
      return false
    }
    try large.deposit(key, document: FilePath(path))
  }
  // A document with a key and no bookmark, as `docbm bookmark` leaves it.
  let keyOnly = "\(folder)/inspected/notes.md"
  makeFolders("\(folder)/inspected")
  makeFile(keyOnly, "# Notes\n")
  _ = try service.documents(anchoredOn: FilePath(keyOnly)).makeBookmark(to: FilePath("\(tree)/target.png"))
  guard let keyOnlyKey = try service.documents(anchoredOn: FilePath(keyOnly)).readKey() else {
    print("cannot read the key of \(keyOnly)")
    return false
  }
  try large.deposit(keyOnlyKey, document: FilePath(keyOnly))
  // The other keys, each recorded for a document of its own elsewhere.
  for index in 0..<max(0, keys - 100) {
    let sub = "\(folder)/elsewhere/\(index / 1_000)"
    if index % 1_000 == 0 { makeFolders(sub) }
    let path = "\(sub)/\(index).json"
    makeFile(path, "{}")
    try large.deposit(DocumentKey.random(), document: FilePath(path))
  }
  /// Runs `arguments` `calls` times with `escrow`; the mean wall time per call.
  let batch = { (arguments: [String], calls: Int, escrow: KeyEscrow) -> Double in
    var seconds = 0.0
    for _ in 0..<calls {
      let run = measureChild(arguments, environment: ["DOCBM_ESCROW_DIR=\(escrow.folder)"])
      precondition(run.status == 0, "\(arguments.joined(separator: " ")) failed (exit \(run.status))")
      seconds += run.seconds
    }
    return seconds / Double(calls) * 1e9
  }
  /// Large against own, in 11 rounds that alternate which goes first (the first round
  /// only warms the caches).
  let paired = { (arguments: [String], calls: Int) -> (Timings, Timings) in
    var largeRuns = Timings()
    var ownRuns = Timings()
    for round in 0..<11 {
      let first = round % 2 == 0
      let a = first ? batch(arguments, calls, large) : 0
      let b = batch(arguments, calls, own)
      let c = first ? 0 : batch(arguments, calls, large)
      if round > 0 {
        largeRuns.values.append(first ? a : c)
        ownRuns.values.append(b)
      }
    }
    return (largeRuns, ownRuns)
  }
  return printTable([
    Row(
      operation: "check -r of 100 documents, an escrow of \(keys.formatted()) keys",
      paired([docbm, "check", "-r", tree], 20), baselineName: "an escrow of their 100 keys", goal: 1.2),
    Row(
      operation: "inspect of a key-only document, an escrow of \(keys.formatted()) keys",
      paired([docbm, "inspect", keyOnly], 100), baselineName: "an escrow of 101 keys", goal: 1.2),
  ])
}
