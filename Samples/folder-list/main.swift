// folder-list: a terminal program that keeps a list of folders the user added.
//
// The list is a BookmarkStore: each folder is a record under a stable key (its name),
// holding a bookmark anchored on the list file itself, which is saved with
// replaceDocument, so its key survives every save. Folders that were renamed or moved
// keep their entry; folders on a disk that is not mounted show as offline (and are never
// dropped for it); removed entries stay removed, after a restart and in every other
// folder-list running at the same time.
//
//   folder-list add PATH        remember a folder (its key is its name: garden, garden-2, …)
//   folder-list list            show the folders (and follow moved ones)
//   folder-list show KEY        list a folder's contents
//   folder-list remove KEY      forget a folder
//
// The list lives in $FOLDER_LIST_FILE, or $XDG_DATA_HOME/folder-list/folders.json
// (default ~/.local/share/folder-list/folders.json).

import DocumentBookmarkStore
import DocumentBookmarks
import Foundation

/// What the list keeps with each folder besides its bookmark.
struct Folder: Codable, Equatable, Sendable {
  /// The name the folder had when it was added.
  var name: String
}

func listFile() -> FilePath {
  let environment = ProcessInfo.processInfo.environment
  if let file = environment["FOLDER_LIST_FILE"] { return FilePath(file) }
  let data = environment["XDG_DATA_HOME"] ?? (environment["HOME"] ?? "/tmp") + "/.local/share"
  return FilePath(data + "/folder-list/folders.json")
}

func fail(_ message: String) -> Never {
  FileHandle.standardError.write(Data("folder-list: \(message)\n".utf8))
  exit(1)
}

/// A line for a folder that could not be reached: offline when its disk is not mounted.
func unavailable(_ key: String, _ error: DocbmError) -> String {
  switch error.code {
  case .volumeUnavailable: "\(key)  offline: the disk it is on is not mounted"
  case .missing:
    "\(key)  missing: \(error.lastKnownPath.map(\.description) ?? "gone") (folder-list remove \(key))"
  default: "\(key)  unavailable: \(error.code.rawValue), \(error.recommendation.rawValue)"
  }
}

/// Runs one command of the command line.
func run(_ arguments: [String]) async {
  let store = BookmarkStore<String, Folder>(
    file: listFile(), policy: StorePolicy(validators: [.directoryOnly, .notTooBroad, .noOverlap]),
    followsOtherProcesses: false, followsMounts: false)
  do {
    let records = try await store.load()
    switch arguments.first {
    case "add":
      guard arguments.count == 2 else { fail("usage: folder-list add PATH") }
      let folder = FilePath(arguments[1])
      let name = folder.url.lastPathComponent
      let taken = Set(records.map(\.key))
      var key = name
      var number = 1
      while taken.contains(key) {
        number += 1
        key = "\(name)-\(number)"
      }
      do {
        try await store.add(target: folder, key: key, metadata: Folder(name: name))
        print("added \(key): \(folder)")
      } catch {
        guard case .duplicate(let existing) = error else { throw error }
        print("already in the list as \(existing)")
      }

    case "list", nil:
      for record in records {
        do {
          let resolved = try await store.resolve(record.key)
          var line = "\(record.key)  \(resolved.path)"
          if let resolution = resolved.resolution, resolution.isStale {
            line += "  (moved: \(resolution.staleReasons.map(\.rawValue).joined(separator: ", ")))"
          }
          print(line)
        } catch {
          guard case .docbm(let failure) = error else { throw error }
          print(unavailable(record.key, failure))
        }
      }
      if records.isEmpty { print("no folders yet: folder-list add PATH") }

    case "show":
      guard arguments.count == 2 else { fail("usage: folder-list show KEY") }
      let resolved = try await store.resolve(arguments[1])
      let names = try FileManager.default.contentsOfDirectory(atPath: resolved.path.description).sorted()
      print("\(resolved.path):")
      names.forEach { print("  \($0)") }

    case "remove":
      guard arguments.count == 2 else { fail("usage: folder-list remove KEY") }
      let removed = try await store.forget(arguments[1])
      guard removed else { fail("no folder has the key \(arguments[1])") }
      print("removed \(arguments[1])")

    default:
      fail("usage: folder-list add PATH | list | show KEY | remove KEY")
    }
  } catch let error as BookmarkStoreError<String> {
    switch error {
    case .notFound(let key): fail("no folder has the key \(key) (see 'folder-list list')")
    case .refused(_, let path, let reason): fail("\(path) was not added: \(reason)")
    case .docbm(let error):
      fail("\(error.message) (\(error.code.rawValue); \(error.recommendation.rawValue))")
    default: fail(error.description)
    }
  } catch {
    fail("\(error)")
  }
}

await run(Array(CommandLine.arguments.dropFirst()))
