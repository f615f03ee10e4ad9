import DocbmTestSupport
import DocumentBookmarks
import Foundation
import Testing

/// The release's number, said in every place that says it.
@Suite("One release number")
struct ReleaseTests {
  let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  func text(_ relative: String) throws -> String {
    try String(contentsOf: root.appendingPathComponent(relative), encoding: .utf8)
  }

  /// The first match of `pattern`'s first group in `text`.
  func first(_ pattern: String, in text: String) throws -> String? {
    let expression = try NSRegularExpression(pattern: pattern, options: [.anchorsMatchLines])
    let range = NSRange(text.startIndex..., in: text)
    guard let match = expression.firstMatch(in: text, range: range),
      let group = Range(match.range(at: 1), in: text)
    else { return nil }
    return String(text[group])
  }

  @Test("docbm --version, docbm.h, the Python package and the changelog's latest release agree")
  func agree() throws {
    let version = DocbmRelease.version
    let header = try text("Sources/DocbmC/include/docbm.h")
    let parts = try ["MAJOR", "MINOR", "PATCH"].map {
      try first("^#define DOCBM_VERSION_\($0) ([0-9]+)$", in: header)
    }
    #expect(parts.compactMap { $0 }.joined(separator: ".") == version, "docbm.h")
    #expect(
      try first("^version = \"([^\"]+)\"$", in: text("python/pyproject.toml")) == version, "pyproject.toml")
    #expect(
      try first("^## \\[([0-9][^\\]]*)\\] - [0-9]{4}-[0-9]{2}-[0-9]{2}$", in: text("CHANGELOG.md"))
        == version,
      "the changelog's latest release")
    for guide in ["README.md", "docs/swift.md"] {
      let named = try first("from: \"([0-9.]+)\"", in: text(guide))
      #expect(named == version, "\(guide) tells Swift users to depend on \(named ?? "nothing")")
    }
  }
}
