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

/// The module an `import` line names, if the line is one: attributes and an access level
/// may come first (`@preconcurrency public import X`), a kind may follow (`import struct
/// X.Y`).
func importedModule(_ line: Substring) -> String? {
  var words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })[...]
  let modifiers: Set<Substring> = ["public", "package", "internal", "fileprivate", "private"]
  while let first = words.first, first.hasPrefix("@") || modifiers.contains(first) { words.removeFirst() }
  guard words.first == "import", words.count >= 2 else { return nil }
  words.removeFirst()
  let kinds: Set<Substring> = ["typealias", "struct", "class", "enum", "protocol", "let", "var", "func"]
  if let kind = words.first, kinds.contains(kind), words.count >= 2 { words.removeFirst() }
  return words.first.map { String($0.split(separator: ".")[0]) }
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
    guard let imported = importedModule(line.drop(while: { $0 == " " })), forbidden.contains(imported) else {
      continue
    }
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
