import DocumentBookmarkStore
import DocumentBookmarks
import FoundationEssentials

/// `docbm store ACTION STORE …`: list an app's store and fix it: add, forget, pin, unpin,
/// refresh, export, compact, reanchor. Works on any app's store whatever its key and metadata types: keys and metadata
/// are kept as the JSON the app wrote.
struct StoreCommand {
  let settings: StoreSettings
  let store: FilePath

  typealias Core = StoreCore<JSONValue, JSONValue>
  typealias Record = StoreRecord<JSONValue, JSONValue>

  /// One record as `--json` prints it.
  private struct RecordReport: Encodable {
    let key: JSONValue
    let path: FilePath
    let status: RecordStatus
    let pinned: Bool
    let hasBookmark: Bool
    let isGone: Bool
    let isInTrash: Bool
    let created: Timestamp
    let lastUsed: Timestamp?
    let refreshed: Timestamp?

    init(_ record: Record) {
      key = record.key
      path = record.lastKnownPath
      status = record.status
      pinned = record.isPinned
      hasBookmark = record.hasBookmark
      isGone = record.isGone
      isInTrash = record.isInTrash
      created = record.createdAt
      lastUsed = record.lastUsedAt
      refreshed = record.refreshedAt
    }
  }

  private struct Report: Encodable {
    let schemaVersion = JSONReport.schemaVersion
    let store: FilePath
    let action: String
    let records: [RecordReport]
    /// Keys given that no record has (forget, pin, unpin, refresh).
    let unknownKeys: [String]
    let failures: [String: ErrorReport]
  }

  func run(_ console: Console) throws -> Int32 {
    let core = Core(
      file: store, policy: StorePolicy(duplicates: .returnExisting),
      service: BookmarkService(escrow: .default), changesInPlace: true)
    var unknown: [String] = []
    var failures: [String: DocbmError] = [:]
    var shown: [Record]
    // Reading or compacting a store that is not there is an error (adding makes one).
    func requireStore() throws(BookmarkStoreError<JSONValue>) {
      guard FileManager.default.fileExists(atPath: store.description) else {
        throw .docbm(DocbmError(.notFound, path: store, message: "there is no store at \(store)"))
      }
    }
    do throws(BookmarkStoreError<JSONValue>) {
      switch settings.action {
      case .list, .follow:
        try requireStore()
        shown = try core.load()
      case .add:
        shown = []
        // A store is made only when asked, so that a mistyped STORE is refused rather than
        // quietly becoming a second store; one made is said so.
        let isNew = !FileManager.default.fileExists(atPath: store.description)
        if isNew && !settings.create {
          throw .docbm(
            DocbmError(
              .notFound, path: store,
              message: "there is no store at \(store); to make one there, add with --create"))
        }
        defer {
          if isNew, FileManager.default.fileExists(atPath: store.description) {
            console.printError("docbm: made a new store at \(store)")
          }
        }
        for operand in settings.operands {
          guard let target = FilePath(bytes: operand) else { continue }
          let key = JSONValue.string(settings.key ?? target.description)
          var record =
            settings.pathOnly
            ? try core.add(pathOnly: target, key: key, metadata: .object([:]))
            : try core.add(target: target, key: key, metadata: .object([:]))
          if settings.pin { record = try core.setPinned(record.key, true) }
          shown.append(record)
        }
      case .export:
        try requireStore()
        let json = String(decoding: try core.exportJSON(), as: UTF8.self)
        console.print(json.hasSuffix("\n") ? String(json.dropLast()) : json)
        return DocbmCommandLine.ExitStatus.success
      case .compact:
        try requireStore()
        try core.compact()
        shown = []
      case .reanchor:
        try requireStore()
        shown = try core.reanchor()
      case .forget:
        let keys = try resolveKeys(core, &unknown)
        shown = try core.forget(keys)
      case .pin, .unpin:
        let keys = try resolveKeys(core, &unknown)
        shown = try keys.map { key throws(BookmarkStoreError<JSONValue>) in
          try core.setPinned(key, settings.action == .pin)
        }
      case .refresh:
        if settings.operands.isEmpty {
          failures = Dictionary(
            uniqueKeysWithValues: try core.refreshStatuses().map { ($0.key.keyText, $0.value) })
          shown = core.snapshot.records
        } else {
          shown = []
          for key in try resolveKeys(core, &unknown) {
            do {
              shown.append(try core.resolve(key).record)
            } catch .docbm(let error) {
              failures[key.keyText] = error
              if let record = core.snapshot[key] { shown.append(record) }
            }
          }
        }
      }
    } catch {
      throw StoreFailure.reported(error)
    }
    // The store put its file's key back before it went on: say so, on standard error, so
    // that the output stays what the action prints.
    for repair in core.keyRepairsMade { console.printError(repair.description) }
    if settings.action == .reanchor, shown.isEmpty, core.keyRepairsMade.isEmpty {
      console.printError("every record's bookmark names the key of \(store): nothing to reanchor")
    }
    if settings.json {
      console.print(
        JSONReport.render(
          Report(
            store: store, action: settings.action.rawValue, records: shown.map(RecordReport.init),
            unknownKeys: unknown, failures: failures.mapValues(ErrorReport.init))))
    } else {
      if settings.action == .forget {
        // The records are gone: said so, not listed as if they were still there.
        for record in shown { console.print("forgot \(record.key.keyText)  \(record.lastKnownPath)") }
      } else {
        print(shown, console)
      }
      for key in unknown { console.printError("no record has the key \(key)") }
      for (key, error) in failures.sorted(by: { $0.key < $1.key }) {
        console.printError("\(key): \(error.code.rawValue): \(error.message)")
      }
    }
    if !unknown.isEmpty { return DocbmCommandLine.ExitStatus.failure }
    return failures.isEmpty ? DocbmCommandLine.ExitStatus.success : DocbmCommandLine.ExitStatus.problem
  }

  /// The records whose keys the operands name (a key as its text when it is a string, else
  /// its JSON), each looked up alone; names no record has go to `unknown`.
  private func resolveKeys(_ core: Core, _ unknown: inout [String]) throws(BookmarkStoreError<JSONValue>)
    -> [JSONValue]
  {
    var keys: [JSONValue] = []
    for operand in settings.operands {
      let text = String(decoding: operand, as: UTF8.self)
      var candidates = [JSONValue.string(text)]
      // The text as a string key first, then as the JSON of another key (`7`, `{"id":7}`);
      // text that is not JSON names a string key only.
      if let value = try? JSONDecoder().decode(JSONValue.self, from: Data(operand)), value != .string(text) {
        candidates.append(value)
      }
      if let record = try core.records(withKeys: candidates).first {
        keys.append(record.key)
      } else {
        unknown.append(text)
      }
    }
    return keys
  }

  /// `KEY  STATUS  PATH` lines, aligned, with pins and gone records marked.
  private func print(_ records: [Record], _ console: Console) {
    let keys = records.map { $0.key.keyText }
    let width = min(keys.map(\.count).max() ?? 0, 32)
    for (record, key) in zip(records, keys) {
      var status: String
      switch record.status {
      case .unknown: status = record.hasBookmark ? "unknown" : "path-only"
      case .available: status = record.isInTrash ? "in the Trash" : "available"
      case .unavailable(let code, let since):
        status = "\(code.rawValue) since \(since.description.prefix(19))Z"
      }
      if record.isGone { status += ", gone" }
      if record.isPinned { status += ", pinned" }
      console.print(
        "\(key.padded(to: width))  \(status)  \(record.lastKnownPath)"
      )
    }
  }
}
