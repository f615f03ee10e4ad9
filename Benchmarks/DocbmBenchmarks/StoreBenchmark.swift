import DocbmSystem
import DocumentBookmarkStore
import DocumentBookmarks
import Foundation
import Glibc

/// `DocbmBenchmarks store [RECORDS]`: a store of RECORDS records (default 10,000) on this
/// filesystem: the library's changes and the command line's (`docbm store add`, `forget`,
/// `pin`) and a load that hears another process's change against the same on a store of 10
/// records (goal ≤ 1.5x); loading it against reading its rows with SQLite and decoding each
/// into plain structs (goal ≤ 1.5x); the slowest of a run of changes (one writes the last
/// good copy); a compaction; refreshing every status against resolving the same bookmarks
/// directly, both on every core (goal ≤ 2x). Returns whether the goals were met.
func runStoreBenchmark(root: String, records count: Int) throws -> Bool {
  let folder = "\(root)/store"
  makeFolders("\(folder)/targets")
  makeFolders("\(folder)/escrow")
  // The command line's escrow, not the user's.
  setenv("DOCBM_ESCROW_DIR", "\(folder)/escrow", 1)
  for index in 0..<count {
    if index % 1000 == 0 { makeFolders("\(folder)/targets/\(index / 1000)") }
    makeFile("\(folder)/targets/\(index / 1000)/file\(index).txt")
  }
  let storePath = FilePath("\(folder)/store.json")
  let store = StoreCore<String, NoMetadata>(
    file: storePath, policy: StorePolicy(), service: BookmarkService(escrow: nil))
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

  // Load: a fresh store reading the file, against the rows read and decoded plainly, in
  // alternating rounds (each first in turn), so that a busy moment weighs on both.
  let loadOnce = {
    _ = try StoreCore<String, NoMetadata>(
      file: storePath, policy: StorePolicy(), service: BookmarkService(escrow: nil)
    )
    .load()
  }
  let plainOnce = {
    let database = try SQLiteDatabase(storePath)
    let rows = try database.prepare("SELECT record FROM records ORDER BY position")
    let decoder = JSONDecoder()
    var records: [PlainRecord] = []
    while try rows.step() {
      let json = rows.withBytes(0) { Data(buffer: $0) }
      records.append(try decoder.decode(PlainRecord.self, from: json))
    }
    precondition(records.count == count, "the plain read found \(records.count) records")
  }
  var loads: [Double] = []
  var plains: [Double] = []
  for round in 0..<7 {
    for which in round % 2 == 0 ? [0, 1] : [1, 0] {
      if which == 0 {
        loads.append(try measure(iterations: 1, rounds: 1, loadOnce))
      } else {
        plains.append(try measure(iterations: 1, rounds: 1, plainOnce))
      }
    }
  }
  let load = middle(loads)
  let plain = middle(plains)
  // A run of changes: the slowest writes the last good copy.
  var pinned = false
  var slowest = 0.0
  var changes: [Double] = []
  for _ in 0..<200 {
    pinned.toggle()
    let flag = pinned
    let one = try measure(iterations: 1, rounds: 1) { _ = try store.setPinned("record-1", flag) }
    slowest = max(slowest, one)
    changes.append(one)
  }
  let same = BookmarkService(escrow: nil).documents(anchoredOn: FilePath("\(folder)/same-size.json"))
  let bytes = Data(repeating: UInt8(ascii: "x"), count: size)
  let save = try measure(iterations: 1, rounds: 5) { try same.replaceDocument(with: bytes) }
  let whole = try measure(iterations: 1, rounds: 3) { try store.compact() }
  // Every status refreshed, against resolving the same bookmarks directly on every core.
  let document = BookmarkService(escrow: nil).documents(anchoredOn: storePath)
  let bookmarks = try store.load().compactMap(\.bookmark)
  let refresh = try measure(iterations: 1, rounds: 3) { _ = try store.refreshStatuses() }
  let direct = measure(iterations: 1, rounds: 3) {
    DispatchQueue.concurrentPerform(iterations: bookmarks.count) { index in
      _ = try? document.resolve(bookmarks[index])
    }
  }
  let perCall = try measureChangesBySize(folder: folder, large: store, largeCount: count)
  let rows: [(String, Double, String, Double, Double?)] =
    perCall + [
      (
        "load a store of \(count) records", load, "its rows read, each decoded into plain structs", plain, 1.5
      ),
      ("one change (pin), median of 200", middle(changes), "replaceDocument of \(size >> 10) KiB", save, nil),
      (
        "the slowest of those 200 (it writes the last good copy)", slowest,
        "replaceDocument of \(size >> 10) KiB",
        save, nil
      ),
      ("compact (VACUUM, last good copy)", whole, "replaceDocument of \(size >> 10) KiB", save, nil),
      ("refresh every status", refresh, "resolve each bookmark, every core", direct, 2.0),
    ]
  print(
    "docbm store benchmark (release build; load: median of 7 alternating rounds, changes: of 31 interleaved, refresh: of 3)"
  )
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

/// `add`, `forget`, `pin` and `markUsed` on the large store against the same call on a
/// store of 10 records in the same folder, interleaved one call each, 31 rounds; then
/// `docbm store add`, `forget` and `pin` (a process each, when `docbm` is built beside the
/// benchmarks) likewise; then a load that hears another process's change; medians (goal
/// ≤ 1.5x).
private func measureChangesBySize(
  folder: String, large: StoreCore<String, NoMetadata>, largeCount: Int
) throws -> [(String, Double, String, Double, Double?)] {
  makeFolders("\(folder)/small-targets")
  let small = StoreCore<String, NoMetadata>(
    file: FilePath("\(folder)/small.json"), policy: StorePolicy(), service: BookmarkService(escrow: nil))
  _ = try small.add(
    targets: (0..<10).map { index in
      makeFile("\(folder)/small-targets/file\(index).txt")
      return (FilePath("\(folder)/small-targets/file\(index).txt"), "record-\(index)", NoMetadata())
    })
  makeFile("\(folder)/extra.txt")
  let extra = FilePath("\(folder)/extra.txt")
  let stores = [small, large]
  let docbm = docbmBesideBenchmarks()
  var names = ["add", "forget", "pin", "markUsed"]
  if docbm != nil { names += ["docbm store add", "docbm store forget", "docbm store pin"] }
  var times = Array(repeating: Array(repeating: [Double](), count: names.count), count: 2)
  // The library's calls are timed before the command line's, so that each library call
  // meets a store only this process has changed.
  for commandLine in [false, true] where !commandLine || docbm != nil {
    for round in 0..<31 {
      let flag = round % 2 == 0
      for (which, store) in stores.enumerated() {
        var calls: [() throws -> Void] = [
          { _ = try store.add(target: extra, key: "extra", metadata: NoMetadata()) },
          { _ = try store.forget(["extra"]) },
          { _ = try store.setPinned("record-5", flag) },
          { _ = try store.markUsed("record-5") },
        ]
        if let docbm {
          let path = store.path.description
          calls += [
            { try runQuietly(docbm, ["store", "add", "--key", "extra", path, extra.description]) },
            { try runQuietly(docbm, ["store", "forget", path, "extra"]) },
            { try runQuietly(docbm, ["store", flag ? "pin" : "unpin", path, "record-5"]) },
          ]
        }
        for (index, call) in calls.enumerated() where (index >= 4) == commandLine {
          times[which][index].append(try measure(iterations: 1, rounds: 1, call))
        }
      }
    }
  }
  // Last, a store that holds its records and has a listener learns a change another
  // process made (a pin, by a store of its own on the same file) at its next load.
  names.append("another process's change heard")
  var listened: [AsyncStream<StoreUpdate<String, NoMetadata>>] = []
  for store in stores {
    _ = try store.load()
    listened.append(store.updates())
  }
  let others = stores.map {
    StoreCore<String, NoMetadata>(file: $0.path, policy: StorePolicy(), service: BookmarkService(escrow: nil))
  }
  for which in stores.indices { times[which].append([]) }
  for round in 0..<31 {
    for (which, store) in stores.enumerated() {
      _ = try others[which].setPinned("record-6", round % 2 == 0)
      times[which][names.count - 1].append(try measure(iterations: 1, rounds: 1) { try store.reload() })
    }
  }
  withExtendedLifetime(listened) {}
  let label = largeCount.formatted()
  return names.indices.map { index in
    (
      "\(names[index]) at \(label) records", middle(times[1][index]), "the same at 10 records",
      middle(times[0][index]), 1.5
    )
  }
}

/// A store of `count` records, then `repeats` adds and forgets of one more, `loads` loads
/// of the whole store by a store that has not read it, and `refreshes` refreshes of every
/// status.
func profileStoreChanges(root: String, records count: Int, repeats: Int, loads: Int, refreshes: Int) throws {
  let folder = "\(root)/store"
  makeFolders("\(folder)/targets")
  let store = StoreCore<String, NoMetadata>(
    file: FilePath("\(folder)/store.json"), policy: StorePolicy(), service: BookmarkService(escrow: nil))
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
  for _ in 0..<loads {
    _ = try StoreCore<String, NoMetadata>(
      file: FilePath("\(folder)/store.json"), policy: StorePolicy(), service: BookmarkService(escrow: nil)
    ).load()
  }
  for _ in 0..<refreshes { _ = try store.refreshStatuses() }
}

/// A record's shape as plain `Decodable` structs: the baseline of a load, which also
/// decodes each bookmark's fields and keeps members it does not know.
private struct PlainRecord: Decodable {
  struct Time: Decodable {
    let seconds: Int64
    let nanoseconds: UInt32
  }
  struct Status: Decodable { let state: String }
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

/// Runs `tool` with its output discarded; throws when it fails.
private func runQuietly(_ tool: String, _ arguments: [String]) throws {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: tool)
  process.arguments = arguments
  process.standardOutput = FileHandle.nullDevice
  try process.run()
  process.waitUntilExit()
  guard process.terminationStatus == 0 else {
    throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "\(tool) \(arguments) failed"])
  }
}

/// The median of `samples`.
private func middle(_ samples: [Double]) -> Double { samples.sorted()[samples.count / 2] }
