import DocumentBookmarks
import Foundation
import Glibc

/// `docbm probe COMMAND…`: run a program's save on a scratch document, report what it broke.
struct ProbeCommand {
  let command: [[UInt8]]
  let options: ScratchDocument.Options
  let json: Bool

  private struct Report: Encodable {
    let schemaVersion = JSONReport.schemaVersion
    let command: [String]
    let exitStatus: Int32
    let safe: Bool
    let findings: [SaveFinding]
    let notes: [String]
    let contentsChanged: Bool
  }

  func run(_ console: Console) throws -> Int32 {
    let scratch = try ScratchDocument.make(options: options)
    defer {
      // The scratch document carries a key: whatever cannot be removed is named.
      let left = scratch.remove()
      if !left.isEmpty {
        let list = left.map(\.description).joined(separator: ", ")
        console.printError("warning: the probe could not remove its scratch files (they hold a key): \(list)")
      }
    }
    var arguments = command.map { argument -> [UInt8] in
      replacing(Array("{}".utf8), with: scratch.savePath.bytes, in: argument)
    }
    if !command.contains(where: { $0.contains(subsequence: Array("{}".utf8)) }) {
      arguments.append(scratch.savePath.bytes)
    }
    let status = try spawn(arguments)
    let failure = status == 0 ? nil : "\(printable(command[0])) exited with status \(status)"
    let report = SaveProbe.examine(scratch, failure: failure)
    let verdict = report.isSafe ? DocbmCommandLine.ExitStatus.success : DocbmCommandLine.ExitStatus.problem

    if json {
      console.print(
        JSONReport.render(
          Report(
            command: arguments.map(printable), exitStatus: status, safe: report.isSafe,
            findings: report.findings, notes: report.notes, contentsChanged: report.contentsChanged)))
      return verdict
    }
    console.print("probe: \(arguments.map(printable).joined(separator: " "))")
    console.print("exit status: \(status); \(report.notes.joined(separator: "; "))")
    if report.isSafe {
      let links =
        (options.hardLink ? ", the hard link" : "")
        + (options.throughSymbolicLink ? ", the symbolic link" : "")
      console.print(
        "kept: the key, the other attributes, the mode, the owner\(links); no files left behind; the bookmark resolves"
      )
    }
    for finding in report.findings {
      console.print("LOST \(finding.kind.rawValue): \(finding.message)")
    }
    if !report.isSafe {
      console.print("fix: \(report.findings[0].fix)")
    }
    return verdict
  }

  /// Runs the program with the caller's environment and standard streams; its exit status,
  /// or 128 + the signal that ended it.
  private func spawn(_ arguments: [[UInt8]]) throws -> Int32 {
    var pointers: [UnsafeMutablePointer<CChar>?] = arguments.map { bytes in
      let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
      for (index, byte) in bytes.enumerated() { pointer[index] = CChar(bitPattern: byte) }
      pointer[bytes.count] = 0
      return pointer
    }
    pointers.append(nil)
    defer { pointers.forEach { $0?.deallocate() } }
    var pid: pid_t = 0
    let result = posix_spawnp(&pid, pointers[0]!, nil, nil, &pointers, environ)
    guard result == 0 else {
      throw DocbmError(
        .notFound, message: "cannot run \(printable(arguments[0])): \(String(cString: strerror(result)))",
        recommendation: .pickAgain)
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let signal = status & 0x7F
    return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
  }

  private func printable(_ bytes: [UInt8]) -> String {
    FilePath(displayBytes: bytes).description
  }

  private func replacing(_ pattern: [UInt8], with replacement: [UInt8], in bytes: [UInt8]) -> [UInt8] {
    var result: [UInt8] = []
    var index = 0
    while index < bytes.count {
      if index + pattern.count <= bytes.count, Array(bytes[index..<(index + pattern.count)]) == pattern {
        result += replacement
        index += pattern.count
      } else {
        result.append(bytes[index])
        index += 1
      }
    }
    return result
  }
}

extension Array where Element == UInt8 {
  fileprivate func contains(subsequence: [UInt8]) -> Bool {
    guard count >= subsequence.count else { return false }
    return (0...(count - subsequence.count)).contains {
      Array(self[$0..<($0 + subsequence.count)]) == subsequence
    }
  }
}
