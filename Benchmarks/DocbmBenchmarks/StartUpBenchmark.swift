import DocumentBookmarks
import Foundation
import Glibc

/// `docbm inspect DOC` against its floor, `inspect-floor DOC` (Benchmarks/floors/inspect.c,
/// built beside the benchmarks: the same attribute reads, escrow checks and look-up, with
/// the same SQLite, in plain C; goal ≤ 1.5x per call), with `getfattr -n user.docbm.key DOC`
/// and `docbm --version` for context; each run 100 times in a row, in 11 interleaved rounds
/// (the first only warms the caches); medians of the rounds, wall and CPU time. The
/// document carries a key that an escrow of one key (`DOCBM_ESCROW_DIR`) holds, as `docbm
/// bookmark` leaves it: with no bookmark in its bytes, its verdict depends on the escrow's
/// record, which `inspect` reads. A second document holds its bookmark, as an editor saves
/// it: its verdict comes from its key and bookmark alone, and `inspect` does not open the
/// escrow (goal ≤ 2x `getfattr`). Returns the rows and a note on the binary (size, whether
/// it is position-independent).
func runStartUpBenchmark(root: String, docbm: String) throws -> (rows: [Row], note: String) {
  let folder = "\(root)/start-up"
  makeFolders(folder)
  let escrow = KeyEscrow(folder: FilePath("\(folder)/escrow"))
  let document = "\(folder)/notes.md"
  makeFile(document, "# Notes\n")
  makeFile("\(folder)/picture.png")
  _ = try BookmarkService(escrow: escrow).documents(anchoredOn: FilePath(document))
    .makeBookmark(to: FilePath("\(folder)/picture.png"))
  let board = "\(folder)/board.json"
  makeFile(board, "{}")
  let boardDocument = BookmarkService(escrow: escrow).documents(anchoredOn: FilePath(board))
  let bookmark = try boardDocument.makeBookmark(to: FilePath("\(folder)/picture.png"))
  try boardDocument.replaceDocument(with: Data("{\"picture\": \"\(bookmark.text)\"}\n".utf8))
  let environment = ["DOCBM_ESCROW_DIR=\(escrow.folder)"]
  guard let floor = floorBeside(docbm, named: "inspect") else { exit(1) }
  let commands: [(name: String, arguments: [String])] = [
    ("docbm inspect DOC", [docbm, "inspect", document]),
    ("getfattr -n user.docbm.key DOC", ["/usr/bin/getfattr", "-n", "user.docbm.key", document]),
    ("docbm --version", [docbm, "--version"]),
    ("docbm inspect BOARD", [docbm, "inspect", board]),
    ("inspect-floor DOC", [floor, document]),
  ]
  for command in commands {
    let run = measureChild(command.arguments, environment: environment)
    precondition(run.status == 0, "\(command.name) failed (exit \(run.status))")
  }
  let calls = 100
  var wall: [[Double]] = Array(repeating: [], count: commands.count)
  var cpu: [[Double]] = Array(repeating: [], count: commands.count)
  for round in 0..<11 {
    for offset in commands.indices {
      let index = (round + offset) % commands.count
      var seconds = 0.0
      var cpuSeconds = 0.0
      for _ in 0..<calls {
        let run = measureChild(commands[index].arguments, environment: environment)
        seconds += run.seconds
        cpuSeconds += run.cpuSeconds
      }
      if round > 0 {
        wall[index].append(seconds / Double(calls) * 1e9)
        cpu[index].append(cpuSeconds / Double(calls) * 1e9)
      }
    }
  }
  // Medians, with the fastest round of each beside them.
  let timings = { (values: [Double]) in Timings(values: values) }
  let rows = [
    Row(
      operation: "docbm inspect DOC, per call", (timings(wall[0]), timings(wall[4])),
      baselineName: "the C floor, \(commands[4].name)", goal: 1.5),
    Row(
      operation: "docbm inspect DOC, per call", (timings(wall[0]), timings(wall[1])),
      baselineName: commands[1].name, goal: nil),
    Row(
      operation: "docbm inspect BOARD (holding its bookmark), per call", (timings(wall[3]), timings(wall[1])),
      baselineName: commands[1].name, goal: 2),
    Row(
      operation: "docbm --version, per call", (timings(wall[2]), timings(wall[1])),
      baselineName: commands[1].name, goal: nil),
    Row(
      operation: "docbm inspect DOC, per call (CPU time)", (timings(cpu[0]), timings(cpu[4])),
      baselineName: "the C floor", goal: nil),
  ]
  var status = stat()
  stat(docbm, &status)
  let kind = elfKind(docbm)
  let note =
    "docbm: \(Int(status.st_size) >> 20) MiB, \(kind); start-up measured over \(calls) calls per round, 10 rounds"
  return (rows, note)
}

/// Whether an ELF file is a position-independent executable (`ET_DYN`) or one linked at a
/// fixed address (`ET_EXEC`, as a static executable is).
private func elfKind(_ path: String) -> String {
  guard let handle = FileHandle(forReadingAtPath: path), let header = try? handle.read(upToCount: 18),
    header.count == 18
  else { return "not readable" }
  switch UInt16(header[16]) | UInt16(header[17]) << 8 {
  case 2: return "linked at a fixed address (ET_EXEC: no address randomisation of its own code and data)"
  case 3: return "position-independent (ET_DYN)"
  default: return "not an executable"
  }
}
