// Benchmarks for docbm, run with `swift run -c release DocbmBenchmarks` (or `make bench`).
// Each operation is timed next to a baseline measured in the same run, and reported as a
// ratio, so the figures hold across machines.

import CDocbmShims
import DocumentBookmarkStore
import DocumentBookmarks
import Foundation
import Glibc

/// Nanoseconds per call of `body`: the median of `rounds` batches of `iterations` calls.
func measure(iterations: Int, rounds: Int = 9, _ body: () throws -> Void) rethrows -> Double {
  try measureBatches(iterations: iterations, rounds: rounds, body).median
}

/// The median and the minimum of a set of timings.
struct Timings {
  var values: [Double] = []
  var median: Double { values.sorted()[values.count / 2] }
  var minimum: Double { values.min()! }
}

/// Nanoseconds per call of `body` in each of `rounds` batches of `iterations` calls.
func measureBatches(iterations: Int, rounds: Int, _ body: () throws -> Void) rethrows -> Timings {
  var timings = Timings()
  for _ in 0..<rounds {
    let start = DispatchTime.now().uptimeNanoseconds
    for _ in 0..<iterations { try body() }
    let end = DispatchTime.now().uptimeNanoseconds
    timings.values.append(Double(end - start) / Double(iterations))
  }
  return timings
}

/// `body` and `baseline` in `rounds` interleaved batches of `iterations` calls each (the
/// order alternating from round to round, after one batch of each to warm up), so that a
/// change in the machine's load falls on both alike.
func measurePaired(
  iterations: Int, rounds: Int = 15, _ body: () throws -> Void, against baseline: () throws -> Void
) rethrows -> (operation: Timings, baseline: Timings) {
  _ = try measureBatches(iterations: iterations, rounds: 1, body)
  _ = try measureBatches(iterations: iterations, rounds: 1, baseline)
  var operation = Timings()
  var base = Timings()
  for round in 0..<rounds {
    if round % 2 == 0 {
      operation.values += try measureBatches(iterations: iterations, rounds: 1, body).values
      base.values += try measureBatches(iterations: iterations, rounds: 1, baseline).values
    } else {
      base.values += try measureBatches(iterations: iterations, rounds: 1, baseline).values
      operation.values += try measureBatches(iterations: iterations, rounds: 1, body).values
    }
  }
  return (operation, base)
}

func format(_ nanoseconds: Double) -> String {
  nanoseconds >= 1_000_000
    ? String(format: "%.2f ms", nanoseconds / 1_000_000)
    : String(format: "%.2f µs", nanoseconds / 1_000)
}

/// Prints `rows` as a Markdown table with each ratio and its goal (judged on the medians),
/// and the minimums with their ratio where the row has them. Returns whether every goal
/// was met.
func printTable(_ rows: [Row]) -> Bool {
  print("| operation | time | baseline | baseline time | ratio | minimums (ratio) | goal |")
  print("|---|---:|---|---:|---:|---:|---|")
  var met = true
  for row in rows {
    let ratio = row.time / row.baseline
    var goal = ""
    if let limit = row.goal {
      let limitText = limit == limit.rounded() ? "\(Int(limit))" : String(format: "%.2f", limit)
      goal = ratio <= limit ? "≤ \(limitText)x: met" : "≤ \(limitText)x: NOT met"
      if ratio > limit { met = false }
    }
    var minimums = ""
    if let minimum = row.minimum, let baselineMinimum = row.baselineMinimum {
      minimums =
        "\(format(minimum)) / \(format(baselineMinimum)) (\(String(format: "%.2f", minimum / baselineMinimum))x)"
    }
    print(
      "| \(row.operation) | \(format(row.time)) | \(row.baselineName) | \(format(row.baseline)) | \(String(format: "%.2f", ratio))x | \(minimums) | \(goal) |"
    )
  }
  return met
}

struct Row {
  let operation: String
  let time: Double
  let baselineName: String
  let baseline: Double
  let goal: Double?
  /// The fastest round of each, for rows measured in rounds.
  var minimum: Double? = nil
  var baselineMinimum: Double? = nil

  init(operation: String, time: Double, baselineName: String, baseline: Double, goal: Double?) {
    self.operation = operation
    self.time = time
    self.baselineName = baselineName
    self.baseline = baseline
    self.goal = goal
  }

