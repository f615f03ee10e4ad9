import DocbmTestSupport
import DocumentBookmarks
import Foundation
import Testing

/// The build's fence between the system module and the rest: the checker the
/// LayeringCheck plugin runs before each module compiles.
@Suite("The layering check")
struct LayeringCheckTests {
  /// The checker, built beside the test bundle.
  let tool = URL(fileURLWithPath: Capabilities.docbmExecutable).deletingLastPathComponent()
    .appendingPathComponent("LayeringCheckTool").path

  /// Runs the checker over one file holding `source`; its status, standard error, and
  /// whether it wrote its stamp.
  private func check(_ source: String, options: [String] = []) throws -> (
    status: Int32, error: String, stamped: Bool
  ) {
    let scratch = try Scratch()
    let file = try scratch.file("Sample.swift", source)
    let stamp = scratch.root.appending("stamp.swift")
    let result = run(tool, options + ["SampleModule", stamp.description, file.description])
    return (result.status, result.error, FileManager.default.fileExists(atPath: stamp.description))
  }

  @Test(
    "an import of Glibc, Foundation or a C module fails, however it is written",
    arguments: [
      "import Glibc", "import Foundation", "@preconcurrency import CDocbmShims", "public import CSQLite",
      "  package import CLibAttr", "import struct Glibc.stat", "@_exported import CCrypto",
      "internal import CSodium", "import Glibc;", "let x = 0; import Foundation", "/* why */ import Glibc",
      "import\tGlibc // the C library", "import Glibc.stat", "import\n  Glibc",
      "@preconcurrency\nimport Glibc",
      "public import struct\nGlibc.stat", "import /* a comment\nover lines */ Foundation",
    ])
  func refused(line: String) throws {
    try #require(FileManager.default.isExecutableFile(atPath: tool), "no checker at \(tool)")
    let result = try check("// A file.\n\n\(line)\n\nlet x = 1\n")
    #expect(result.status == 1)
    #expect(result.error.contains("Sample.swift:3: error: SampleModule imports"), "\(result.error)")
    #expect(!result.stamped)
  }

  @Test("the modules the domain may use pass, and the stamp is written")
  func allowed() throws {
    try #require(FileManager.default.isExecutableFile(atPath: tool), "no checker at \(tool)")
    let result = try check(
      "import DocbmSystem\npublic import FoundationEssentials\nimport Synchronization\nimport Dispatch\n"
        + "// import Glibc, in a comment\nlet text = \"import Glibc\"\n/* import Foundation */ let y = 2\n"
        + "import Synchronization; import DocbmSystem\n/* a comment\nimport Glibc\n*/\npublic\nstruct S {}\n"
        + "import\n  DocbmSystem\n")
    #expect(result.status == 0, "\(result.error)")
    #expect(result.stamped)
  }

  @Test("a module of the package imported without being declared fails; declared ones and others pass")
  func undeclared() throws {
    try #require(FileManager.default.isExecutableFile(atPath: tool), "no checker at \(tool)")
    let options = [
      "--declared", "DocumentBookmarks", "--package-modules", "DocbmSystem,DocumentBookmarks,SampleModule",
    ]
    let refused = try check("import DocumentBookmarks\nimport\n  DocbmSystem\n", options: options)
    #expect(refused.status == 1)
    #expect(
      refused.error.contains("Sample.swift:2: error: SampleModule imports DocbmSystem without declaring it"),
      "\(refused.error)")
    #expect(!refused.stamped)
    let passed = try check(
      "import DocumentBookmarks\nimport Synchronization\n@testable import SampleModule\n", options: options)
    #expect(passed.status == 0, "\(passed.error)")
    #expect(passed.stamped)
  }
}
