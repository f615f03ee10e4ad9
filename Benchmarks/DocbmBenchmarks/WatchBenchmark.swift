import DocbmSystem
import DocumentBookmarks
import DocumentWatching
import Foundation
import Glibc
import Synchronization

/// `DocbmBenchmarks watch`: what watching with repair costs.
///
/// 1. Lossy saves: 100 documents (each holding a bookmark, escrowed) and 10 plain copies of
///    them made without the key (never recorded), watched with repair on; `sed -i` run 1,000
///    times over the documents, round robin, and 100 times over the copies, as fast as the
///    processes run. The time of each save's rename is when a second inotify reader of its
///    own sees the `IN_MOVED_TO`; the key is back when the watcher reports `keyRestored`.
///    **Goal: every key back, none on a copy, median under 50 ms.**
/// 2. Start-up and memory: 10,000 folders watched (100 × 100), empty and then holding 5 plain
///    files each: the time `DocumentWatcher(watching:)` takes and the growth of the
///    process's resident memory.
func runWatchBenchmark(root: String) throws -> Bool {
  let saves = try measureLossySaves(root: root)
  let startUp = try measureStartUp(root: root)
  return saves && startUp
}

/// Resident memory of this process, in KiB (`VmRSS`).
private func residentKiB() -> Int {
  let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
  let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
  return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
}

private func measureLossySaves(root: String) throws -> Bool {
  let folder = "\(root)/watch-docs"
  makeFolders("\(folder)/images")
  let escrow = KeyEscrow(folder: FilePath("\(root)/watch-escrow/docbm"))
  let service = BookmarkService(escrow: escrow)
  var documents: [String] = []
  for index in 0..<100 {
    let path = "\(folder)/board-\(index).json"
    makeFile("\(folder)/images/cat-\(index).png", "png")
    makeFile(path, "{}")
    let bookmark = try service.documents(anchoredOn: FilePath(path)).makeBookmark(
      to: FilePath("\(folder)/images/cat-\(index).png"))
    makeFile(path, "{\"image\": \"\(bookmark.text)\", \"n\": 0}\n")
    documents.append(path)
  }
  var copies: [String] = []
  for index in 0..<10 {
    let path = "\(folder)/copy-\(index).json"
    _ = run("/bin/cp", [documents[index], path])  // a plain copy: bookmarks, no key, never recorded
    copies.append(path)
  }

  // The renames, as a separate inotify reader sees them.
  let renames = Mutex<[String: [ContinuousClock.Instant]]>([:])
  let restored = Mutex<[String: [ContinuousClock.Instant]]>([:])
  let restoredCount = Atomic<Int>(0)
  let allBack = DispatchSemaphore(value: 0)
  let saveCount = documents.count * 10
  let observer = try Inotify()
  _ = try observer.watch(FilePath(folder), for: [.movedTo, .onlyFolder])
  let observing = Atomic<Bool>(true)
  Thread.detachNewThread {
    while observing.load(ordering: .relaxed) {
      guard let events = try? observer.read(timeout: 100) else { continue }
      let now = ContinuousClock.now
      renames.withLock { seen in
        for event in events {
          seen["\(folder)/\(String(decoding: event.name, as: UTF8.self))", default: []].append(now)
        }
      }
    }
  }

  let watcher = try DocumentWatcher(
    watching: [FilePath(folder)], options: WatchOptions(escrow: escrow, repairs: true))
  let refusals = Atomic<Int>(0)
  try watcher.start { event in
    switch event.kind {
    case .keyRestored:
      let now = ContinuousClock.now
      restored.withLock { $0[event.path?.description ?? "", default: []].append(now) }
      if restoredCount.add(1, ordering: .relaxed).newValue == saveCount { allBack.signal() }
    case .repairRefused:
      refusals.add(1, ordering: .relaxed)
    default:
      break
    }
  }

  let started = ContinuousClock.now
  for round in 0..<10 {
    for document in documents {
      _ = run("/usr/bin/sed", ["-i", "s/\"n\": [0-9]*/\"n\": \(round + 1)/", document])
    }
    for copy in copies { _ = run("/usr/bin/sed", ["-i", "s/{/{ /", copy]) }
  }
  let savesTook = ContinuousClock.now - started
  let complete = allBack.wait(timeout: .now() + 30) == .success
  watcher.stop()
  observing.store(false, ordering: .relaxed)

  // Each rename is paired with the first key back after it and before the document's next
  // rename; a rename without one is counted, not paired with a later repair.
  var latencies: [Double] = []
  var unpaired = 0
  let seenRenames = renames.withLock { $0 }
  let seenRestores = restored.withLock { $0 }
  for document in documents {
    let times = (seenRenames[document] ?? []).sorted()
    let backs = (seenRestores[document] ?? []).sorted()
    for (index, rename) in times.enumerated() {
      let next = index + 1 < times.count ? times[index + 1] : nil
      guard let back = backs.first(where: { $0 >= rename && (next == nil || $0 < next!) }) else {
        unpaired += 1
        continue
      }
      let took = back - rename
      latencies.append(Double(took.components.seconds) * 1000 + Double(took.components.attoseconds) / 1e15)
    }
  }
  latencies.sort()
  // A file whose key cannot be read counts as one without a key.
  let keysBack = documents.filter {
    (try? service.documents(anchoredOn: FilePath($0)).keyFingerprint()) != nil
  }
  let copiesWithKey = copies.filter {
    (try? BookmarkService(escrow: nil).documents(anchoredOn: FilePath($0)).keyFingerprint()) != nil
  }
  // The repair alone, as the watcher calls it (a repairer made per repair), on the same
  // documents, each saved by `sed -i` first: how much of the latency is the repair.
  var repairTimes: [Double] = []
  for document in documents {
    _ = run("/usr/bin/sed", ["-i", "s/\"n\": [0-9]*/\"n\": 0/", document])
    let start = ContinuousClock.now
    let report = DocumentRepairer(escrow: escrow).repair(FilePath(document))
    let took = ContinuousClock.now - start
    if report.action == .restored { repairTimes.append(seconds(took) * 1000) }
  }
  repairTimes.sort()
  let repairMedian = repairTimes.isEmpty ? .infinity : repairTimes[repairTimes.count / 2]
  let median = latencies.isEmpty ? .infinity : latencies[latencies.count / 2]
  let p90 = latencies.isEmpty ? .infinity : latencies[latencies.count * 9 / 10]
  let worst = latencies.last ?? .infinity
  let met = complete && keysBack.count == documents.count && copiesWithKey.isEmpty && median < 50
  print("## Watching with repair: 1,000 lossy saves (sed -i) over 100 documents")
  print("")
  print(
    "| saves | keys put back | documents with their key at the end | copies given a key | repairs refused | rename → key back: median | p90 | worst | saves took | goal |"
  )
  print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
  print(
    "| \(saveCount) + \(copies.count * 10) on copies | \(restoredCount.load(ordering: .relaxed)) | \(keysBack.count) of \(documents.count) | \(copiesWithKey.count) of \(copies.count) | \(refusals.load(ordering: .relaxed)) | "
      + String(format: "%.2f ms | %.2f ms | %.2f ms | %.1f s", median, p90, worst, seconds(savesTook))
      + " | every key back, none on a copy, median < 50 ms: \(met ? "met" : "NOT met") |")
  print("")
  print(
    "Renames seen on the documents: \(documents.map { seenRenames[$0]?.count ?? 0 }.reduce(0, +)); paired with a key back: \(latencies.count); without one before the next save: \(unpaired). Rescans: \(watcher.summary.rescans). Load average at the end: \(loadAverage())."
  )
  print("")
  print(
    String(
      format:
        "The repair alone (`DocumentRepairer(escrow:).repair`, %d documents just saved by sed -i): median %.2f ms.",
      repairTimes.count, repairMedian))
  print("")
  return met
}

