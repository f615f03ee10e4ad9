import DocbmSystem
import DocumentBookmarks
import FoundationEssentials

/// `docbm probe COMMAND…`: run a program's save on a scratch document, report what it broke.
///
/// The scratch document is made where the user's documents are (the current folder, or
/// `--in DIR`), since editors save files under `/tmp` differently; it is removed afterwards,
/// also when the probe is interrupted (SIGINT, SIGTERM, SIGHUP are passed on to the program,
/// then the scratch folder is removed), and whatever cannot be removed is named.
struct ProbeCommand {
  let settings: ProbeSettings

  private struct Report: Encodable {
    let schemaVersion = JSONReport.schemaVersion
    let command: [String]
    let exitStatus: Int32?
    let verdict: String
    let safe: Bool
    let findings: [SaveFinding]
    let notes: [String]
    let contentsChanged: Bool
    let scratchFolder: String
    let underTemporaryFolder: Bool
    let notRemoved: [String]
  }

  private var options: ScratchDocument.Options {
    ScratchDocument.Options(hardLink: settings.hardLink, throughSymbolicLink: settings.throughLink)
  }

  func run(_ console: Console) throws -> Int32 {
    SignalForwarding.install()
    defer { SignalForwarding.uninstall() }
    let location = try settings.location.map { bytes in
      guard let path = FilePath(bytes: bytes) else {
        throw DocbmError(.notFound, message: "a path cannot contain a NUL byte")
      }
      return path
    }
    let scratch = try ScratchDocument.make(options: options, in: location)
    var removed = false
    // Whatever happens below, the scratch document (it carries a key) does not outlive the
    // probe unnoticed.
    defer { if !removed { warnIfLeft(scratch.remove(), console) } }

    var arguments = settings.command.map { argument -> [UInt8] in
      replacing(Array("{}".utf8), with: scratch.savePath.bytes, in: argument)
    }
    if !settings.command.contains(where: { $0.contains(subsequence: Array("{}".utf8)) }) {
      arguments.append(scratch.savePath.bytes)
    }
    let printed = arguments.map(printable)
    if let signal = SignalForwarding.receivedSignal {
      removed = true
      return interrupted(by: signal, command: printed, scratch: scratch, left: scratch.remove(), console)
    }
    let termination: ChildProcess.Termination
    do {
      termination = try ChildProcess.run(arguments)
    } catch {
      throw DocbmError(
        .notFound, message: "cannot run \(printable(arguments[0])): \(error.errno)",
        recommendation: .pickAgain)
    }
    if let signal = SignalForwarding.receivedSignal {
      removed = true
      return interrupted(by: signal, command: printed, scratch: scratch, left: scratch.remove(), console)
    }
    let status = termination.status
    let failure = status == 0 ? nil : "\(printable(settings.command[0])) exited with status \(status)"
    var report = SaveProbe.examine(scratch, failure: failure)
    // The fixes name docbm save, the command line's own save.
    report.findings = report.findings.map { $0.naming(.commandLine) }
    removed = true
    let left = scratch.remove()
    let verdict = report.verdict
    let exit: Int32 =
      switch verdict {
      case .kept: DocbmCommandLine.ExitStatus.success
      case .keptLeavingFiles:
        settings.strict ? DocbmCommandLine.ExitStatus.problem : DocbmCommandLine.ExitStatus.success
      case .lost: DocbmCommandLine.ExitStatus.problem
      case .notSaved: DocbmCommandLine.ExitStatus.notTested
      }

    if settings.json {
      console.print(
        JSONReport.render(
          Report(
            command: printed, exitStatus: status, verdict: verdict.rawValue, safe: report.losses.isEmpty,
            findings: report.findings, notes: report.notes, contentsChanged: report.contentsChanged,
            scratchFolder: scratch.folder.description, underTemporaryFolder: scratch.isInTemporaryFolder,
            notRemoved: left.map(\.description))))
      warnIfLeft(left, console)
      return exit
    }
    console.printFitted("probe: \(printed.joined(separator: " "))")
    console.printFitted(
      "in: \(scratch.location) (scratch folder \(FilePath(displayBytes: scratch.folder.lastComponent)), removed afterwards)"
    )
    if scratch.isInTemporaryFolder {
      console.printFitted(
        "warning: \(SaveProbeReport.temporaryFolderWarning); probe in a folder where documents live (--in DIR)"
      )
    }
    console.printFitted("exit status: \(status); \(report.notes.joined(separator: "; "))")
    switch verdict {
    case .notSaved:
      console.printFitted(
        "NOT TESTED: the program did not write the document (it did not save, or quit without saving); nothing is known about its save"
      )
    case .kept, .keptLeavingFiles:
      let links =
        (settings.hardLink ? ", the hard link" : "") + (settings.throughLink ? ", the symbolic link" : "")
      console.printFitted(
        "kept: the key, the other attributes, the mode, the owner\(links); the bookmark resolves")
    case .lost:
      break
    }
    for finding in report.findings {
      let label = finding.kind.losesSomething ? "LOST" : (settings.strict ? "LEFT" : "left")
      console.printFitted("\(label) \(finding.kind.rawValue): \(finding.message)")
    }
    if let first = report.losses.first ?? (settings.strict ? report.findings.first : nil) {
      let shellFix =
        first.kind.losesSomething
        ? ProbeCommand.shellFix(for: printed, document: printable(scratch.savePath.bytes)) : nil
      console.printFitted("fix: \(shellFix ?? first.fix)")
    }
    warnIfLeft(left, console)
    return exit
  }