  /// A row from the rounds of an operation and its baseline: medians, and minimums beside
  /// them.
  init(
    operation: String, _ timings: (operation: Timings, baseline: Timings), baselineName: String, goal: Double?
  ) {
    self.init(
      operation: operation, time: timings.operation.median, baselineName: baselineName,
      baseline: timings.baseline.median, goal: goal)
    minimum = timings.operation.minimum
    baselineMinimum = timings.baseline.minimum
  }
}

func makeFile(_ path: String, _ contents: String = "data") {
  let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
  precondition(fd >= 0, "cannot create \(path)")
  _ = contents.withCString { write(fd, $0, strlen($0)) }
  close(fd)
}

func makeFolders(_ path: String) {
  var current = ""
  for part in path.split(separator: "/") {
    current += "/" + part
    mkdir(current, 0o755)
  }
}

// A scratch project on the filesystem of the temporary folder.
var template = Array(
  "\(ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp")/docbm-bench-XXXXXX".utf8CString)
let root = String(cString: realpath(mkdtemp(&template)!, nil)!)

func run(_ tool: String, _ arguments: [String]) -> Int32 {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: tool)
  process.arguments = arguments
  try? process.run()
  process.waitUntilExit()
  return process.terminationStatus
}

// `DocbmBenchmarks checking-tree FOLDER COUNT [ESCROW]` only builds a tree (its keys
// escrowed in ESCROW when given), for profiling by hand.
if CommandLine.arguments.dropFirst().first == "checking-tree", (4...5).contains(CommandLine.arguments.count),
  let count = Int(CommandLine.arguments[3])
{
  mkdir(CommandLine.arguments[2], 0o755)
  let escrow = CommandLine.arguments.dropFirst(4).first.map { KeyEscrow(folder: FilePath($0)) }
  try buildDocumentTree(CommandLine.arguments[2], count: count, escrow: escrow)
  _ = run("/bin/rm", ["-rf", root])
  exit(0)
}

// `DocbmBenchmarks crafted [MEGABYTES]`: check of crafted files against random bytes.
if CommandLine.arguments.dropFirst().first == "crafted" {
  let megabytes = CommandLine.arguments.dropFirst(2).first.flatMap { Int($0) } ?? 64
  let met = runCraftedBenchmark(root: root, megabytes: megabytes)
  _ = run("/bin/rm", ["-rf", root])
  exit(met ? 0 : 1)
}

// `DocbmBenchmarks hostile`: crafted escrow exports refused, against a real one's import;
// resolves beside another user's Trash, and the user's own large one.
if CommandLine.arguments.dropFirst().first == "hostile" {
  let met = runHostileInputBenchmark(root: root)
  _ = run("/bin/rm", ["-rf", root])
  exit(met ? 0 : 1)
}

// `DocbmBenchmarks escrow-tree [KEYS]`: a check of 100 documents with a large escrow,
// against one of their own keys.
if CommandLine.arguments.dropFirst().first == "escrow-tree" {
  guard let docbm = docbmBesideBenchmarks() else { exit(1) }
  let keys = CommandLine.arguments.dropFirst(2).first.flatMap { Int($0) } ?? 100_000
  let met = try runEscrowTreeBenchmark(root: root, docbm: docbm, keys: keys)
  _ = run("/bin/rm", ["-rf", root])
  exit(met ? 0 : 1)
}

// `DocbmBenchmarks find [ENTRIES]`: targets moved anywhere in a home of 1,000,000 entries,
// against `find -xdev -inum`.
if CommandLine.arguments.dropFirst().first == "find" {
  let entries = CommandLine.arguments.dropFirst(2).first.flatMap { Int($0) } ?? 1_000_000
  let met = runFindAnywhereBenchmark(root: root, entries: entries)
  print()
  let journal = runMoveJournalBenchmark(root: root)
  _ = run("/bin/rm", ["-rf", root])
  exit(met && journal ? 0 : 1)
}

// `DocbmBenchmarks watch`: lossy saves repaired while watching, and 10,000 folders watched.
if CommandLine.arguments.dropFirst().first == "watch" {
  let met = try runWatchBenchmark(root: root)
  _ = run("/bin/rm", ["-rf", root])
  exit(met ? 0 : 1)
}

