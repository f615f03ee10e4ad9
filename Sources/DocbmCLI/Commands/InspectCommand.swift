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
    if json {
      console.print(JSONReport.render(Report(document: document, key: key, attributes: attributes)))
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
    return DocbmCommandLine.ExitStatus.success
  }
}