func seconds(_ duration: Duration) -> Double {
  Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

private func measureStartUp(root: String) throws -> Bool {
  let tree = "\(root)/watch-tree"
  print("## Watching 10,000 folders: start-up and memory")
  print("")
  print("| folders | plain files | start-up | resident memory growth | per folder | folders watched |")
  print("|---:|---:|---:|---:|---:|---:|")
  for filesPerFolder in [0, 5] {
    for outer in 0..<100 {
      for inner in 0..<100 {
        let path = "\(tree)/d\(outer)/d\(inner)"
        if filesPerFolder == 0 { makeFolders(path) }
        for file in 0..<filesPerFolder where filesPerFolder > 0 { makeFile("\(path)/note-\(file).txt") }
      }
    }
    let before = residentKiB()
    let started = ContinuousClock.now
    let watcher = try DocumentWatcher(watching: [FilePath(tree)])
    let took = ContinuousClock.now - started
    let grown = residentKiB() - before
    let watched = watcher.summary.folders
    watcher.stop()
    print(
      String(
        format: "| 10,101 | %d | %.0f ms | %d KiB | %.0f bytes | %d |", 10_000 * filesPerFolder,
        seconds(took) * 1000, grown, Double(grown * 1024) / Double(max(watched, 1)), watched))
  }
  print("")
  print("(10,101 folders: the root, 100 folders in it and 100 in each of those.)")
  return true
}