// `DocbmBenchmarks resolve-profile COUNT [baseline]`: COUNT unmoved resolves and nothing
// else, to count instructions by hand (`valgrind --tool=callgrind`), which noise does not
// change, or to split user and kernel time (`/usr/bin/time`); with `baseline`, COUNT
// times the baseline's two system calls on the same files instead.
if CommandLine.arguments.dropFirst().first == "resolve-profile",
  (3...4).contains(CommandLine.arguments.count),
  let count = Int(CommandLine.arguments[2])
{
  let documentPath = "\(root)/project/board.json"
  let targetPath = "\(root)/project/images/cat.png"
  makeFolders("\(root)/project/images")
  makeFile(documentPath, "{}")
  makeFile(targetPath)
  let document = BookmarkService(escrow: nil).documents(anchoredOn: FilePath(documentPath))
  let bookmark = try document.makeBookmark(to: FilePath(targetPath))
  if CommandLine.arguments.count == 4, CommandLine.arguments[3] == "baseline" {
    var status = cdocbm_file_status()
    var value = [UInt8](repeating: 0, count: 256)
    let target = Array(targetPath.utf8CString)
    let document = Array(documentPath.utf8CString)
    let name = Array("user.docbm.key".utf8CString)
    for _ in 0..<count {
      _ = cdocbm_statx(AT_FDCWD, target, CDOCBM_AT_SYMLINK_NOFOLLOW, &status)
      _ = value.withUnsafeMutableBytes { cdocbm_getxattr(document, name, $0.baseAddress, $0.count) }
    }
  } else {
    for _ in 0..<count { _ = try document.resolve(bookmark) }
  }
  _ = run("/bin/rm", ["-rf", root])
  exit(0)
}

// `DocbmBenchmarks resolve-text DOCUMENT BOOKMARK ITERATIONS ROUNDS`: the median time of
// one resolve of a bookmark's text form (parsed, then resolved, as libdocbm's
// `docbm_resolve` does), in nanoseconds: the Swift side of Benchmarks/libdocbm/run.sh.
if CommandLine.arguments.dropFirst().first == "resolve-text", CommandLine.arguments.count == 6,
  let iterations = Int(CommandLine.arguments[4]), let rounds = Int(CommandLine.arguments[5])
{
  let document = BookmarkService(escrow: nil).documents(anchoredOn: FilePath(CommandLine.arguments[2]))
  let text = CommandLine.arguments[3]
  let time = try measure(iterations: iterations, rounds: rounds) {
    _ = try document.resolve(try Bookmark(text: text))
  }
  print(Int(time))
  _ = run("/bin/rm", ["-rf", root])
  exit(0)
}

// `DocbmBenchmarks store-add STORE TARGET ITERATIONS ROUNDS`: the median time of adding
// TARGET to the store at STORE and forgetting it again (two transactions), in nanoseconds:
// the Swift side of Benchmarks/libdocbm/run.sh's store row.
if CommandLine.arguments.dropFirst().first == "store-add", CommandLine.arguments.count == 6,
  let iterations = Int(CommandLine.arguments[4]), let rounds = Int(CommandLine.arguments[5])
{
  let store = StoreCore<String, NoMetadata>(
    file: FilePath(CommandLine.arguments[2]), policy: StorePolicy(), service: BookmarkService())
  let target = FilePath(CommandLine.arguments[3])
  let time = try measure(iterations: iterations, rounds: rounds) {
    _ = try store.add(target: target, key: "bench", metadata: NoMetadata())
    _ = try store.forget(["bench"])
  }
  print(Int(time))
  _ = run("/bin/rm", ["-rf", root])
  exit(0)
}

// `DocbmBenchmarks store [RECORDS]`: a store's load, change and refresh.
if CommandLine.arguments.dropFirst().first == "store" {
  let count = CommandLine.arguments.dropFirst(2).first.flatMap { Int($0) } ?? 10_000
  let met = try runStoreBenchmark(root: root, records: count)
  _ = run("/bin/rm", ["-rf", root])
  exit(met ? 0 : 1)
}

/// The `docbm` built beside this benchmark (`make bench` builds both), when there is one.
let siblingDocbm: String? = {
  let path = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    .appendingPathComponent("docbm").path
  return access(path, X_OK) == 0 ? path : nil
}()

