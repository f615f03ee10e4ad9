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
  let perCall = try measureChangesBySize(folder: folder, large: store, largeCount: count)
  let plain = measure(iterations: 1, rounds: 5) {
    let bytes = try! Data(contentsOf: storePath.url)
    _ = try! JSONDecoder().decode(PlainStore.self, from: bytes)
  }
  let rows: [(String, Double, String, Double, Double?)] =
    perCall + [
      ("load a store of \(count) records", load, "JSONDecoder into plain structs", plain, 3),
      (
        "load a store of \(count) records (\(size >> 10) KiB)", load, "read the file", readTime(storePath),
        nil
      ),
      (
        "one change (pin): a journal line", middle(changes), "replaceDocument of \(size >> 10) KiB",
        middle(saves), 1.2
      ),
      (
        "\(cycle) changes, the last folding the journal in: per change", cycleTime / Double(cycle),
        "replaceDocument of \(size >> 10) KiB", middle(saves), nil
      ),
      (
        "the slowest of those \(cycle) changes", longest, "replaceDocument of \(size >> 10) KiB",
        middle(saves),
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

/// `add`, `forget`, `pin` and `markUsed` on the large store against the
/// same call on a store of 10 records in the same folder, interleaved one call each, 31
/// rounds; medians (goal ≤ 1.5x). Each change appends a journal line and flushes it.
private func measureChangesBySize(
  folder: String, large: StoreCore<String, NoMetadata>, largeCount: Int
) throws -> [(String, Double, String, Double, Double?)] {
  makeFolders("\(folder)/small-targets")
  let small = StoreCore<String, NoMetadata>(
    file: FilePath("\(folder)/small.json"), policy: StorePolicy(), service: BookmarkService())
  _ = try small.add(
    targets: (0..<10).map { index in
      makeFile("\(folder)/small-targets/file\(index).txt")
      return (FilePath("\(folder)/small-targets/file\(index).txt"), "record-\(index)", NoMetadata())
    })
  makeFile("\(folder)/extra.txt")
  let extra = FilePath("\(folder)/extra.txt")
  let stores = [small, large]
  var times = Array(repeating: Array(repeating: [Double](), count: 4), count: 2)
  for round in 0..<31 {
    let flag = round % 2 == 0
    for (which, store) in stores.enumerated() {
      let calls: [() throws -> Void] = [
        { _ = try store.add(target: extra, key: "extra", metadata: NoMetadata()) },
        { _ = try store.forget(["extra"]) },
        { _ = try store.setPinned("record-5", flag) },
        { _ = try store.markUsed("record-5") },
      ]
      for (index, call) in calls.enumerated() {
        times[which][index].append(try measure(iterations: 1, rounds: 1, call))
      }
    }
  }
  let names = ["add", "forget", "pin", "markUsed"]
  let label = largeCount.formatted()
  return names.indices.map { index in
    (
      "\(names[index]) at \(label) records", middle(times[1][index]), "the same at 10 records",
      middle(times[0][index]), 1.5
    )
  }
}

/// A store of `count` records, then `repeats` adds and forgets of one more.
func profileStoreChanges(root: String, records count: Int, repeats: Int) throws {
  let folder = "\(root)/store"
  makeFolders("\(folder)/targets")
  let store = StoreCore<String, NoMetadata>(
    file: FilePath("\(folder)/store.json"), policy: StorePolicy(), service: BookmarkService())
  _ = try store.add(
    targets: (0..<count).map { index in
      makeFile("\(folder)/targets/file\(index).txt")
      return (FilePath("\(folder)/targets/file\(index).txt"), "record-\(index)", NoMetadata())
    })
  makeFile("\(folder)/extra.txt")
  for _ in 0..<repeats {
    _ = try store.add(target: FilePath("\(folder)/extra.txt"), key: "extra", metadata: NoMetadata())
    _ = try store.forget(["extra"])
  }
}

/// The store file's shape as plain `Decodable` structs: the baseline of a load, which also
/// decodes each bookmark's fields and keeps members it does not know.
private struct PlainStore: Decodable {
  struct Time: Decodable {
    let seconds: Int64
    let nanoseconds: UInt32
  }
  struct Status: Decodable { let state: String }
  struct Record: Decodable {
    let key: String
    let bookmark: String?
    let path: String
    let created: Time
    let refreshed: Time?
    let lastUsed: Time?
    let pinned: Bool?
    let status: Status
    let metadata: [String: String]
  }
  let format: String
  let schemaVersion: Int
  let journal: String?
  let records: [Record]
}

/// How long reading the file's bytes takes (the floor under any load).
private func readTime(_ path: FilePath) -> Double {
  measure(iterations: 1, rounds: 5) { _ = try? Data(contentsOf: path.url) }
}

/// The median of `samples`.
private func middle(_ samples: [Double]) -> Double { samples.sorted()[samples.count / 2] }
