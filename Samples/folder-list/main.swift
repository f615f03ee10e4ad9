// folder-list: a terminal program that keeps a list of folders the user added.
//
// The list is itself a document anchored by docbm: each entry is a document-scoped
// bookmark stored in the list's JSON, and the list is saved with replaceDocument, so its
// key survives every save. Entries whose folder was renamed or moved still work; entries
// deleted stay deleted after a restart.
//
//   folder-list add PATH        remember a folder
//   folder-list list            show the folders (and refresh moved ones)
//   folder-list show NUMBER     list a folder's contents
//   folder-list remove NUMBER   forget a folder
//
// The list lives in $FOLDER_LIST_FILE, or $XDG_DATA_HOME/folder-list/folders.json
// (default ~/.local/share/folder-list/folders.json).

import DocumentBookmarks
import Foundation

/// The list document's contents.
struct FolderList: Codable {
  struct Entry: Codable {
    var name: String
    var bookmark: Bookmark
  }
  var entries: [Entry] = []
}

/// The list document: read, resolved and saved through docbm.
struct ListDocument {
  let path: FilePath
  let document: AnchoredDocument

  init() {
    let environment = ProcessInfo.processInfo.environment
    if let file = environment["FOLDER_LIST_FILE"] {
      path = FilePath(file)
    } else {
      let data = environment["XDG_DATA_HOME"] ?? (environment["HOME"] ?? "/tmp") + "/.local/share"
      path = FilePath(data + "/folder-list/folders.json")
    }
    document = BookmarkService().documents(anchoredOn: path)
  }

  func load() throws -> FolderList {
    guard FileManager.default.fileExists(atPath: path.description) else { return FolderList() }
    return try JSONDecoder().decode(FolderList.self, from: Data(contentsOf: path.url))
  }

  /// Saves with replaceDocument: the key, and so every entry, survives the save.
  func save(_ list: FolderList) throws {
    try FileManager.default.createDirectory(
      at: path.url.deletingLastPathComponent(), withIntermediateDirectories: true)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    try document.replaceDocument(with: encoder.encode(list))
  }
}

func fail(_ message: String) -> Never {
  FileHandle.standardError.write(Data("folder-list: \(message)\n".utf8))
  exit(1)
}

func entryIndex(_ argument: String?, in list: FolderList) -> Int {
  guard let argument, let number = Int(argument), (1...list.entries.count).contains(number) else {
    fail("give the number of an entry, 1 to \(list.entries.count) (see 'folder-list list')")
  }
  return number - 1
}

let arguments = Array(CommandLine.arguments.dropFirst())
let store = ListDocument()
do {
  var list = try store.load()
  switch arguments.first {
  case "add":
    guard arguments.count == 2 else { fail("usage: folder-list add PATH") }
    // The list document must exist before a bookmark can be anchored on it.
    if list.entries.isEmpty { try store.save(list) }
    let folder = FilePath(arguments[1])
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: folder.description, isDirectory: &isFolder),
      isFolder.boolValue
    else {
      fail("\(folder) is not a folder")
    }
    let bookmark = try store.document.makeBookmark(to: folder)
    list.entries.append(.init(name: folder.url.lastPathComponent, bookmark: bookmark))
    try store.save(list)
    print("added \(list.entries.count): \(folder)")

  case "list", nil:
    var refreshed = false
    for (index, entry) in list.entries.enumerated() {
      do {
        let resolution = try store.document.resolve(entry.bookmark)
        var line = "\(index + 1). \(entry.name)  \(resolution.path)"
        if let newer = resolution.refreshed {
          list.entries[index].bookmark = newer
          refreshed = true
          line += "  (moved: \(resolution.staleReasons.map(\.rawValue).joined(separator: ", ")))"
        }
        print(line)
      } catch {
        print(
          "\(index + 1). \(entry.name)  unavailable: \(error.code.rawValue), \(error.recommendation.rawValue)"
        )
      }
    }
    if list.entries.isEmpty { print("no folders yet: folder-list add PATH") }
    if refreshed { try store.save(list) }

  case "show":
    let index = entryIndex(arguments.dropFirst().first, in: list)
    let resolution = try store.document.resolve(list.entries[index].bookmark)
    let names = try FileManager.default.contentsOfDirectory(atPath: resolution.path.description).sorted()
    print("\(resolution.path):")
    names.forEach { print("  \($0)") }

  case "remove":
    let index = entryIndex(arguments.dropFirst().first, in: list)
    let removed = list.entries.remove(at: index)
    try store.save(list)
    print("removed \(removed.name)")

  default:
    fail("usage: folder-list add PATH | list | show NUMBER | remove NUMBER")
  }
} catch let error as DocbmError {
  fail("\(error.message) (\(error.code.rawValue); \(error.recommendation.rawValue))")
} catch {
  fail("\(error)")
}