  /// The fix for a person at a shell: a command that saves through `docbm save`. A
  /// program edited in place with `-i` (`sed -i`, `perl -pi`) writes to standard output
  /// without it, and `docbm save` puts that in place keeping everything.
  static func shellFix(for command: [String], document: String) -> String {
    let program = command.first.map { String($0.split(separator: "/").last ?? "") } ?? ""
    var example: String?
    if ["sed", "perl", "gawk", "awk"].contains(program) {
      var arguments: [String] = []
      for argument in command.dropFirst() {
        if argument == "-i" || argument.hasPrefix("-i.") || argument == "--in-place" { continue }
        if argument == "-pi" {
          arguments.append("-p")
          continue
        }
        if program == "gawk", argument == "inplace" { continue }
        arguments.append(argument == document ? "FILE" : DocbmCommandLine.shellQuoted(argument))
      }
      if program == "gawk", let index = arguments.firstIndex(of: "-i") { arguments.remove(at: index) }
      if !arguments.contains("FILE") { arguments.append("FILE") }
      example = "\(program) \(arguments.joined(separator: " ")) | docbm save FILE"
    }
    let shown = example ?? "PROGRAM … > new-contents && docbm save --from new-contents FILE"
    return
      "save through docbm save, which keeps the key, the other attributes, the mode and the hard links: write the new contents to standard output and pipe them in (\(shown)); for an editor's own setting see docs/save-safety.md"
  }

  /// Reports an interrupted probe: nothing was tested; the scratch folder was removed (or
  /// what is left of it is named). Exits like the signal: 128 + its number.
  private func interrupted(
    by signal: Int32, command: [String], scratch: ScratchDocument, left: [FilePath], _ console: Console
  ) -> Int32 {
    let name = signal == 2 ? "SIGINT" : signal == 15 ? "SIGTERM" : signal == 1 ? "SIGHUP" : "signal \(signal)"
    if settings.json {
      console.print(
        JSONReport.render(
          Report(
            command: command, exitStatus: nil, verdict: "interrupted", safe: false, findings: [],
            notes: ["interrupted by \(name)"], contentsChanged: false,
            scratchFolder: scratch.folder.description,
            underTemporaryFolder: scratch.isInTemporaryFolder, notRemoved: left.map(\.description))))
    }
    if left.isEmpty {
      console.printError(
        "probe interrupted by \(name): nothing was tested; the scratch folder \(scratch.folder) was removed")
    } else {
      console.printError("probe interrupted by \(name): nothing was tested")
      warnIfLeft(left, console)
    }
    return 128 + signal
  }

  /// The scratch document carries a key: whatever cannot be removed is named.
  private func warnIfLeft(_ left: [FilePath], _ console: Console) {
    guard !left.isEmpty else { return }
    let list = left.map(\.description).joined(separator: ", ")
    console.printError(
      "warning: the probe could not remove its scratch files (they hold a key); remove them yourself: \(list)"
    )
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
