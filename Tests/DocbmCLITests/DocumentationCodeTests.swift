import DocbmTestSupport
import DocumentBookmarks
import Foundation
import Testing

/// Every Swift code block in the README, `docs/*.md`, the samples' READMEs and the DocC
/// catalogues compiles against the built library, so that code pasted from the docs works.
///
/// A block's fence says what it is:
///
/// - ` ```swift `: a whole file (declarations, `@Test` functions), compiled as it stands.
/// - ` ```swift fragment `: statements. A document's fragments are put, in order, into one
///   `async throws` function, so a later fragment sees what an earlier one declared, as a
///   reader does. The names an app would provide (`boardURL`, `show(_:)`, …) come from
///   ``DocumentationCode/prelude``.
/// - ` ```swift manifest `: a whole `Package.swift`, loaded by SwiftPM (see
///   ``packageManifests()``).
///
/// Each document becomes one generated file, type-checked with one `swiftc -typecheck`
/// against the modules the test build made (about a second per document, in parallel).
@Suite("Code in the documentation compiles")
struct DocumentationCodeTests {
  @Test("Swift blocks type-check against the library", arguments: DocumentationCode.documents)
  func swiftBlocksCompile(_ document: String) throws {
    let blocks = try DocumentationCode.blocks(in: document).filter { $0.kind != .manifest }
    guard !blocks.isEmpty else { return }
    let scratch = try Scratch()
    var files: [String] = []
    for (name, source) in DocumentationCode.generatedFiles(for: document, blocks: blocks) {
      files.append(try scratch.file(name, source).description)
    }
    let result = DocumentationCode.typecheck(files)
    #expect(result.status == 0, "\(document):\n\(result.error)\(result.output)")
  }

  @Test("Every documentation block has a known kind; the README and the Swift guide have theirs")
  func markersAreKnown() throws {
    for document in DocumentationCode.documents {
      for block in try DocumentationCode.blocks(in: document) {
        #expect(block.kind != nil, "\(document):\(block.line): unknown marker '\(block.info)'")
      }
    }
    let readme = try DocumentationCode.blocks(in: "README.md")
    #expect(readme.contains { $0.kind == .manifest } && readme.contains { $0.kind == .fragment })
    let guide = try DocumentationCode.blocks(in: "docs/swift.md")
    #expect(guide.filter { $0.kind == .manifest }.count >= 2, "a tagged release and a local checkout")
    #expect(guide.count >= 15)
  }

  /// The `Package.swift` examples of the README and the Swift guide: the tagged-release one is a manifest SwiftPM
  /// loads; the local-checkout one, pointed at this checkout (whose folder need not be
  /// called `docbm`), resolves `package: "docbm"`.
  @Test("The Package.swift examples load, and the local one resolves the package name")
  func packageManifests() throws {
    let manifests = try ["README.md", "docs/swift.md"].flatMap { source in
      try DocumentationCode.blocks(in: source).filter { $0.kind == .manifest }.map { ($0, source) }
    }
    try #require(!manifests.isEmpty)
    for (manifest, source) in manifests {
      let scratch = try Scratch()
      var text = manifest.code
      let isLocal = text.contains("path: \"../docbm\"")
      if isLocal {
        text = text.replacingOccurrences(
          of: "path: \"../docbm\"", with: "path: \"\(DocumentationCode.root)\"")
      }
      try scratch.file("Package.swift", text)
      for (kind, name) in DocumentationCode.targets(in: text) {
        try scratch.file("\(kind == "testTarget" ? "Tests" : "Sources")/\(name)/main.swift", "\n")
      }
      let result = run(
        "/usr/bin/env",
        [
          "swift", "package", "--package-path", scratch.root.description,
          isLocal ? "describe" : "dump-package",
        ])
      #expect(result.status == 0, "\(source):\(manifest.line):\n\(result.error)")
    }
  }
}

/// Finds and wraps the documentation's code blocks.
enum DocumentationCode {
  /// The package's folder.
  static let root: String = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().path

