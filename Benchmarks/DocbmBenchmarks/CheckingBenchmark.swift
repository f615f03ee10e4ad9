import CDocbmShims
import DocumentBookmarks
import Foundation
import Glibc

/// The release `docbm` beside this benchmark's executable, or `nil` (saying how to build it)
/// when there is none.
func docbmBesideBenchmarks() -> String? {
  let docbm = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    .appendingPathComponent("docbm").path
  guard FileManager.default.isExecutableFile(atPath: docbm) else {
    print("build docbm first: swift build -c release --product docbm")
    return nil
  }
  return docbm
}

/// The C floor `name` (built from `Benchmarks/floors/NAME.c`) beside `docbm`, or `nil`
/// (saying how to build it) when there is none.
func floorBeside(_ docbm: String, named name: String) -> String? {
  let floor = URL(fileURLWithPath: docbm).deletingLastPathComponent().appendingPathComponent("\(name)-floor")
    .path
  guard FileManager.default.isExecutableFile(atPath: floor) else {
    print(
      "build the floor first: cc -O2 -o \(floor) Benchmarks/floors/\(name).c $(pkg-config --cflags --libs sqlite3 libsodium)"
    )
    return nil
  }
  return floor
}

/// A finished child process: its exit status, wall time, CPU time (user and system) and
/// peak resident memory.
struct ChildRun {
  let status: Int32
  let seconds: Double
  let maxResidentKiB: Int
  var cpuSeconds: Double = 0
}

/// Runs `arguments` with standard output and error sent to /dev/null, and measures it.
/// `environment` entries (`NAME=value`) are added to this process's environment.
func measureChild(_ arguments: [String], environment: [String] = []) -> ChildRun {
  var actions = posix_spawn_file_actions_t()
  posix_spawn_file_actions_init(&actions)
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
  defer { posix_spawn_file_actions_destroy(&actions) }
  var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
  defer { argv.forEach { free($0) } }
  var inherited: [String] = []
  var index = 0
  while let entry = environ[index] {
    inherited.append(String(cString: entry))
    index += 1
  }
  let names = Set(environment.map { $0.prefix { $0 != "=" } })
  let envp: [UnsafeMutablePointer<CChar>?] =
    (inherited.filter { !names.contains($0.prefix { $0 != "=" }) } + environment).map { strdup($0) } + [nil]
  defer { envp.forEach { free($0) } }
  var pid: pid_t = 0
  let start = DispatchTime.now().uptimeNanoseconds
  guard posix_spawn(&pid, arguments[0], &actions, nil, &argv, envp) == 0 else {
    return ChildRun(status: -1, seconds: 0, maxResidentKiB: 0)
  }
  var status: Int32 = 0
  var usage = rusage()
  _ = wait4(pid, &status, 0, &usage)
  let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
  let cpu =
    Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
    + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
  return ChildRun(
    status: (status >> 8) & 0xFF, seconds: seconds, maxResidentKiB: usage.ru_maxrss, cpuSeconds: cpu)
}

/// Builds a tree of `count` small documents: half hold a bookmark to a file beside them,
/// a tenth (all among those) have lost their key. With `escrow`, every key made is
/// escrowed there, as `docbm bookmark` does.
func buildDocumentTree(_ root: String, count: Int, escrow: KeyEscrow? = nil) throws {
  let service = BookmarkService(escrow: escrow)
  for index in 0..<count {
    let folder = "\(root)/d\(index / 100)"
    if index % 100 == 0 {
      mkdir(folder, 0o755)
      makeFile("\(folder)/target.png", "png")
    }
    let path = "\(folder)/doc\(index).json"
    if index % 2 == 0 {
      makeFile(path, "{}")
      let document = service.documents(anchoredOn: FilePath(path))
      let bookmark = try document.makeBookmark(to: FilePath("\(folder)/target.png"))
      makeFile(path, "{\"title\": \"document \(index)\", \"image\": \"\(bookmark.text)\"}\n")
      if index % 10 == 0 { _ = cdocbm_lremovexattr(path, "user.docbm.key") }
    } else {
      makeFile(
        path,
        "{\"title\": \"document \(index)\", \"text\": \"\(String(repeating: "lorem ipsum ", count: 20))\"}\n")
    }
  }
}

