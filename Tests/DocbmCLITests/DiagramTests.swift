import DocbmTestSupport
import DocumentBookmarks
import Foundation
import Testing

/// The diagrams in docs/images: each made from a Graphviz source kept beside it, up to date
/// with it, drawable, and shown where the prose explains the same thing.
@Suite("Diagrams")
struct DiagramTests {
  private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
  private var images: URL { root.appendingPathComponent("docs/images") }

  /// The diagrams' names (`save` for save.dot and save.svg).
  private func names() throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: images.path)
      .filter { $0.hasSuffix(".dot") }.map { String($0.dropLast(4)) }.sorted()
  }

  /// The text an SVG drawing shows, in order: what a reader reads in it.
  private func texts(inSVG svg: String) -> [String] {
    svg.matches(of: #/<text[^>]*>([^<]*)</text>/#).map { String($0.output.1) }
  }

  @Test("the four diagrams are there, each with its source")
  func present() throws {
    #expect(try names() == ["escrow", "modules", "resolution", "save"])
    for name in try names() {
      #expect(
        FileManager.default.fileExists(atPath: images.appendingPathComponent("\(name).svg").path),
        "\(name).svg")
    }
  }

  @Test("each SVG says what its source says (make diagrams was run after the last change)")
  func upToDate() throws {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/dot") else {
      print("skipped: Graphviz's dot is not installed (apt-get install graphviz)")
      return
    }
    for name in try names() {
      let made = run("/usr/bin/dot", ["-Tsvg", images.appendingPathComponent("\(name).dot").path])
      #expect(made.status == 0, "\(name).dot: \(made.error)")
      let committed = try String(contentsOf: images.appendingPathComponent("\(name).svg"), encoding: .utf8)
      #expect(!texts(inSVG: made.output).isEmpty)
      #expect(texts(inSVG: committed) == texts(inSVG: made.output), "\(name).svg is older than \(name).dot")
    }
  }

  @Test("each SVG renders to a PNG of some size (rsvg-convert)")
  func renders() throws {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/rsvg-convert") else {
      print("skipped: rsvg-convert is not installed (apt-get install librsvg2-bin)")
      return
    }
    let scratch = try Scratch()
    for name in try names() {
      let png = scratch.path("\(name).png").description
      let made = run("/usr/bin/rsvg-convert", [images.appendingPathComponent("\(name).svg").path, "-o", png])
      #expect(made.status == 0, "\(name).svg: \(made.error)")
      let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: png)))
      #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]), "\(name).png is no PNG")
      // The PNG header's width and height (big-endian, at bytes 16 and 20).
      let width = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }
      let height = bytes[20..<24].reduce(0) { $0 << 8 | Int($1) }
      #expect(width > 300 && height > 200, "\(name).png is \(width)x\(height)")
    }
  }

  @Test("the modules diagram draws the dependencies Package.swift declares, and no other")
  func modulesMatchPackage() throws {
    let manifest = try String(
      contentsOfFile: root.appendingPathComponent("Package.swift").path, encoding: .utf8)
    // Each target's name and the names in its dependencies list.
    var declared: [String: Set<String>] = [:]
    for match in manifest.matches(of: #/name: "(\w+)",\s*dependencies: \[([^\]]*)\]/#) {
      declared[String(match.output.1)] = Set(
        match.output.2.matches(of: #/"(\w+)"/#).map { String($0.output.1) })
    }
    let source = try String(contentsOf: images.appendingPathComponent("modules.dot"), encoding: .utf8)
    // A node's modules: its label's first line ("DocbmCLI, docbm"); the C modules, its second.
    var modules: [String: [String]] = [:]
    for match in source.matches(of: #/(\w+) \[label="([^\\"]*)\\n([^\\"]*)/#) {
      let (node, first, second) = (String(match.output.1), match.output.2, match.output.3)
      let names = (first == "C modules" ? second : first).split(separator: ",").map {
        String($0.trimmingCharacters(in: .whitespaces).prefix { $0.isLetter })
      }
      modules[node] = names
    }
    let drawn = Set(
      source.matches(of: #/(\w+) -> (\w+)[ ;]/#).map { "\($0.output.1) -> \($0.output.2)" })
    var expected: Set<String> = []
    for (from, fromModules) in modules {
      for (to, toModules) in modules where from != to {
        let imports = fromModules.contains { module in
          !(declared[module] ?? []).isDisjoint(with: toModules)
        }
        if imports { expected.insert("\(from) -> \(to)") }
      }
    }
    #expect(modules.count == 8, "\(modules)")
    #expect(drawn == expected)
  }

  @Test("each diagram is at most 720 points wide, so that its text stays readable in a page's column")
  func narrow() throws {
    for name in try names() {
      let svg = try String(contentsOf: images.appendingPathComponent("\(name).svg"), encoding: .utf8)
      let width = try #require(svg.firstMatch(of: #/<svg width="([0-9.]+)pt"/#)).output.1
      #expect(try #require(Double(width)) <= 720, "\(name).svg is \(width)pt wide")
    }
  }

  @Test("each diagram is shown in the documentation")
  func shown() throws {
    var pages = [root.appendingPathComponent("README.md")]
    pages += try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)
      .filter { $0.hasSuffix(".md") }.map { root.appendingPathComponent("docs/\($0)") }
    let text = try pages.map { try String(contentsOf: $0, encoding: .utf8) }.joined()
    for name in try names() {
      #expect(text.contains("images/\(name).svg)"), "no page shows \(name).svg")
    }
  }
}
