import DocumentBookmarkStore
import DocumentBookmarks
import Foundation
import Glibc

/// `DocbmBenchmarks store [RECORDS]`: a store of RECORDS records (default 10,000) on this
/// filesystem: loading it; one change against one `replaceDocument` of a file of the
/// store's size in the same folder (goal ≤ 1.2x), and the changes of one journal cycle
/// (until the journal is folded into the file) with their cost per change and the slowest;
/// a whole write; a load with the longest journal; refreshing every status against resolving
/// the same bookmarks directly, both on every core (goal ≤ 2x). Returns whether the goals
/// were met.
func runStoreBenchmark(root: String, records count: Int) throws -> Bool {
  let folder = "\(root)/store"
  makeFolders("\(folder)/targets")
  for index in 0..<count {
    if index % 1000 == 0 { makeFolders("\(folder)/targets/\(index / 1000)") }
    makeFile("\(folder)/targets/\(index / 1000)/file\(index).txt")
  }
  let storePath = FilePath("\(folder)/store.json")
  let store = StoreCore<String, NoMetadata>(
    file: storePath, policy: StorePolicy(), service: BookmarkService())
  let targets = (0..<count).map { index in
    (
      target: FilePath("\(folder)/targets/\(index / 1000)/file\(index).txt"), key: "record-\(index)",
      metadata: NoMetadata()
    )
  }
  _ = try store.add(targets: targets)
  var info = stat()
  precondition(stat(storePath.description, &info) == 0, "the store file was not written")
  let size = Int(info.st_size)

  // Load: a fresh store reading the file.
  let load = try measure(iterations: 1, rounds: 5) {
    _ = try StoreCore<String, NoMetadata>(file: storePath, policy: StorePolicy(), service: BookmarkService())
      .load()
  }
  // One change (a pin toggled) against one replaceDocument of as many bytes, interleaved.
  let same = BookmarkService().documents(anchoredOn: FilePath("\(folder)/same-size.json"))
  let bytes = Data(repeating: UInt8(ascii: "x"), count: size)
  try same.replaceDocument(with: bytes)
  var pinned = false
  var changes: [Double] = []
  var saves: [Double] = []
  for _ in 0..<15 {
    pinned.toggle()
    let flag = pinned
    changes.append(try measure(iterations: 1, rounds: 1) { _ = try store.setPinned("record-0", flag) })
    saves.append(try measure(iterations: 1, rounds: 1) { try same.replaceDocument(with: bytes) })
  }
  // Changes until the journal is folded into the file (a whole save, with the file's new
  // inode), then as many again less one, so that a load reads the longest journal.
  let journalPath = storePath.description + ".journal"
  func inode() -> UInt64 {
    var info = stat()
    precondition(stat(storePath.description, &info) == 0, "the store file is gone")
    return UInt64(info.st_ino)
  }
  let firstInode = inode()
  var cycle = 0
  var longest = 0.0
  let cycleStart = ContinuousClock.now
  repeat {
    pinned.toggle()
    let flag = pinned
    let one = try measure(iterations: 1, rounds: 1) { _ = try store.setPinned("record-1", flag) }
    longest = max(longest, one)
    cycle += 1
  } while inode() == firstInode && cycle < 1_000_000
  let cycleTime = seconds(ContinuousClock.now - cycleStart) * 1e9
  for _ in 0..<(cycle - 1) {
    pinned.toggle()
    _ = try store.setPinned("record-1", pinned)
  }
  stat(journalPath, &info)
  let journalSize = Int(info.st_size)
  let loadWithJournal = try measure(iterations: 1, rounds: 5) {
    _ = try StoreCore<String, NoMetadata>(file: storePath, policy: StorePolicy(), service: BookmarkService())
      .load()
  }
  let whole = try measure(iterations: 1, rounds: 5) { try store.compact() }
  // Every status refreshed, against resolving the same bookmarks directly on every core.
  let document = BookmarkService().documents(anchoredOn: storePath)
  let bookmarks = store.snapshot.records.compactMap(\.bookmark)
  let refresh = try measure(iterations: 1, rounds: 3) { _ = try store.refreshStatuses() }
  let direct = measure(iterations: 1, rounds: 3) {
    DispatchQueue.concurrentPerform(iterations: bookmarks.count) { index in
      _ = try? document.resolve(bookmarks[index])
    }
  }
  let rows: [(String, Double, String, Double, Double?)] = [
    ("load a store of \(count) records (\(size >> 10) KiB)", load, "read the file", readTime(storePath), nil),
    (
      "one change (pin): a journal line", middle(changes), "replaceDocument of \(size >> 10) KiB",
      middle(saves), 1.2
    ),
    (
      "\(cycle) changes, the last folding the journal in: per change", cycleTime / Double(cycle),
      "replaceDocument of \(size >> 10) KiB", middle(saves), nil
    ),
    (
      "the slowest of those \(cycle) changes", longest, "replaceDocument of \(size >> 10) KiB", middle(saves),
      nil
    ),
    ("write the store whole (compact)", whole, "replaceDocument of \(size >> 10) KiB", middle(saves), nil),
    (
      "load with a journal of \(cycle - 1) lines (\(journalSize >> 10) KiB)", loadWithJournal,
      "read the file",
      readTime(storePath), nil
    ),
    ("refresh every status", refresh, "resolve each bookmark, every core", direct, 2.0),
  ]
  print("docbm store benchmark (release build; load: median of 5, change: of 15 interleaved, refresh: of 3)")
  print("load average: \(loadAverage()); \(ProcessInfo.processInfo.activeProcessorCount) cores")
  print("")
  print("| operation | time | baseline | baseline time | ratio | goal |")
  print("|---|---:|---|---:|---:|---|")
  var met = true
  for (operation, time, baselineName, baseline, goal) in rows {
    let ratio = time / baseline
    var verdict = ""
    if let goal {
      verdict = ratio <= goal ? "≤ \(goal)x: met" : "≤ \(goal)x: NOT met"
      if ratio > goal { met = false }
    }
    print(
      "| \(operation) | \(format(time)) | \(baselineName) | \(format(baseline)) | \(String(format: "%.2f", ratio))x | \(verdict) |"
    )
  }
  return met
}

/// How long reading the file's bytes takes (the floor under any load).
private func readTime(_ path: FilePath) -> Double {
  measure(iterations: 1, rounds: 5) { _ = try? Data(contentsOf: path.url) }
}

/// The median of `samples`.
private func middle(_ samples: [Double]) -> Double { samples.sorted()[samples.count / 2] }