/// `DocbmBenchmarks checking`: `docbm check --recursive` over trees of documents against its
/// floor, `check-floor` (Benchmarks/floors/check.c: the same reads and checks in plain C),
/// on one core; on both cores against itself on one; and, as context, against
/// `getfattr -R -d` (which reads no contents) and, cold, `find -exec cat`.
/// Returns whether every goal was met.
func runCheckingBenchmark(root: String, counts: [Int]) throws -> Bool {
  guard let docbm = docbmBesideBenchmarks() else { return false }
  guard let floor = floorBeside(docbm, named: "check") else { return false }
  let getfattr = ["/usr/bin/getfattr", "/bin/getfattr"].first {
    FileManager.default.isExecutableFile(atPath: $0)
  }
  guard let getfattr else {
    print("getfattr is missing: apt-get install attr")
    return false
  }
  guard
    let taskset = ["/usr/bin/taskset", "/bin/taskset"].first(where: {
      FileManager.default.isExecutableFile(atPath: $0)
    })
  else {
    print("taskset is missing: apt-get install util-linux")
    return false
  }
  let oneCore = [taskset, "-c", "0"]
  // Dropping the page cache needs root; cold runs are skipped (and said so) without it.
  let canDropCaches = access("/proc/sys/vm/drop_caches", W_OK) == 0
  print(
    "| documents | escrow | docbm on | cache | baseline | \(CheckMeasurement.header) | docbm peak memory | goal |"
  )
  print("|---:|---|---|---|---|---:|---:|---:|---:|---:|---:|---|")
  var failed = false
  for count in counts {
    let tree = "\(root)/tree-\(count)"
    let empty = "\(root)/escrow-empty-\(count)"
    let filled = "\(root)/escrow-\(count)"
    defer { _ = measureChild(["/bin/rm", "-rf", tree, empty, filled]) }
    mkdir(tree, 0o755)
    mkdir(empty, 0o700)
    // Escrowing costs a safe save per key: trees up to 10,000 documents are built with
    // their keys escrowed and checked both ways; larger ones with an empty escrow only.
    let escrowed = count <= 10_000
    try buildDocumentTree(tree, count: count, escrow: escrowed ? KeyEscrow(folder: FilePath(filled)) : nil)
    sync()
    var scenarios: [(label: String, folder: String)] = [("empty", empty)]
    if escrowed { scenarios.append(("\(count / 2) keys", filled)) }
    for scenario in scenarios {
      let environment = ["DOCBM_ESCROW_DIR=\(scenario.folder)"]
      func row(_ cores: String, _ baselineName: String, _ result: CheckMeasurement, goal: String) {
        print(
          "| \(count) | \(scenario.label) | \(cores) | warm | \(baselineName) | \(result.cells) | \(result.peakKiB / 1024) MiB | \(goal) |"
        )
      }
      // One core, against the floor on the same core.
      let againstFloor = measureCheck(
        docbm: oneCore + [docbm], baseline: oneCore + [floor, tree], tree: tree, environment: environment)
      let floorMet = againstFloor.ratio <= 1.3
      if !floorMet { failed = true }
      row("one core", "check-floor, one core", againstFloor, goal: "≤ 1.3x: \(floorMet ? "met" : "NOT met")")
      // Both cores, against docbm on one: faster, for at most 1.3x the CPU time.
      let bothCores = measureCheck(
        docbm: [docbm], baseline: oneCore + [docbm, "check", "--recursive", tree], tree: tree,
        environment: environment)
      let coresMet = bothCores.ratio < 1 && bothCores.cpuRatio <= 1.3
      if !coresMet { failed = true }
      row(
        "both cores", "docbm check -r, one core", bothCores,
        goal: "< 1x, CPU ≤ 1.3x: \(coresMet ? "met" : "NOT met")")
      // Context: getfattr, which reads attributes and no contents.
      let context = measureCheck(
        docbm: oneCore + [docbm], baseline: oneCore + [getfattr, "-R", "-d", tree], tree: tree,
        environment: environment)
      row("one core", "getfattr -R -d, one core", context, goal: "context")
    }
    // Cold: the page cache dropped before each run, against reading every file's bytes.
    if canDropCaches {
      let result = measureCheck(
        docbm: [docbm], baseline: ["/usr/bin/find", tree, "-type", "f", "-exec", "cat", "{}", "+"],
        tree: tree,
        environment: ["DOCBM_ESCROW_DIR=\(empty)"], rounds: 5, cold: true)
      let met = result.ratio <= 1.2
      if !met { failed = true }
      print(
        "| \(count) | empty | both cores | cold | find -type f -exec cat {} + | \(result.cells) | \(result.peakKiB / 1024) MiB | ≤ 1.2x: \(met ? "met" : "NOT met") |"
      )
    }
  }
  if !canDropCaches {
    print("cold runs skipped: dropping the page cache needs root (/proc/sys/vm/drop_caches)")
  }
  return !failed
}

