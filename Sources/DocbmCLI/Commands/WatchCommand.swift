import DocbmSystem
import DocumentBookmarks
import DocumentWatching
import FoundationEssentials

/// `watch`'s operands and options.
struct WatchSettings: Equatable, Sendable {
  var folders: [[UInt8]]
  /// `--repair`: put back the keys saves drop (under the trust rules).
  var repair = false
  var json = false

  /// Parses the arguments after `watch`.
  static func parse(_ arguments: ArraySlice<[UInt8]>, json: Bool) throws(UsageError) -> ParsedCommand {
    let scan = try OptionScan(arguments, for: .watch)
    if scan.asksForHelp { return .help(.watch) }
    let settings = WatchSettings(
      folders: scan.operands, repair: scan.has("--repair"), json: json || scan.has("--json"))
    guard !settings.folders.isEmpty else {
      throw UsageError(message: "Missing expected argument 'FOLDER'", command: .watch)
    }
    return .watch(settings)
  }
}

/// `docbm watch FOLDER...`: follows the documents in folders (recursively) as other
/// programs rename, replace, delete or strip them, one line per event, until SIGINT or
/// SIGTERM; with `--repair`, puts back the keys saves drop. Then a summary.
struct WatchCommand {
  let folders: [FilePath]
  let repair: Bool
  let json: Bool

  static let abstract = "Follow the documents in folders and report moves, saves over them and lost keys."
  static let discussion = """
    ARGUMENTS:
      FOLDER      A folder to watch, with the folders under it (symbolic links are
                  not followed). Folders made later are watched too.

    Every file carrying a key is followed wherever it goes within the folders, one
    line per event: appeared, moved, replaced, modified, deleted, movedOut,
    keyLost, keyRestored, repairRefused, rescanned, notWatched, folderGone.
    Documents seen at a new path are recorded in the escrow, as check records
    them. Runs until SIGINT (Ctrl-C) or SIGTERM, or until every folder it
    watches is gone (removed or unmounted), then prints a summary. Exit status:
    0 when stopped by a signal, 1 when the folders could not be watched (or no
    thread could be made to watch them) or are all gone.
    """

  func run(_ console: Console) throws -> Int32 {
    SignalForwarding.install()
    defer { SignalForwarding.uninstall() }
    let watcher = try DocumentWatcher(
      watching: folders, options: WatchOptions(escrow: .default, repairs: repair, recordsSightings: true))
    let started = watcher.summary
    // "watching" only once the watcher's thread runs: without one, the error says why.
    let signal = try SignalForwarding.waitForSignal { () throws(DocbmError) in
      try watcher.start { event in
        console.print(json ? WatchCommand.jsonLine(event) : WatchCommand.line(for: event))
        console.flush()
        if event.kind == .folderGone, watcher.hasNothingLeftToWatch { SignalForwarding.endWait() }
      }
      console.printError(
        "watching \(count(started.folders, "folder")), \(count(started.documents, "document"))\(repair ? ", repairing lost keys" : "") (Ctrl-C stops)"
      )
    }
    watcher.stop()
    let summary = watcher.summary
    let name = signal.map(SignalForwarding.name(of:))
    if json {
      console.print(JSONReport.renderLine(SummaryLine(summary: SummaryReport(summary, signal: name))))
    } else {
      console.print(WatchCommand.summaryLine(summary, signal: name))
    }
    guard name != nil else {
      console.printError(
        "Error: every watched folder is gone (removed or unmounted); nothing is left to watch")
      return DocbmCommandLine.ExitStatus.failure
    }
    return DocbmCommandLine.ExitStatus.success
  }

  /// `kind        message`: the kind is the line's first word.
  static func line(for event: DocumentEvent) -> String {
    "\(event.kind.rawValue.padded(to: 14))\(event.message)"
  }

  /// The last line: what was watched and seen, and why the watch stopped (`signal`, or
  /// `nil` when nothing was left to watch).
  static func summaryLine(_ summary: WatchSummary, signal: String?) -> String {
    let total = summary.events.values.reduce(0, +)
    var parts = ["\(count(total, "event"))"]
    for kind in DocumentEvent.Kind.allCases where summary.count(kind) > 0 {
      parts.append("\(summary.count(kind)) \(kind.rawValue)")
    }
    return
      "stopped \(signal.map { "by " + $0 } ?? "with nothing left to watch"): watched \(count(summary.folders, "folder")), \(count(summary.documents, "document")); "
      + parts.joined(separator: ", ")
  }

  // MARK: - JSON lines

  private struct Identity: Encodable {
    let device: UInt64
    let inode: UInt64
    let birthTime: Timestamp?
    init?(_ identity: DocumentIdentity?) {
      guard let identity else { return nil }
      device = identity.device
      inode = identity.inode
      birthTime = identity.birthTime
    }
  }

  private struct EventLine: Encodable {
    let schemaVersion = JSONReport.schemaVersion
    let event: String
    let path: FilePath?
    let oldPath: FilePath?
    let identity: Identity?
    let oldIdentity: Identity?
    let fingerprint: String?
    let message: String
    let repair: RepairSummary?
  }

  struct SummaryReport: Encodable {
    let folders: Int
    let documents: Int
    let foldersNotWatched: Int
    let rescans: Int
    let events: [String: Int]
    /// Why the watch stopped: `signal`, or `nothingLeftToWatch` (every folder is gone).
    let stop: String
    /// The signal that stopped the watch; absent when every watched folder was gone.
    let signal: String?

    init(_ summary: WatchSummary, signal: String?) {
      stop = signal == nil ? "nothingLeftToWatch" : "signal"
      folders = summary.folders
      documents = summary.documents
      foldersNotWatched = summary.foldersNotWatched
      rescans = summary.rescans
      events = Dictionary(uniqueKeysWithValues: summary.events.map { ($0.key.rawValue, $0.value) })
      self.signal = signal
    }
  }

  struct SummaryLine: Encodable {
    let schemaVersion = JSONReport.schemaVersion
    let summary: SummaryReport
  }

  static func jsonLine(_ event: DocumentEvent) -> String {
    JSONReport.renderLine(
      EventLine(
        event: event.kind.rawValue, path: event.path, oldPath: event.oldPath,
        identity: Identity(event.identity),
        oldIdentity: Identity(event.oldIdentity), fingerprint: event.fingerprint?.description,
        message: event.message,
        repair: event.repair.map(RepairSummary.init)))
  }
}
