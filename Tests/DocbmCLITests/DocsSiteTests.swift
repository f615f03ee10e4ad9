import DocbmTestSupport
import DocumentBookmarks
import Foundation
import Testing

/// The documentation site's guides, built by `.ci/docs-site.py` as `make docs` builds them:
/// the README page a newcomer lands on has the structure it promises.
@Suite("The documentation site")
struct DocsSiteTests {
  private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  /// The guides built into a scratch folder; `nil` (said why) when this machine cannot.
  private func buildGuides() throws -> Scratch? {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/cmark-gfm") else {
      print("skipped: cmark-gfm is not installed (apt-get install cmark-gfm; make setup does)")
      return nil
    }
    let scratch = try Scratch()
    let built = run(
      "/usr/bin/python3",
      [root.appendingPathComponent(".ci/docs-site.py").path, "build", scratch.root.description])
    #expect(built.status == 0, "\(built.error)")
    return scratch
  }

  @Test(
    "the README is short, and its page starts each reader: contents, a quick start, one section per reader")
  func readmePage() throws {
    let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
    #expect(readme.split(separator: "\n", omittingEmptySubsequences: false).count < 250)
    guard let scratch = try buildGuides() else { return }
    let page = try String(contentsOfFile: scratch.path("guides/readme.html").description, encoding: .utf8)
    let headings = page.matches(of: #/<h2 id="([^"]+)">/#).map { String($0.output.1) }
    #expect(
      Array(headings.prefix(7)) == [
        "contents", "quick-start", "from-the-command-line", "from-swift", "from-c", "from-python", "limits",
      ], "\(headings)")
    // The contents list leads to headings the page has.
    let contents = try #require(page.range(of: #"<h2 id="contents">"#)).upperBound
    let list = page[contents...].split(separator: "</ul>", maxSplits: 1).first ?? ""
    let targets = list.matches(of: #/href="#([^"]+)"/#).map { String($0.output.1) }
    #expect(targets.count >= 6)
    for target in targets { #expect(headings.contains(target), "the contents link to #\(target)") }
    // Each reader's section shows code, rendered as code in its language.
    for (section, language) in [
      ("from-the-command-line", "sh"), ("from-swift", "swift"), ("from-c", "c"), ("from-python", "python"),
    ] {
      let start = try #require(page.range(of: "<h2 id=\"\(section)\">")).upperBound
      let body = page[start...].split(separator: "<h2 ", maxSplits: 1).first ?? ""
      #expect(body.contains("<pre><code class=\"language-\(language)\">"), "\(section)")
    }
    // Nothing is left as Markdown: no fence, table rule or image syntax outside code.
    let prose = page.replacing(#/<pre>[\s\S]*?</pre>/#, with: "")
    for raw in ["```", "| --- |", "|---|", "!["] { #expect(!prose.contains(raw), "\(raw)") }
  }

  @Test("the Python reference shows every name the package exports, made from its sources")
  func pythonReference() throws {
    guard let scratch = try buildGuides() else { return }
    let page = try String(contentsOfFile: scratch.path("guides/python-api.html").description, encoding: .utf8)
    let source = try String(
      contentsOf: root.appendingPathComponent("python/docbm/__init__.py"), encoding: .utf8)
    let all = try #require(source.firstMatch(of: #/__all__ = \[([^\]]*)\]/#)).output.1
    let names = all.matches(of: #/"([A-Za-z_]+)"/#).map { String($0.output.1) }
    #expect(names.count > 30)
    for name in names { #expect(page.contains("<code>\(name)</code></h3>"), "\(name)") }
    #expect(page.contains("<code>save_fault</code></h3>") && page.contains("<code>Document(path: PathLike"))
    let prose = page.replacing(#/<pre>[\s\S]*?</pre>/#, with: "")
    for raw in ["```", ":class:`", "``"] { #expect(!prose.contains(raw), "\(raw)") }
  }

  @Test("a diagram in a guide opens at full size when clicked")
  func diagramsOpen() throws {
    guard let scratch = try buildGuides() else { return }
    let page = try String(contentsOfFile: scratch.path("guides/swift.html").description, encoding: .utf8)
    let images = page.matches(of: #/<img src="([^"]+\.svg)"/#).map { String($0.output.1) }
    #expect(images.count >= 2)
    for image in images { #expect(page.contains("<a href=\"\(image)\"><img src=\"\(image)\""), "\(image)") }
  }
}

/// The public surface and the documentation agree: every public type of each library is in
/// a task group of its module's DocC page, so none is public without a reader being shown it.
@Suite("Public types and DocC topics")
struct PublicSurfaceTests {
  private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  @Test(
    "every public type is in its module's topics",
    arguments: ["DocumentBookmarks", "DocumentBookmarkStore", "DocumentWatching", "DocumentBookmarksTesting"])
  func typesInTopics(module: String) throws {
    let page = try String(
      contentsOf: root.appendingPathComponent("Sources/\(module)/\(module).docc/\(module).md"),
      encoding: .utf8)
    let topics = try #require(page.firstRange(of: "## Topics")).upperBound
    let curated = Set(page[topics...].matches(of: #/``([A-Za-z0-9]+)``/#).map { String($0.output.1) })
    let sources = FileManager.default.enumerator(
      atPath: root.appendingPathComponent("Sources/\(module)").path)
    var declared: [String] = []
    while let file = sources?.nextObject() as? String {
      guard file.hasSuffix(".swift") else { continue }
      let text = try String(
        contentsOf: root.appendingPathComponent("Sources/\(module)/\(file)"), encoding: .utf8)
      declared += text.matches(
        of: #/(?m)^public (?:final )?(?:struct|enum|class|protocol|actor) ([A-Za-z0-9]+)/#
      )
      .map { String($0.output.1) }
    }
    #expect(!declared.isEmpty)
    for type in declared { #expect(curated.contains(type), "\(module).\(type) is public but in no topic") }
  }
}