// `DocbmBenchmarks store-profile RECORDS REPEATS [LOADS [REFRESHES]]`: a store of RECORDS
// records, then REPEATS adds and forgets of one more, LOADS loads of it by a fresh store and
// REFRESHES refreshes of every status, and nothing else, for `perf` by hand.
if CommandLine.arguments.dropFirst().first == "store-profile", (4...6).contains(CommandLine.arguments.count),
  let count = Int(CommandLine.arguments[2]), let repeats = Int(CommandLine.arguments[3])
{
  let loads = CommandLine.arguments.dropFirst(4).first.flatMap { Int($0) } ?? 0
  let refreshes = CommandLine.arguments.dropFirst(5).first.flatMap { Int($0) } ?? 0
  try profileStoreChanges(root: root, records: count, repeats: repeats, loads: loads, refreshes: refreshes)
  _ = run("/bin/rm", ["-rf", root])
  exit(0)
}

// `DocbmBenchmarks startup`: `docbm inspect` and `--version` against `getfattr`.
if CommandLine.arguments.dropFirst().first == "startup" {
  guard let docbm = siblingDocbm else {
    print("no docbm beside the benchmark: build it first (swift build -c release --product docbm)")
    exit(2)
  }
  let (startRows, note) = try runStartUpBenchmark(root: root, docbm: docbm)
  print(note)
  print("")
  let met = printTable(startRows)
  _ = run("/bin/rm", ["-rf", root])
  exit(met ? 0 : 1)
}

if CommandLine.arguments.dropFirst().first == "escrow" {
  guard let docbm = docbmBesideBenchmarks() else { exit(1) }
  let met = try runEscrowBenchmark(root: root, docbm: docbm)
  _ = run("/bin/rm", ["-rf", root])
  exit(met ? 0 : 1)
}

// `DocbmBenchmarks board`: boards of 1,000 and 10,000 bookmarks opened in one call.
if CommandLine.arguments.dropFirst().first == "board" {
  print("docbm board benchmarks (release build; medians and minimums of paired rounds)")
  print("load average: \(loadAverage()); \(ProcessInfo.processInfo.activeProcessorCount) cores")
  print("")
  let met = printTable(try runBoardBenchmark(root: root) + runScatteredBoardBenchmark(root: root))
  _ = run("/bin/rm", ["-rf", root])
  exit(met ? 0 : 1)
}

// `DocbmBenchmarks board-scattered`: the scattered board alone.
if CommandLine.arguments.dropFirst().first == "board-scattered" {
  let met = printTable(try runScatteredBoardBenchmark(root: root))
  _ = run("/bin/rm", ["-rf", root])
  exit(met ? 0 : 1)
}

// `DocbmBenchmarks board-profile COUNT unmoved|moved|renamed REPEATS`: one board opened
// REPEATS times and nothing else, for `strace -c` or `perf` by hand.
if CommandLine.arguments.dropFirst().first == "board-profile", CommandLine.arguments.count == 5,
  let count = Int(CommandLine.arguments[2]), let repeats = Int(CommandLine.arguments[4])
{
  let service = BookmarkService(searchBudget: SearchBudget(maximumEntries: 50_000), escrow: nil)
  let board = try makeBoard(at: "\(root)/board", count: count, service: service)
  for index in stride(from: 0, to: count, by: 10) {
    switch CommandLine.arguments[3] {
    case "moved": _ = rename("\(board.folder)/images/\(index).png", "\(board.folder)/archive/\(index).png")
    case "renamed":
      _ = rename("\(board.folder)/images/\(index).png", "\(board.folder)/images/\(index)-old.png")
    default: break
    }
  }
  for _ in 0..<repeats { _ = board.document.resolve(board.bookmarks) }
  _ = run("/bin/rm", ["-rf", root])
  exit(0)
}

if CommandLine.arguments.dropFirst().first == "checking" {
  let counts = CommandLine.arguments.dropFirst(2).compactMap { Int($0) }
  let met = try runCheckingBenchmark(root: root, counts: counts.isEmpty ? [10_000, 100_000] : counts)
  _ = run("/bin/rm", ["-rf", root])
  exit(met ? 0 : 1)
}

makeFolders("\(root)/project/images")
makeFolders("\(root)/project/a/b")
makeFolders("\(root)/project/c/d")
for index in 0..<200 {
  makeFolders("\(root)/project/filler/\(index % 10)")
  makeFile("\(root)/project/filler/\(index % 10)/file\(index).txt")
}
for index in 0..<50 { makeFile("\(root)/project/images/other\(index).png") }
let documentPath = "\(root)/project/board.json"
makeFile(documentPath, "{}")
let unmovedTarget = "\(root)/project/images/cat.png"
makeFile(unmovedTarget)
let renamedTarget = "\(root)/project/images/dog.png"
makeFile(renamedTarget)
let farTarget = "\(root)/project/a/b/fish.png"
makeFile(farTarget)
let shadowedTarget = "\(root)/project/images/bird.png"
makeFile(shadowedTarget)
let replacedTarget = "\(root)/project/images/notes.txt"
makeFile(replacedTarget)

