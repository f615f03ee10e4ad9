// The layering check: given a module's name, the file to write when the module passes,
// and the module's Swift files, prints an error for each import of a module that only
// DocbmSystem may import, and exits 1 if there is one.

import Foundation

/// Modules that reach C: Glibc itself, Foundation (which re-exports it on Linux), and the
/// package's C modules.
let forbidden: Set<String> = [
  "Glibc", "SwiftGlibc", "Musl", "Darwin", "Foundation", "FoundationNetworking", "FoundationXML",
  "CDocbmShims", "CLibAttr", "CCrypto", "CSodium", "CSQLite",
]

/// The module an `import` statement names, if the statement is one: attributes and an
/// access level may come first (`@preconcurrency public import X`), a kind may follow
/// (`import struct X.Y`); the name ends where an identifier does (`import Glibc;`).
func importedModule(_ statement: Substring) -> String? {
  var words = statement.split(whereSeparator: { $0 == " " || $0 == "\t" })[...]
  let modifiers: Set<Substring> = ["public", "package", "internal", "fileprivate", "private"]
  while let first = words.first, first.hasPrefix("@") || modifiers.contains(first) { words.removeFirst() }
  guard words.first == "import", words.count >= 2 else { return nil }
  words.removeFirst()
  let kinds: Set<Substring> = ["typealias", "struct", "class", "enum", "protocol", "let", "var", "func"]
  if let kind = words.first, kinds.contains(kind), words.count >= 2 { words.removeFirst() }
  let name = words.first.map { String($0.prefix { $0.isLetter || $0.isNumber || $0 == "_" }) }
  return name?.isEmpty == false ? name : nil
}

/// The modules a line imports: each statement of it (statements may share a line, split by
/// `;`), with its comments (`/* … */` and `// …`) taken out first.
func importedModules(_ line: Substring) -> [String] {
  var code = String(line)
  while let open = code.range(of: "/*") {
    guard let close = code.range(of: "*/", range: open.upperBound..<code.endIndex) else {
      code.removeSubrange(open.lowerBound...)
      break
    }
    code.replaceSubrange(open.lowerBound..<close.upperBound, with: " ")
  }
  if let comment = code.range(of: "//") { code.removeSubrange(comment.lowerBound...) }
  return code.split(separator: ";").compactMap { importedModule($0.drop { $0 == " " || $0 == "\t" }) }
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
  FileHandle.standardError.write(Data("usage: LayeringCheckTool MODULE OUTPUT FILE...\n".utf8))
  exit(2)
}
let module = arguments[1]
var failed = false
for path in arguments.dropFirst(3) {
  guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { continue }
  for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
    guard let imported = importedModules(line).first(where: forbidden.contains) else { continue }
    failed = true
    let message =
      "\(path):\(index + 1): error: \(module) imports \(imported): only DocbmSystem may import Glibc, "
      + "Foundation or a C module; call the system module's API instead (docs/design.md, \"Modules\")\n"
    FileHandle.standardError.write(Data(message.utf8))
  }
}
if failed { exit(1) }
let stamp = "// \(module) imports no C module: checked by the LayeringCheck plugin.\n"
try stamp.write(toFile: arguments[2], atomically: true, encoding: .utf8)
