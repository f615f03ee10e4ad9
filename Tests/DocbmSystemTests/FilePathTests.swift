import Testing

@testable import DocbmSystem

@Suite("FilePath")
struct FilePathTests {
  @Test("bytes that are not UTF-8 are kept and printed escaped")
  func nonUTF8() throws {
    let path = try #require(FilePath(bytes: Array("/tmp/caf".utf8) + [0xE9] + Array(".txt".utf8)))
    #expect(path.string == nil)
    #expect(path.description == "/tmp/caf\\xe9.txt")
    #expect(path.bytes.count == 13)
  }

  @Test(
    "the last component is the name after the last slash, trailing slashes aside",
    arguments: [
      ("/a/b", "b"), ("/a/b/", "b"), ("/a//b//", "b"), ("/", ""), ("", ""), ("a", "a"), ("a/b", "b"),
      ("//", ""), ("/a/..", ".."),
    ])
  func lastComponent(path: String, expected: String) {
    #expect(FilePath(path).lastComponent == Array(expected.utf8))
    #expect(FilePath(path).lastComponent == (FilePath(path).components.last ?? []))
  }

  @Test(
    "appending puts one slash between the path and the component",
    arguments: [
      ("/a", "b", "/a/b"), ("/a/", "b", "/a/b"), ("/", "b", "/b"), ("", "b", "b"), ("a", "", "a/"),
      ("/tmp/docbm", "doc-1.json", "/tmp/docbm/doc-1.json"),
    ])
  func appending(path: String, component: String, expected: String) {
    #expect(FilePath(path).appending(component).bytes == Array(expected.utf8))
  }

  @Test("a NUL byte makes no path")
  func nul() {
    #expect(FilePath(bytes: [0x61, 0, 0x62]) == nil)
  }

  @Test("control characters and backslashes are escaped, other text is not")
  func escaping() {
    #expect(FilePath("a\\b\nc").description == "a\\\\b\\x0ac")
    #expect(FilePath("/tmp/Ünïcödé 🐱").description == "/tmp/Ünïcödé 🐱")
  }

  @Test(
    "relative paths from a folder",
    arguments: [
      ("/a/b/c", "/a/b", "c"),
      ("/a/b/c", "/a/d", "../b/c"),
      ("/a", "/a/b/c", "../.."),
      ("/a/b", "/a/b", "."),
      ("/x/y", "/a/b", "../../x/y"),
      ("/a/bc", "/a/b", "../bc"), ("/a/b", "/a/bc", "../b"), ("/", "/a", ".."), ("/a", "/", "a"),
      ("/", "/", "."), ("/a//b/./c/", "/a/b/", "c"), ("/a/b/../c", "/a", "c"),
    ])
  func relative(target: String, base: String, expected: String) {
    #expect(FilePath(target).relative(from: FilePath(base)).description == expected)
  }

  @Test("relative paths agree with a component by component walk, on many random paths")
  func relativeByComponents() {
    var generator = SystemRandomNumberGenerator()
    let names = ["a", "b", "ab", "ba", ".", "..", "", "a.b"]
    func randomPath() -> FilePath {
      let parts = (0..<Int.random(in: 0...5, using: &generator)).map { _ in
        names.randomElement(using: &generator)!
      }
      return FilePath("/" + parts.joined(separator: "/"))
    }
    for _ in 0..<2_000 {
      let target = randomPath()
      let base = randomPath()
      let targetParts = target.absolute.components
      let baseParts = base.absolute.components
      var common = 0
      while common < targetParts.count, common < baseParts.count, targetParts[common] == baseParts[common] {
        common += 1
      }
      let parts = Array(repeating: Array("..".utf8), count: baseParts.count - common) + targetParts[common...]
      let expected =
        parts.isEmpty ? "." : parts.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "/")
      #expect(target.relative(from: base).description == expected, "\(target) from \(base)")
    }
  }

  @Test("lexical normalization removes . and resolves ..")
  func normalization() {
    #expect(FilePath("/a/./b/../c//d/").lexicallyNormalized.description == "/a/c/d")
    #expect(FilePath("/..").lexicallyNormalized.description == "/")
    #expect(FilePath("../a/../../b").lexicallyNormalized.description == "../../b")
  }

  @Test("normalization agrees with a plain reference on every short path of /, ., .. and names")
  func normalizationReference() {
    // Reference: split on "/", drop empty and ".", let ".." remove the last kept name.
    func reference(_ text: String) -> String {
      let absolute = text.hasPrefix("/")
      var kept: [Substring] = []
      var parents = 0
      for part in text.split(separator: "/", omittingEmptySubsequences: true) where part != "." {
        if part == ".." {
          if kept.popLast() == nil && !absolute { parents += 1 }
        } else {
          kept.append(part)
        }
      }
      let joined = (Array(repeating: "..", count: parents) + kept.map(String.init)).joined(separator: "/")
      if absolute { return "/" + joined }
      return joined.isEmpty ? "." : joined
    }
    let pieces = ["/", ".", "..", "a", ".b", "c."]
    var paths = [""]
    for _ in 0..<4 { paths = paths + paths.flatMap { path in pieces.map { path + $0 } } }
    for path in Set(paths) where !path.isEmpty {
      #expect(FilePath(path).lexicallyNormalized.description == reference(path), "\(path)")
    }
  }

  @Test("a path survives the trip through a file URL")
  func url() {
    let path = FilePath("/tmp/with space/ünï.txt")
    #expect(FilePath(path.url) == path)
  }

  @Test("the rest of a path below a folder starts after the folder and one slash, byte for byte")
  func restBelowFolder() {
    func rest(_ path: String, _ folder: String) -> Int? {
      Array(path.utf8).withUnsafeBytes { path in
        Array(folder.utf8).withUnsafeBytes { FilePath.restStart(of: path, below: $0) }
      }
    }
    #expect(rest("/a/b/doc.json", "/a/b") == 5)
    #expect(rest("/a/b/c/doc.json", "/a/b") == 5)
    #expect(rest("/doc.json", "/") == 1)
    #expect(rest("/a/bc/doc.json", "/a/b") == nil)
    #expect(rest("/a/b", "/a/b") == nil)
    #expect(rest("/a/b/", "/a/b") == nil)
    #expect(rest("/x/b/doc.json", "/a/b") == nil)
    #expect(rest("/", "/") == nil)
  }

  @Test("isBelow: the folder, a slash and more; not the folder itself, nor a longer name")
  func isBelow() {
    #expect(FilePath("/a/b").isBelow(FilePath("/a")))
    #expect(FilePath("/a/b/c").isBelow(FilePath("/a")))
    #expect(FilePath("/x").isBelow(FilePath("/")))
    #expect(!FilePath("/a").isBelow(FilePath("/a")))
    #expect(!FilePath("/ab").isBelow(FilePath("/a")))
    #expect(!FilePath("/a").isBelow(FilePath("/a/b")))
    #expect(!FilePath("/").isBelow(FilePath("/")))
  }
}