  /// The documents whose code is checked, relative to the package's folder.
  static let documents: [String] = {
    let manager = FileManager.default
    var found = ["README.md"]
    for folder in ["docs", "Samples"] {
      let enumerator = manager.enumerator(atPath: "\(root)/\(folder)")
      while let entry = enumerator?.nextObject() as? String {
        if entry.hasSuffix(".md") { found.append("\(folder)/\(entry)") }
      }
    }
    for target in (try? manager.contentsOfDirectory(atPath: "\(root)/Sources")) ?? [] {
      let catalogue = "Sources/\(target)/\(target).docc"
      let enumerator = manager.enumerator(atPath: "\(root)/\(catalogue)")
      while let entry = enumerator?.nextObject() as? String {
        if entry.hasSuffix(".md") { found.append("\(catalogue)/\(entry)") }
      }
    }
    return found.sorted()
  }()

  enum Kind: String { case file = "", fragment, manifest }

  struct Block {
    let info: String
    /// The line of the block's first line of code, from 1.
    let line: Int
    let code: String
    var kind: Kind? { Kind(rawValue: info) }
  }

  /// The Swift blocks of a document, with the words after `swift` on the fence.
  static func blocks(in document: String) throws -> [Block] {
    let text = try String(contentsOfFile: "\(root)/\(document)", encoding: .utf8)
    var blocks: [Block] = []
    var current: (info: String, line: Int, lines: [String])?
    var inOtherBlock = false
    for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      if var open = current {
        if trimmed == "```" {
          blocks.append(Block(info: open.info, line: open.line, code: open.lines.joined(separator: "\n")))
          current = nil
        } else {
          open.lines.append(String(line))
          current = open
        }
      } else if trimmed.hasPrefix("```") {
        let info = trimmed.dropFirst(3).trimmingCharacters(in: .whitespaces)
        if inOtherBlock {
          inOtherBlock = info.isEmpty ? false : inOtherBlock
        } else if info == "swift" || info.hasPrefix("swift ") {
          current = (String(info.dropFirst(5)).trimmingCharacters(in: .whitespaces), index + 2, [])
        } else {
          inOtherBlock = true
        }
      }
    }
    return blocks
  }

  /// The files for a document: the prelude; its fragments, in order, in one function
  /// (with the fragments' imports, Foundation, and for a DocC catalogue its own module);
  /// and each whole-file block alone with only its own imports, so that a block which
  /// forgets an import fails. `#sourceLocation` makes errors name the document's lines.
  static func generatedFiles(for document: String, blocks: [Block]) -> [(name: String, source: String)] {
    func located(_ block: Block, imports: inout Set<String>) -> String {
      var lines: [String] = []
      for line in block.code.split(separator: "\n", omittingEmptySubsequences: false) {
        if line.hasPrefix("import ") {
          imports.insert(String(line))
          lines.append("")  // keeps the line numbers
        } else {
          lines.append(String(line))
        }
      }
      return "#sourceLocation(file: \"\(document)\", line: \(block.line))\n" + lines.joined(separator: "\n")
        + "\n#sourceLocation()\n"
    }
    var files = [
      (
        name: "Prelude.swift",
        source: "import DocumentBookmarkStore\nimport DocumentBookmarks\nimport Foundation\n\n" + prelude
      )
    ]
    var fragmentImports: Set<String> = ["import Foundation"]
    if let catalogue = document.split(separator: "/").first(where: { $0.hasSuffix(".docc") }) {
      fragmentImports.insert("import \(catalogue.dropLast(5))")
    }
    var fragments: [String] = []
    for (index, block) in blocks.enumerated() {
      if block.kind == .fragment {
        fragments.append(located(block, imports: &fragmentImports))
      } else {
        var imports: Set<String> = []
        let body = located(block, imports: &imports)
        files.append(
          (name: "Block\(index).swift", source: imports.sorted().joined(separator: "\n") + "\n" + body))
      }
    }
    if !fragments.isEmpty {
      files.append(
        (
          name: "Fragments.swift",
          source: fragmentImports.sorted().joined(separator: "\n")
            + "\n\nfunc documentationFragments() async throws {\n" + fragments.joined(separator: "\n") + "}\n"
        ))
    }
    return files
  }

  /// What an app provides that the snippets use: its own files, views, model and editor.
  static let prelude = """
    // The app's own names the documentation's snippets call.
    let boardURL = URL(fileURLWithPath: "board.json")
    let catImageURL = URL(fileURLWithPath: "cat.png")
    let documentURL = URL(fileURLWithPath: "document.json")
    let imageURL = URL(fileURLWithPath: "image.png")
    let documentPath = FilePath("document.json")
    let newPath = FilePath("copy.json")
    let saveAsURL = URL(fileURLWithPath: "Archive/board.json")
    let folder = FilePath("Documents")
    let boardPath = FilePath("board.json")
    let contents = Data()
    func show(_ path: FilePath) {}
    func open(_ path: FilePath) {}
    func markDocumentEdited() {}
    func showOffline(_ path: FilePath?) {}
    func offerWiderSearch(_ path: FilePath?) {}
    func removeFromBoard() {}
    func offerRepair(_ error: DocbmError) {}
    func askUserToPickAgain() {}
    func explain(_ error: DocbmError) {}
    func showSaveFailed(_ message: String, retry: Bool) {}
    func documentMoved(to path: FilePath) {}
    func reloadDocument(from path: FilePath) {}
    func offerToSaveAgain() {}
    func warnKeyLost(_ path: FilePath?) {}
    struct Writer: Sendable { func write(to url: URL) throws {} }
    let myWriter = Writer()
    struct Board: Sendable {
      static let sample = Board()
      func save(to url: URL) throws {}
    }
    struct Editor: Sendable {
      func open(_ url: URL) throws {}
      func addImage(_ url: URL) throws {}
      func save() throws {}
      func saveInBackgroundAndWait() {}
    }
    let editor = Editor()
    enum TileState: Sendable { case shown, offline, gone }
    enum Banner: Sendable { case none, repairKey }
    final class BoardView: Sendable {
      func reload() async {}
      var tiles: [TileState] { [.shown] }
      var banner: Banner { .none }
      var showsProgress: Bool { false }
    }
    let boardView = BoardView()
    final class RecentsView: Sendable {
      func reload(from store: BookmarkStore<String, NoMetadata>) async {}
      func add(_ url: URL, to store: BookmarkStore<String, NoMetadata>) async {}
      var showsError: Bool { false }
    }
    let recentsView = RecentsView()
    """

  /// The `(kind, name)` of each target a manifest declares.
  static func targets(in manifest: String) -> [(String, String)] {
    var found: [(String, String)] = []
    for kind in ["executableTarget", "testTarget", "target"] {
      var rest = Substring(manifest)
      while let range = rest.range(of: ".\(kind)(name: \"") {
        let after = rest[range.upperBound...]
        guard let end = after.firstIndex(of: "\"") else { break }
        found.append((kind, String(after[..<end])))
        rest = after[end...]
      }
    }
    return found
  }

  /// `swiftc -typecheck` against the modules beside the built `docbm`.
  static func typecheck(_ files: [String]) -> ProcessResult {
    let build = URL(fileURLWithPath: Capabilities.docbmExecutable).deletingLastPathComponent().path
    // Every system-library target's module map (each C target the library links), and the
    // shim's, which the build generates.
    let systemLibraries = ((try? FileManager.default.contentsOfDirectory(atPath: "\(root)/Sources")) ?? [])
      .sorted()
      .map { "\(root)/Sources/\($0)/module.modulemap" }
      .filter { FileManager.default.fileExists(atPath: $0) }
    let moduleMaps = (systemLibraries + ["\(build)/CDocbmShims.build/module.modulemap"]).flatMap {
      ["-Xcc", "-fmodule-map-file=\($0)"]
    }
    return run(
      "/usr/bin/env",
      ["swiftc", "-typecheck", "-parse-as-library", "-swift-version", "6", "-I", "\(build)/Modules"]
        + moduleMaps + files)
  }
}
