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
    let verdict: CheckVerdict
    let bookmarks: [DocumentCheck.FoundEvidence]
  }

  func run(_ console: Console) throws -> Int32 {
    let anchored = BookmarkService().documents(anchoredOn: document)
    let key: KeyReport
    do {
      if let fingerprint = try anchored.keyFingerprint() {
        key = KeyReport(state: "present", fingerprint: fingerprint, problem: nil)
      } else {
        key = KeyReport(state: "absent", fingerprint: nil, problem: nil)
      }
    } catch {
      guard error.code == .keyMalformed || error.code == .unsupportedVersion else { throw error }
      key = KeyReport(state: "malformed", fingerprint: nil, problem: error.message)
    }
    let attributes = try anchored.attributes()
    let checker = DocumentChecker(escrow: .default)
    let check = checker.check(document)
    for failure in checker.recordSightings([check]) {
      console.printError("warning: the escrow could not record the document: \(failure)")
    }
    if json {
      console.print(
        JSONReport.render(
          Report(
            document: document, key: key, attributes: attributes, verdict: check.verdict,
            bookmarks: check.bookmarks)))
      return DocbmCommandLine.ExitStatus.success
    }
    console.print("document:     \(document)")
    switch key.state {
    case "present": console.print("key:          present, fingerprint \(key.fingerprint!)")
    case "absent": console.print("key:          absent (no bookmark was ever made, or a save lost it)")
    default: console.print("key:          malformed: \(key.problem ?? "")")
    }
    console.print("attributes:   \(attributes.isEmpty ? "none" : "")")
    for attribute in attributes {
      console.print("  \(attribute.name)  \(attribute.size) bytes")
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
    console.print("verdict:      \(check.verdict.rawValue): \(check.message)")
    return DocbmCommandLine.ExitStatus.success
  }
}
