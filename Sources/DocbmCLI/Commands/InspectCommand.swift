import DocumentBookmarks

/// `docbm inspect DOCUMENT`: the key's state and fingerprint, and the other attributes.
struct InspectCommand {
  let document: FilePath
  let json: Bool

  private struct KeyReport: Encodable {
    /// `present`, `absent` or `malformed`.
    let state: String
    let fingerprint: KeyFingerprint?
    let problem: String?
  }

  private struct Report: Encodable {
    let schemaVersion = JSONReport.schemaVersion
    let document: FilePath
    let key: KeyReport
    let attributes: [AttributeSummary]
    /// Absent for a folder document, whose bookmarks are in the files inside it.
    let verdict: CheckVerdict?
    let bookmarks: [DocumentCheck.FoundEvidence]
    /// What a folder document's report means.
    let note: String?
    /// The Documents portal export the document is reached through, when it is.
    let portal: PortalDocument?
  }

  /// One line on a document reached through the Documents portal: which export, what works
  /// there, and where the document really is.
  static func portalLine(_ portal: PortalDocument) -> String {
    let export =
      portal.kind == .file
      ? "a single-file export (its key can be read, but no key can be added; save with --in-place)"
      : "inside a folder export (keys and safe saves work)"
    let host = portal.hostPath.map { "host path \($0)" } ?? "host path unknown (the portal does not say)"
    let app = portal.appID.map { ", in the view of app \($0)" } ?? ""
    return "through the Documents portal: document \(portal.documentID)\(app), \(export); \(host)"
  }

  /// What inspect says of a folder document instead of a verdict on its bytes.
  static func folderNote(_ folder: FilePath) -> String {
    "a folder document: its bookmarks are in the files inside it; 'docbm check -r \(folder)' checks them"
  }

  func run(_ console: Console) throws -> Int32 {
    // One descriptor for the key, the attributes and the bytes; the escrow's database is
    // opened only when its record can change the verdict (a document without a key or
    // without bookmarks): a document with both is judged by them alone, as `check` judges
    // it, without the cost of opening the database.
    let inspection = try DocumentInspection.inspect(document, escrow: .default)
    if let migration = inspection.checker.escrowMigration { DocbmCommandLine.announce(migration, console) }
    let check = inspection.check
    if let check {
      for failure in inspection.checker.recordMoves([check]) {
        console.printError("warning: the escrow could not record the document: \(commandLineText(failure))")
      }
    }
    let key: KeyReport
    switch inspection.key {
    case .present(let fingerprint): key = KeyReport(state: "present", fingerprint: fingerprint, problem: nil)
    case .absent: key = KeyReport(state: "absent", fingerprint: nil, problem: nil)
    case .malformed(let problem): key = KeyReport(state: "malformed", fingerprint: nil, problem: problem)
    }
    let attributes = inspection.attributes
    let note = check == nil ? InspectCommand.folderNote(document) : nil
    let portal = inspection.portal
    if json {
      console.print(
        JSONReport.render(
          Report(
            document: document, key: key, attributes: attributes, verdict: check?.verdict,
            bookmarks: check?.bookmarks ?? [], note: note, portal: portal)))
      return DocbmCommandLine.ExitStatus.success
    }
    console.print("document:     \(document)")
    if let portal { console.print("portal:       \(InspectCommand.portalLine(portal))") }
    switch key.state {
    case "present": console.print("key:          present, fingerprint \(key.fingerprint!)")
    case "absent": console.print("key:          absent (no bookmark was ever made, or a save lost it)")
    default: console.print("key:          malformed: \(key.problem ?? "")")
    }
    console.print("attributes:   \(attributes.isEmpty ? "none" : "")")
    for attribute in attributes {
      console.print("  \(attribute.name)  \(attribute.size) bytes")
    }
    guard let check else {
      console.print("bookmarks:    \(note ?? "")")
      return DocbmCommandLine.ExitStatus.success
    }
    console.print(
      "bookmarks:    \(check.bookmarks.isEmpty ? "none found in the contents" : "\(check.bookmarks.count) found")"
    )
    for found in check.bookmarks {
      let state =
        found.verifies
        ? (found.resolves
          ? "verifies, resolves" : "verifies, does not resolve (\(found.problem?.rawValue ?? "?"))")
        : "does not verify (\(found.problem?.rawValue ?? "?"))"
      let target = found.recordedTarget.map { " → \($0)" } ?? ""
      console.print(
        "  \(found.form.rawValue) at \(found.offset), key \(found.fingerprint)\(target): \(state)")
    }
    console.print("verdict:      \(check.verdict.rawValue): \(console.message(check.message))")
    return DocbmCommandLine.ExitStatus.success
  }
}
