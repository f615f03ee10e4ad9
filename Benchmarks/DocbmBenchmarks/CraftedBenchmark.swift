import DocumentBookmarks
import Foundation
import Glibc

/// `docbm check` of a 64 MiB crafted file against 64 MiB of random bytes, as child
/// processes in alternating rounds: the time ratio and docbm's peak memory.
///
/// The crafted files: binary record headers every 40 bytes, each claiming the largest
/// length (10 240 bytes), so every one frames a record; and the base64 of such headers back
/// to back. **Goal: within 2x the time of the random bytes, within 64 MiB of peak memory.**
func runCraftedBenchmark(root: String, megabytes: Int = 64) -> Bool {
  guard let docbm = docbmBesideBenchmarks() else { return false }
  let size = megabytes << 20
  let header: [UInt8] =
    [0x76, 0x87, 0x1B, 0x99, 0x17, 0x9C, 1, 0, 0x28, 0x00] + [UInt8](repeating: 0xAB, count: 8)
  let binaryUnit = header + [UInt8](repeating: 0, count: 40 - header.count)
  let base64Unit = Array(Data(header).base64EncodedString().utf8)
  let random = "\(root)/random.bin"
  writeFile(random, size: size, repeating: [])
  let files = [
    ("binary headers", "\(root)/crafted.bin", binaryUnit),
    ("base64 headers", "\(root)/crafted.txt", base64Unit),
  ]
  for (_, path, unit) in files { writeFile(path, size: size, repeating: unit) }
  sync()
  print("| \(megabytes) MiB file | docbm check | random bytes | ratio | peak memory | verdict exit | goal |")
  print("|---|---:|---:|---:|---:|---:|---|")
  var failed = false
  for (label, path, _) in files {
    var craftedTimes: [Double] = []
    var randomTimes: [Double] = []
    var peak = 0
    var randomPeak = 0
    var status: Int32 = 0
    for round in 0..<9 {
      let order = round % 2 == 0 ? [path, random] : [random, path]
      for file in order {
        let run = measureChild([docbm, "check", file], environment: ["DOCBM_ESCROW_DIR=\(root)/escrow"])
        guard round > 0 else { continue }
        if file == path {
          craftedTimes.append(run.seconds)
          peak = max(peak, run.maxResidentKiB)
          status = run.status
        } else {
          precondition(run.status == 0, "random bytes should hold no bookmark, got exit \(run.status)")
          randomTimes.append(run.seconds)
          randomPeak = max(randomPeak, run.maxResidentKiB)
        }
      }
    }
    let median = { (values: [Double]) in values.sorted()[values.count / 2] }
    let ratio = median(craftedTimes) / median(randomTimes)
    let met = ratio <= 2 && peak <= 64 << 10
    if !met { failed = true }
    print(
      "| \(label) | \(String(format: "%.3f s", median(craftedTimes))) | \(String(format: "%.3f s", median(randomTimes))) | \(String(format: "%.2fx", ratio)) | \(peak / 1024) MiB (random: \(randomPeak / 1024) MiB) | \(status) | ≤ 2x, ≤ 64 MiB: \(met ? "met" : "NOT met") |"
    )
  }
  return !failed
}

/// Writes `size` bytes to `path`: `unit` over and over, or random bytes when it is empty.
private func writeFile(_ path: String, size: Int, repeating unit: [UInt8]) {
  let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
  precondition(fd >= 0, "cannot create \(path)")
  defer { close(fd) }
  var generator = SystemRandomNumberGenerator()
  // About 1 MiB at a time, of whole units.
  var block = unit.isEmpty ? [] : Array([[UInt8]](repeating: unit, count: (1 << 20) / unit.count).joined())
  var written = 0
  while written < size {
    if unit.isEmpty { block = (0..<(1 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) } }
    let count = min(block.count, size - written)
    let result = block.withUnsafeBytes { write(fd, $0.baseAddress!, count) }
    precondition(result == count, "cannot write \(path)")
    written += count
  }
}