let document = BookmarkService(escrow: nil).documents(anchoredOn: FilePath(documentPath))
let unmoved = try document.makeBookmark(to: FilePath(unmovedTarget))
let renamed = try document.makeBookmark(to: FilePath(renamedTarget))
let far = try document.makeBookmark(to: FilePath(farTarget))
let shadowed = try document.makeBookmark(to: FilePath(shadowedTarget))
let replaced = try document.makeBookmark(to: FilePath(replacedTarget))
_ = rename(renamedTarget, "\(root)/project/images/puppy.png")
_ = rename(farTarget, "\(root)/project/c/d/fish.png")
// Renamed, and a new file made under the old name: the identity search must win.
_ = rename(shadowedTarget, "\(root)/project/images/sparrow.png")
makeFile(shadowedTarget, "a new bird")
// Replaced by an atomic save: the search finds nothing, then the path wins.
makeFile(replacedTarget + ".tmp", "new notes")
_ = rename(replacedTarget + ".tmp", replacedTarget)

// Check that each scenario resolves as intended before timing it.
let checks = (
  try document.resolve(unmoved), try document.resolve(renamed), try document.resolve(far)
)
precondition(!checks.0.isStale, "the unmoved bookmark should resolve exactly")
precondition(checks.1.staleReasons == [.targetMoved], "the renamed target should be found by identity")
precondition(checks.2.path == FilePath("\(root)/project/c/d/fish.png"), "the far move should be found")
let shadowedResolution = try document.resolve(shadowed)
let replacedResolution = try document.resolve(replaced)
precondition(
  shadowedResolution.path == FilePath("\(root)/project/images/sparrow.png"),
  "the renamed original should win over the new file under its old name")
precondition(
  replacedResolution.staleReasons == [.identityChanged], "the replaced target should resolve by path")

// The baseline: the system calls an unmoved resolve cannot avoid, with the paths as C
// strings made once.
nonisolated(unsafe) var status = cdocbm_file_status()
nonisolated(unsafe) var keyBuffer = [UInt8](repeating: 0, count: 256)
let targetCString = Array(unmovedTarget.utf8CString)
let documentCString = Array(documentPath.utf8CString)
let keyName = Array("user.docbm.key".utf8CString)
func baselineCalls() {
  _ = cdocbm_statx(AT_FDCWD, targetCString, CDOCBM_AT_SYMLINK_NOFOLLOW, &status)
  _ = keyBuffer.withUnsafeMutableBytes {
    cdocbm_getxattr(documentCString, keyName, $0.baseAddress, $0.count)
  }
}

/// Each resolve scenario timed against the baseline in paired rounds.
func bookmarkRow(
  _ operation: String, iterations: Int, goal: Double? = nil, _ body: () throws -> Void
) rethrows -> Row {
  Row(
    operation: operation, try measurePaired(iterations: iterations, body, against: baselineCalls),
    baselineName: "statx + getxattr", goal: goal)
}

let rows: [Row] = [
  try bookmarkRow("create (makeBookmark)", iterations: 2_000) {
    _ = try document.makeBookmark(to: FilePath(unmovedTarget))
  },
  try bookmarkRow("resolve, unmoved", iterations: 20_000, goal: 2) { _ = try document.resolve(unmoved) },
  try bookmarkRow("resolve, renamed in its folder", iterations: 2_000) { _ = try document.resolve(renamed) },
  try bookmarkRow("resolve, moved two folders away", iterations: 200) { _ = try document.resolve(far) },
  try bookmarkRow("resolve, renamed, new file under the old name", iterations: 2_000) {
    _ = try document.resolve(shadowed)
  },
  try bookmarkRow("resolve, replaced by an atomic save", iterations: 200) {
    _ = try document.resolve(replaced)
  },
  Row(
    operation: "resolve, moved two folders away",
    try measurePaired(
      iterations: 200, { _ = try document.resolve(far) },
      against: {
        var folders = ["\(root)/project"]
        while let folder = folders.popLast() {
          guard let stream = opendir(folder) else { continue }
          while let entry = readdir(stream) {
            // The name read where it lies: a record can be shorter than `dirent`.
            let name = String(
              cString: (UnsafeRawPointer(entry) + MemoryLayout<dirent>.offset(of: \dirent.d_name)!)
                .assumingMemoryBound(to: CChar.self))
            if entry.pointee.d_type == DT_DIR, name != ".", name != ".." {
              folders.append(folder + "/" + name)
            }
          }
          closedir(stream)
        }
      }), baselineName: "readdir of the project tree", goal: nil),
]

