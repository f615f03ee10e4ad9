import DocumentBookmarks
import Foundation
import Glibc

/// `docbm escrow import` of crafted exports (`Tests/Fixtures/hostile-export.py`: an endless
/// recursive view, a view of 3,000,000 rows, a generated column of 100 MB per row, text in
/// an integer column) against the import of the real export they were made from, as child
/// processes in alternating rounds, each into a new escrow.
///
/// **Goal: each crafted export refused (exit 1) in under a second, and within 2x the time
/// of importing the real one.**
func runHostileImportBenchmark(root: String) -> Bool {
  let executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
  let docbm = executable.appendingPathComponent("docbm").path
  let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Tests/Fixtures/hostile-export.py").path
  guard FileManager.default.isExecutableFile(atPath: docbm) else {
    print("build docbm first: swift build -c release --product docbm")
    return false
  }
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
      run("/usr/bin/python3", [script, "\(root)/hostile/real.docbm", kind, "\(root)/hostile/\(kind).docbm"]) == 0
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
      let order = pass % 2 == 0 ? [file, "\(root)/hostile/real.docbm"] : ["\(root)/hostile/real.docbm", file]
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
