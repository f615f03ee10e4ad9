import DocbmSystem
import DocumentBookmarks

/// `docbm escrow list|export|import|forget`: the user's escrowed keys, as fingerprints and
/// documents, moving them to another machine, and forgetting a document's records.
struct EscrowCommand {
  let action: EscrowSettings.Action
  let file: FilePath?
  let json: Bool
  let force: Bool
  var escrow = KeyEscrow.default

  /// `--json` of `list`: each key's fingerprint, when it was made, and its documents.
  private struct ListReport: Encodable {
    struct Key: Encodable {
      let fingerprint: KeyFingerprint
      let created: Timestamp
      let documents: [EscrowEntry.Document]
    }
    let schemaVersion = JSONReport.schemaVersion
    let escrow: FilePath
    let keys: [Key]
    let problems: [EscrowProblem]
  }

  /// `--json` of `forget`.
  private struct ForgetReport: Encodable {
    let schemaVersion = JSONReport.schemaVersion
    let action = "forget"
    let escrow: FilePath
    let document: FilePath
    let keys: [KeyFingerprint]
  }

  /// `--json` of `export` and `import`.
  private struct TransferReport: Encodable {
    let schemaVersion = JSONReport.schemaVersion
    let action: String
    let escrow: FilePath
    let file: FilePath
    let keys: Int
    let documents: Int
    let keysAlreadyHeld: Int?
  }

  func run(_ console: Console) throws -> Int32 {
    switch action {
    case .list: return list(console)
    case .export:
      let transfer = try escrow.exportKeys(to: file!, replacing: force)
      if json {
        console.print(JSONReport.render(report(transfer, keysAlreadyHeld: nil)))
      } else {
        console.printFitted(
          "Exported \(count(transfer.keys, "key")) and \(count(transfer.documents, "document record")) to \(transfer.file) (mode \(String(transfer.permissions, radix: 8))). It holds your keys: keep it where only you can read it, move it only over an encrypted channel, and delete it once imported."
        )
      }
    case .forget:
      let keys = try escrow.forgetRecords(at: file!)
      if json {
        console.print(JSONReport.render(ForgetReport(escrow: escrow.folder, document: file!, keys: keys)))
      } else if keys.isEmpty {
        console.printFitted(
          "The escrow at \(escrow.folder) records no document at \(file!): nothing to forget.")
      } else {
        let named = keys.map(\.description).joined(separator: ", ")
        console.printFitted(
          "Forgot the escrow's records of \(file!) (\(keys.count == 1 ? "key" : "keys") \(named)). A bookmark on the file there now gets a key of its own; repair no longer puts \(keys.count == 1 ? "that key" : "those keys") back on a file at that path."
        )
      }
      return keys.isEmpty ? DocbmCommandLine.ExitStatus.failure : DocbmCommandLine.ExitStatus.success
    case .import:
      let transfer = try escrow.importKeys(from: file!)
      if json {
        console.print(JSONReport.render(report(transfer, keysAlreadyHeld: transfer.keysAlreadyHeld)))
      } else {
        let held =
          transfer.keysAlreadyHeld > 0
          ? " (\(count(transfer.keysAlreadyHeld, "key")) of it held already)" : ""
        if transfer.keys == 0 && transfer.documents == 0 {
          console.printFitted(
            "Nothing new in \(transfer.file): the escrow at \(escrow.folder) holds its \(count(transfer.keysAlreadyHeld, "key")) and their records already."
          )
        } else {
          console.printFitted(
            "Imported \(count(transfer.keys, "key")) and \(count(transfer.documents, "document record")) from \(transfer.file)\(held) into the escrow at \(escrow.folder). A document at a recorded path that lost its key can now be repaired: docbm repair PATH."
          )
        }
      }
    }
    return DocbmCommandLine.ExitStatus.success
  }

  private func list(_ console: Console) -> Int32 {
    let (listed, problems) = escrow.entries()
    let entries = Self.sortedByPath(listed)
    if json {
      console.print(
        JSONReport.render(
          ListReport(
            escrow: escrow.folder,
            keys: entries.map {
              .init(fingerprint: $0.fingerprint, created: $0.created, documents: $0.documents)
            },
            problems: problems)))
    } else {
      for entry in entries {
        console.print(
          "\(entry.fingerprint)  made \(entry.created.secondsDescription)  \(count(entry.documents.count, "document"))"
        )
        for document in entry.documents {
          // The record says where the file was when last confirmed; whether anything is
          // there now is what a reader acts on. Only a path known to lead nowhere is said
          // to; one that cannot be looked at (a folder not searchable) is left unsaid.
          let gone = Self.leadsNowhere(document.path) ? "; nothing there now" : ""
          console.print(
            "    \(document.path)  (\(document.origin.rawValue), last confirmed \(document.confirmed.secondsDescription)\(gone))"
          )
        }
      }
      if entries.isEmpty && problems.isEmpty { console.print("The escrow at \(escrow.folder) holds no key.") }
      for problem in problems { console.printError("docbm: \(problem)") }
    }
    return problems.isEmpty ? DocbmCommandLine.ExitStatus.success : DocbmCommandLine.ExitStatus.failure
  }

  /// The keys as a reader looks for them: each key's documents sorted by path (as bytes,
  /// as the filesystem compares names), the keys by their first document's path, keys
  /// without documents last, in the escrow's order.
  static func sortedByPath(_ entries: [EscrowEntry]) -> [(
    fingerprint: KeyFingerprint, created: Timestamp, documents: [EscrowEntry.Document]
  )] {
    let sorted = entries.map { entry in
      (
        fingerprint: entry.fingerprint, created: entry.created,
        documents: entry.documents.sorted { $0.path.bytes.lexicographicallyPrecedes($1.path.bytes) }
      )
    }
    return sorted.enumerated().sorted { left, right in
      switch (left.element.documents.first?.path.bytes, right.element.documents.first?.path.bytes) {
      case (let a?, let b?) where a != b: a.lexicographicallyPrecedes(b)
      case (nil, _?): false
      case (_?, nil): true
      default: left.offset < right.offset
      }
    }.map(\.element)
  }

  /// Whether nothing is at `path` (it or a folder on the way does not exist).
  private static func leadsNowhere(_ path: FilePath) -> Bool {
    do {
      _ = try FileStatus.of(path, followSymlinks: false)
      return false
    } catch {
      return error.errno == .noSuchFile || error.errno == .notDirectory
    }
  }

  private func report(_ transfer: EscrowTransfer, keysAlreadyHeld: Int?) -> TransferReport {
    TransferReport(
      action: action.rawValue, escrow: escrow.folder, file: transfer.file, keys: transfer.keys,
      documents: transfer.documents, keysAlreadyHeld: keysAlreadyHeld)
  }
}