// `DocbmBenchmarks bookmarks`: only the bookmark rows above.
if CommandLine.arguments.dropFirst().first == "bookmarks" {
  print("docbm bookmark benchmarks (release build; medians and minimums of 15 paired rounds)")
  print("load average: \(loadAverage()); \(ProcessInfo.processInfo.activeProcessorCount) cores")
  print("")
  let met = printTable(rows)
  _ = run("/bin/rm", ["-rf", root])
  exit(met ? 0 : 1)
}

// Saving: replaceDocument against the minimal durable sequence and Foundation's atomic write.
func setAttributes(_ path: String) {
  for (name, size) in [("user.one", 16), ("user.two", 64), ("user.three", 256)] {
    let value = [UInt8](repeating: 0x61, count: size)
    _ = value.withUnsafeBytes { cdocbm_lsetxattr(path, name, $0.baseAddress, $0.count, 0) }
  }
}

/// The least a durable, attribute-keeping save must do, written directly.
func minimalDurableSave(_ data: [UInt8], to path: String, folder: String) {
  let temporary = path + ".minimal-tmp"
  let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
  precondition(fd >= 0)
  var offset = 0
  while offset < data.count {
    let written = data.withUnsafeBytes { write(fd, $0.baseAddress! + offset, data.count - offset) }
    precondition(written > 0)
    offset += written
  }
  let source = open(path, O_RDONLY | O_CLOEXEC)
  var messages = [CChar](repeating: 0, count: 256)
  _ = cdocbm_attr_copy_fd(path, source, temporary, fd, &messages, messages.count)
  var status = stat()
  fstat(source, &status)
  fchmod(fd, status.st_mode & 0o7777)
  close(source)
  precondition(fsync(fd) == 0)
  close(fd)
  precondition(rename(temporary, path) == 0)
  let folderFD = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
  precondition(fsync(folderFD) == 0)
  close(folderFD)
}

/// User plus system CPU time of this process so far, in nanoseconds.
func cpuNanoseconds() -> Double {
  var usage = rusage()
  getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
  let user = Double(usage.ru_utime.tv_sec) * 1e9 + Double(usage.ru_utime.tv_usec) * 1e3
  let system = Double(usage.ru_stime.tv_sec) * 1e9 + Double(usage.ru_stime.tv_usec) * 1e3
  return user + system
}

/// The 1-, 5- and 15-minute load averages.
func loadAverage() -> String {
  guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return "unknown" }
  return text.split(separator: " ").prefix(3).joined(separator: " ")
}

/// Makes the folder `folder` and, as root, mounts a tmpfs of its own on it (2 GiB, no inode
/// limit), so that what a benchmark builds there costs no disk flushes and a walk of its
/// filesystem walks only it. Returns whether it mounted one; the caller unmounts it.
func makeFolderOnOwnTmpfs(_ folder: String) -> Bool {
  makeFolders(folder)
  return geteuid() == 0
    && run("/bin/mount", ["-t", "tmpfs", "-o", "size=2g,nr_inodes=0", "none", folder]) == 0
}

/// Whether `path` is a tmpfs mount point (from /proc/self/mounts).
func isTmpfs(_ path: String) -> Bool {
  guard let mounts = try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8) else { return false }
  return mounts.split(separator: "\n").contains { line in
    let fields = line.split(separator: " ")
    return fields.count > 2 && fields[1] == path && fields[2] == "tmpfs"
  }
}

var saveRows: [Row] = []
/// CPU time per call of each save phase, beside the wall-clock rows.
var cpuRows: [Row] = []
let loadBefore = loadAverage()