/// What ``measureCheck(docbm:baseline:tree:environment:rounds:cold:)`` measured: the
/// rounds' wall and CPU times of the check and of its baseline, and docbm's peak memory.
struct CheckMeasurement {
  var check = Timings()
  var baseline = Timings()
  var checkCPU = Timings()
  var baselineCPU = Timings()
  var peakKiB = 0

  /// The ratio of the medians of the wall times: what the goal is judged on.
  var ratio: Double { check.median / baseline.median }
  /// The ratio of the medians of the CPU times.
  var cpuRatio: Double { checkCPU.median / baselineCPU.median }

  /// The table's cells from the check's time to the ratio of CPU times: medians, then
  /// minimums, each with its ratio.
  var cells: String {
    let seconds = { (value: Double) in String(format: "%.3f s", value) }
    let ratio = { (a: Double, b: Double) in String(format: "%.2fx", a / b) }
    return
      "\(seconds(check.median)) | \(seconds(baseline.median)) | \(ratio(check.median, baseline.median)) | "
      + "\(seconds(check.minimum)) / \(seconds(baseline.minimum)) (\(ratio(check.minimum, baseline.minimum))) | "
      + "\(seconds(checkCPU.median)) / \(seconds(baselineCPU.median)) (\(ratio(checkCPU.median, baselineCPU.median)))"
  }

  /// The header cells that go with ``cells``.
  static let header = "docbm check -r | baseline time | ratio | minimums (ratio) | CPU time (ratio)"
}

/// `docbm check --recursive tree` (`docbm`: the command before `check`, a `taskset` prefix
/// included) and `baseline` in `rounds` alternating rounds, both with `environment` (the
/// same escrow); warm, the first round only warms the caches; `cold`, the page cache is
/// dropped before every run. Every check must exit with `status` (2: the tree holds
/// documents whose keys were lost).
func measureCheck(
  docbm: [String], baseline: [String], tree: String, environment: [String], rounds: Int = 11,
  cold: Bool = false, status expected: Int32 = 2
) -> CheckMeasurement {
  var measured = CheckMeasurement()
  for round in 0..<rounds {
    let order = round % 2 == 0 ? [0, 1] : [1, 0]
    for which in order {
      if cold { dropCaches() }
      if which == 0 {
        let run = measureChild(docbm + ["check", "--recursive", tree], environment: environment)
        precondition(run.status == expected, "docbm check should exit \(expected), got \(run.status)")
        if round > 0 || cold {
          measured.check.values.append(run.seconds)
          measured.checkCPU.values.append(run.cpuSeconds)
        }
        measured.peakKiB = max(measured.peakKiB, run.maxResidentKiB)
      } else {
        // The baseline reads the same escrow as the check it is compared with.
        let run = measureChild(baseline, environment: environment)
        if round > 0 || cold {
          measured.baseline.values.append(run.seconds)
          measured.baselineCPU.values.append(run.cpuSeconds)
        }
      }
    }
  }
  return measured
}

/// Writes dirty pages out and drops the page cache, dentries and inodes (root only).
private func dropCaches() {
  sync()
  guard let handle = FileHandle(forWritingAtPath: "/proc/sys/vm/drop_caches") else { return }
  handle.write(Data("3\n".utf8))
  try? handle.close()
}
