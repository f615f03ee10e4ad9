import Dispatch
import DocbmSystem
import DocumentBookmarkStore
import DocumentBookmarks
import FoundationEssentials

/// `docbm store follow STORE`: prints each change to an app's store as it happens, made by
/// any process or by mounts and unmounts (records on a filesystem that goes away become
/// `volumeUnavailable`, and are resolved again when it comes back), until SIGINT or SIGTERM.
struct StoreFollowCommand {
  let store: FilePath
  let json: Bool

  /// One change as `--json` prints it, one object per line.
  private struct Line: Encodable {
    let change: String
    let key: JSONValue?
    let keys: [JSONValue]?
    let path: FilePath?
    let status: RecordStatus?
    let hasBookmark: Bool?
    let pinned: Bool?

    init(
      change: String, key: JSONValue?, keys: [JSONValue]?, path: FilePath?, status: RecordStatus?,
      hasBookmark: Bool?, pinned: Bool? = nil
    ) {
      self.change = change
      self.key = key
      self.keys = keys
      self.path = path
      self.status = status
      self.hasBookmark = hasBookmark
      self.pinned = pinned
    }

    init(_ record: StoreRecord<JSONValue, JSONValue>, change: String) {
      self.init(
        change: change, key: record.key, keys: nil, path: record.lastKnownPath, status: record.status,
        hasBookmark: record.hasBookmark, pinned: record.isPinned)
    }
  }

  func run(_ console: Console) throws -> Int32 {
    let followed = BookmarkStore<JSONValue, JSONValue>(
      file: store, service: BookmarkService(escrow: .default), followsOtherProcesses: true,
      followsMounts: true)
    do {
      try followed.core.load()
    } catch {
      throw StoreFailure.reported(error)
    }
    let updates = followed.updates()
    let json = json
    let printer = Task {
      for await update in updates {
        guard case .changes(let changes) = update else { continue }
        for change in changes { console.print(Self.render(change, json: json)) }
        console.flush()
      }
    }
    // Start following (mounts, other processes) now that the store is read.
    followed.startFollowingNow()
    console.printError("following \(store) (Ctrl-C stops)")
    console.flush()
    Self.waitForInterrupt()
    printer.cancel()
    return DocbmCommandLine.ExitStatus.success
  }

  /// Blocks until SIGINT or SIGTERM arrives (then returns instead of dying, so the output
  /// is flushed).
  private static func waitForInterrupt() {
    let signals = [SignalForwarding.interrupt, SignalForwarding.terminate]
    let stopped = ConditionLock(false)
    let stop = stopped.makeCondition()
    SignalForwarding.ignore(signals)
    let sources = signals.map { number -> any DispatchSourceSignal in
      let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
      source.setEventHandler {
        stopped.withLock { stopped in
          stopped = true
          stop.broadcast()
        }
      }
      source.resume()
      return source
    }
    stopped.withLock(waitingOn: stop, until: { $0 }) { _ in }
    sources.forEach { $0.cancel() }
  }

  private static func render(_ change: StoreChange<JSONValue, JSONValue>, json: Bool) -> String {
    let line: Line
    switch change {
    case .added(let record): line = Line(record, change: "added")
    case .updated(let record): line = Line(record, change: "updated")
    case .removed(let record): line = Line(record, change: "removed")
    case .reordered(let keys):
      line = Line(change: "reordered", key: nil, keys: keys, path: nil, status: nil, hasBookmark: nil)
    }
    if json { return JSONReport.renderLine(line) }
    if let keys = line.keys { return "reordered  " + keys.map(\.keyText).joined(separator: ", ") }
    var text = "\(line.change)  \(line.key.map(\.keyText) ?? "")"
    if let status = line.status { text += "  \(status)\(line.pinned == true ? ", pinned" : "")" }
    if let path = line.path { text += "  \(path)" }
    return text
  }
}