/// The saves of one folder: replaceDocument, the minimal durable sequence and
/// Data.write(.atomic), in interleaved rounds, at three sizes. `fillers` extra entries
/// are made in the folder first.
@MainActor func measureSaves(in folder: String, place: String, fillers: Int, goal: Double) throws {
  makeFolders(folder)
  for index in 0..<fillers { makeFile("\(folder)/entry-\(index)", "") }
  for (label, size, iterations, rounds) in [
    ("4 KiB", 4 << 10, 200, 15), ("1 MiB", 1 << 20, 20, 15), ("64 MiB", 64 << 20, 1, 7),
  ] {
    let bytes = [UInt8](repeating: 0x62, count: size)
    let data = Data(bytes)
    let path = "\(folder)/doc-\(size)"
    makeFile(path)
    let saved = BookmarkService(escrow: nil).documents(anchoredOn: FilePath(path))
    _ = try saved.makeBookmark(to: FilePath(unmovedTarget))
    setAttributes(path)
    // Interleave the three, in a rotating order, each phase starting from a flushed
    // filesystem (`sync`), so that no phase pays for another's pending metadata.
    var times: [[Double]] = [[], [], []]
    var cpu: [[Double]] = [[], [], []]
    let phases: [() throws -> Void] = [
      { try saved.replaceDocument(with: data) },
      { minimalDurableSave(bytes, to: path, folder: folder) },
      { try data.write(to: URL(fileURLWithPath: path + ".atomic"), options: .atomic) },
    ]
    for round in 0..<rounds {
      for offset in 0..<3 {
        let phase = (round + offset) % 3
        sync()
        let cpuStart = cpuNanoseconds()
        times[phase].append(try measure(iterations: iterations, rounds: 1, phases[phase]))
        cpu[phase].append((cpuNanoseconds() - cpuStart) / Double(iterations))
      }
    }
    let keptKey = try saved.keyFingerprint()
    precondition(keptKey != nil, "the saves must keep the key")
    let operation = "replaceDocument, \(label), \(place)"
    let timed = times.map { Timings(values: $0) }
    let used = cpu.map { Timings(values: $0) }
    saveRows.append(
      Row(operation: operation, (timed[0], timed[1]), baselineName: "minimal durable sequence", goal: goal))
    saveRows.append(
      Row(operation: operation, (timed[0], timed[2]), baselineName: "Data.write(.atomic)", goal: nil))
    cpuRows.append(
      Row(
        operation: operation + " (CPU time)", (used[0], used[1]), baselineName: "minimal durable sequence",
        goal: nil))
  }
}

try measureSaves(in: "\(root)/saves", place: "empty folder", fillers: 0, goal: 1.10)
try measureSaves(in: "\(root)/big", place: "10,000 entries", fillers: 10_000, goal: 1.10)
// tmpfs, where flushes cost nothing and the save's own work shows: /dev/shm when it is
// tmpfs, else a note.
var tmpfsNote: String?
if isTmpfs("/dev/shm") {
  var shmTemplate = Array("/dev/shm/docbm-bench-XXXXXX".utf8CString)
  let shm = String(cString: mkdtemp(&shmTemplate)!)
  try measureSaves(in: "\(shm)/saves", place: "empty folder, tmpfs", fillers: 0, goal: 1.5)
  try measureSaves(in: "\(shm)/big", place: "10,000 entries, tmpfs", fillers: 10_000, goal: 1.5)
  _ = run("/bin/rm", ["-rf", shm])
} else {
  tmpfsNote = "tmpfs scenarios skipped: /dev/shm is not tmpfs"
}

// Start-up: docbm inspect against getfattr, when docbm was built beside the benchmark.
var startUpRows: [Row] = []
var startUpNote = "start-up skipped: no docbm beside the benchmark (make bench builds it)"
if let docbm = siblingDocbm {
  (startUpRows, startUpNote) = try runStartUpBenchmark(root: root, docbm: docbm)
}

print(
  "docbm benchmarks (release build; medians: 15 paired rounds for bookmarks, 15 interleaved rounds for saves, 7 at 64 MiB, 10 rounds of 100 calls for start-up)"
)
print(
  "load average before: \(loadBefore); after: \(loadAverage()); \(ProcessInfo.processInfo.activeProcessorCount) cores"
)
if let tmpfsNote { print(tmpfsNote) }
print(startUpNote)
print("")
let allMet = printTable(rows + saveRows + cpuRows + startUpRows)
_ = run("/bin/rm", ["-rf", root])
exit(allMet ? 0 : 1)
