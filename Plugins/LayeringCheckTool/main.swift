// The layering check: given a module's name, the file to write when the module passes,
// and the module's Swift files (and, optionally, the package's modules the target declares
// as dependencies and all the package's modules), prints an error for each import of a
// module that only DocbmSystem may import, or of a package module the target does not
// declare, and exits 1 if there is one.

import Foundation

/// Modules that reach C: Glibc itself, Foundation (which re-exports it on Linux), and the
/// package's C modules.
let forbidden: Set<String> = [
  "Glibc", "SwiftGlibc", "Musl", "Darwin", "Foundation", "FoundationNetworking", "FoundationXML",
  "CDocbmShims", "CLibAttr", "CCrypto", "CSodium", "CSQLite",
]

/// The words of a statement, up to the module an `import` names: attributes and an access
/// level may come first (`@preconcurrency public import X`), a kind may follow
/// (`import struct X.Y`).
let modifiers: Set<Substring> = ["public", "package", "internal", "fileprivate", "private"]
let kinds: Set<Substring> = ["typealias", "struct", "class", "enum", "protocol", "let", "var", "func"]

/// What a statement's words say of an import: the module it names; `nil` for a statement
/// that is not an import; an empty string for one that may go on on a later line
/// (attributes and modifiers alone, `import` alone or with its kind).
func importedModule(_ words: [Substring]) -> String? {
  guard !words.isEmpty else { return nil }
  var words = words[...]
  while let first = words.first, first.hasPrefix("@") || modifiers.contains(first) { words.removeFirst() }
  if words.isEmpty { return "" }
  guard words.first == "import" else { return nil }
  words.removeFirst()
  if let kind = words.first, kinds.contains(kind) { words.removeFirst() }
  // The name ends where an identifier does (`import Glibc.stat`).
  return words.first.map { String($0.prefix { $0.isLetter || $0.isNumber || $0 == "_" }) } ?? ""
}

/// Each import in `text` with the line its statement starts on. Comments (`/* … */`, which
/// may span lines, and `// …`) are taken out first; statements may share a line (split by
/// `;`), and one may go on over several lines (`import` on one, the module on the next).
func imports(in text: String) -> [(module: String, line: Int)] {
  var found: [(module: String, line: Int)] = []
  var inBlockComment = false
  var pending: (words: [Substring], line: Int)?
  for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
    var code = ""
    var rest = rawLine[...]
    while !rest.isEmpty {
      if inBlockComment {
        guard let close = rest.range(of: "*/") else { break }
        rest = rest[close.upperBound...]
        inBlockComment = false
        code += " "
      } else if let open = rest.range(of: "/*"),
        rest.range(of: "//").map({ open.lowerBound < $0.lowerBound }) ?? true
      {
        code += rest[..<open.lowerBound]
        rest = rest[open.upperBound...]
        inBlockComment = true
      } else {
        code += rest.range(of: "//").map { rest[..<$0.lowerBound] } ?? rest
        break
      }
    }
    for statement in code.split(separator: ";", omittingEmptySubsequences: false) {
      let words = statement.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
      if var open = pending {
        // An import whose module is still to come: these words go on with it.
        guard !words.isEmpty else { continue }
        open.words += words
        pending = nil
        if let module = importedModule(open.words), !module.isEmpty { found.append((module, open.line)) }
        continue
      }
      guard let module = importedModule(words) else { continue }
      if module.isEmpty {
        pending = (words, index + 1)
      } else {
        found.append((module, index + 1))
      }
    }
  }
  return found
}

var arguments = Array(CommandLine.arguments.dropFirst())
/// With `--declared` and `--package-modules`, the package's modules the target declares,
/// and all of them: importing one of the others is refused too.
var declared: Set<String>?
var packageModules: Set<String> = []
while let option = arguments.first, option.hasPrefix("--"), arguments.count >= 2 {
  let values = Set(arguments[1].split(separator: ",").map(String.init))
  if option == "--declared" {
    declared = values
  } else if option == "--package-modules" {
    packageModules = values
  }
  arguments.removeFirst(2)
}
guard arguments.count >= 2 else {
  FileHandle.standardError.write(
    Data("usage: LayeringCheckTool [--declared A,B --package-modules A,B,C] MODULE OUTPUT FILE...\n".utf8))
  exit(2)
}
let module = arguments[0]
var failed = false
for path in arguments.dropFirst(2) {
  guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
    // A file that is not UTF-8 does not compile either; said here, so nothing passes unread.
    failed = true
    FileHandle.standardError.write(Data("\(path): error: \(module): cannot read the file as UTF-8\n".utf8))
    continue
  }
  for (imported, line) in imports(in: text) {
    if forbidden.contains(imported) {
      failed = true
      let message =
        "\(path):\(line): error: \(module) imports \(imported): only DocbmSystem may import Glibc, "
        + "Foundation or a C module; call the system module's API instead (docs/design.md, \"Modules\")\n"
      FileHandle.standardError.write(Data(message.utf8))
    } else if let declared, packageModules.contains(imported), imported != module,
      !declared.contains(imported)
    {
      failed = true
      let message =
        "\(path):\(line): error: \(module) imports \(imported) without declaring it: add \"\(imported)\" "
        + "to the dependencies of \(module) in Package.swift\n"
      FileHandle.standardError.write(Data(message.utf8))
    }
  }
}
if failed { exit(1) }
let stamp = "// \(module) imports no C module: checked by the LayeringCheck plugin.\n"
try stamp.write(toFile: arguments[1], atomically: true, encoding: .utf8)
