import CDocbmShims
import DocumentBookmarks
import Foundation
import Glibc

/// A finished child process: its exit status, wall time and peak resident memory.
struct ChildRun {
  let status: Int32
  let seconds: Double
  let maxResidentKiB: Int
}

/// Runs `arguments` with standard output and error sent to /dev/null, and measures it.
func measureChild(_ arguments: [String]) -> ChildRun {
  var actions = posix_spawn_file_actions_t()
  posix_spawn_file_actions_init(&actions)
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
  defer { posix_spawn_file_actions_destroy(&actions) }
  var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
  defer { argv.forEach { free($0) } }
  var pid: pid_t = 0
  let start = DispatchTime.now().uptimeNanoseconds
  guard posix_spawn(&pid, arguments[0], &actions, nil, &argv, environ) == 0 else {
    return ChildRun(status: -1, seconds: 0, maxResidentKiB: 0)
  }
  var status: Int32 = 0
  var usage = rusage()
  _ = wait4(pid, &status, 0, &usage)
  let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
  return ChildRun(status: (status >> 8) & 0xFF, seconds: seconds, maxResidentKiB: usage.ru_maxrss)
}

/// Builds a tree of `count` small documents: half hold a bookmark to a file beside them,
/// a tenth (all among those) have lost their key.
func buildDocumentTree(_ root: String, count: Int) throws {
  for index in 0..<count {
    let folder = "\(root)/d\(index / 100)"
    if index % 100 == 0 {
      mkdir(folder, 0o755)
      makeFile("\(folder)/target.png", "png")
    }
    let path = "\(folder)/doc\(index).json"
    if index % 2 == 0 {
      makeFile(path, "{}")
      let document = BookmarkService().documents(anchoredOn: FilePath(path))
      let bookmark = try document.makeBookmark(to: FilePath("\(folder)/target.png"))
      makeFile(path, "{\"title\": \"document \(index)\", \"image\": \"\(bookmark.text)\"}\n")
      if index % 10 == 0 { _ = docbm_lremovexattr(path, "user.docbm.key") }
    } else {
      makeFile(
        path,
        "{\"title\": \"document \(index)\", \"text\": \"\(String(repeating: "lorem ipsum ", count: 20))\"}\n")
    }
  }
}

/// `DocbmBenchmarks checking`: `docbm check --recursive` against `getfattr -R -d` over the
/// same trees, and docbm's peak memory as the tree grows.
/// Returns whether every goal was met.
func runCheckingBenchmark(root: String, counts: [Int]) throws -> Bool {
  let executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
  let docbm = executable.appendingPathComponent("docbm").path
  guard FileManager.default.isExecutableFile(atPath: docbm) else {
    print("build docbm first: swift build -c release")
    return false
  }
  let getfattr = ["/usr/bin/getfattr", "/bin/getfattr"].first {
    FileManager.default.isExecutableFile(atPath: $0)
  }
  guard let getfattr else {
    print("getfattr is missing: apt-get install attr")
    return false
  }
  print("| documents | docbm check -r | getfattr -R -d | ratio | docbm peak memory | goal |")
  print("|---:|---:|---:|---:|---:|---|")
  var failed = false
  for count in counts {
    let tree = "\(root)/tree-\(count)"
    defer { _ = measureChild(["/bin/rm", "-rf", tree]) }
    mkdir(tree, 0o755)
    try buildDocumentTree(tree, count: count)
    sync()
    var checkTimes: [Double] = []
    var getfattrTimes: [Double] = []
    var peak = 0
    for round in 0..<11 {
      // Alternate which runs first; the first round only warms the caches.
      let order = round % 2 == 0 ? [0, 1] : [1, 0]
      for which in order {
        if which == 0 {
          let run = measureChild([docbm, "check", "--recursive", tree])
          precondition(run.status == 2, "docbm check should find the lost keys (exit 2), got \(run.status)")
          if round > 0 { checkTimes.append(run.seconds) }
          peak = max(peak, run.maxResidentKiB)
        } else {
          let run = measureChild([getfattr, "-R", "-d", tree])
          if round > 0 { getfattrTimes.append(run.seconds) }
        }
      }
    }
    let median = { (values: [Double]) in values.sorted()[values.count / 2] }
    let ratio = median(checkTimes) / median(getfattrTimes)
    let met = ratio <= 1.5
    if !met { failed = true }
    print(
      "| \(count) | \(String(format: "%.3f s", median(checkTimes))) | \(String(format: "%.3f s", median(getfattrTimes))) | \(String(format: "%.2fx", ratio)) | \(peak / 1024) MiB | ≤ 1.5x: \(met ? "met" : "NOT met") |"
    )
  }
  return !failed
}
