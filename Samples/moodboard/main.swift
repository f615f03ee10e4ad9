// moodboard: a small document editor. A board is a JSON document that references image
// files through document-scoped bookmarks. Opening a board resolves every image and stores
// refreshed bookmarks; saving goes through replaceDocument; each failure is handled as an
// editor would: ask to pick again, forget, or keep the image and retry later.
//
//   moodboard add BOARD IMAGE...      add images (creates the board)
//   moodboard open BOARD              open: resolve, refresh, report
//   moodboard prune BOARD             forget images that are gone for good

import DocumentBookmarks
import Foundation

struct Board: Codable {
  struct Image: Codable {
    var caption: String
    var bookmark: Bookmark
  }
  var images: [Image] = []
}

/// What the editor does with an image that did not resolve.
enum Handling {
  case pickAgain, forget, retryLater, repairKey, saveElsewhere, searchWider

  init(_ error: DocbmError) {
    switch error.recommendation {
    case .pickAgain: self = .pickAgain
    case .forget: self = .forget
    case .searchWider: self = .searchWider
    case .retryLater: self = .retryLater
    case .repairKey: self = .repairKey
    case .useAnotherLocation: self = .saveElsewhere
    // What failed saves recommend; resolving an image never does.
    case .saveElsewhere, .confirmSave, .clearFlags: self = .saveElsewhere
    case .freeSpace: self = .retryLater
    }
  }

  var advice: String {
    switch self {
    case .pickAgain: "ask the user to pick the image again"
    case .forget: "the image is gone: 'moodboard prune' forgets it"
    case .retryLater: "kept; try again when its disk is back"
    case .repairKey:
      "the board lost its key (a program saved it without its attributes): run 'docbm repair' or pick the images again"
    case .saveElsewhere: "the board's location cannot hold a key: move the board"
    case .searchWider:
      "kept; not found where the search looked (it may be further away): 'docbm resolve --search-time none' looks everywhere on its disk"
    }
  }
}

func fail(_ message: String) -> Never {
  FileHandle.standardError.write(Data("moodboard: \(message)\n".utf8))
  exit(1)
}

func load(_ path: FilePath) throws -> Board {
  guard FileManager.default.fileExists(atPath: path.description) else { return Board() }
  return try JSONDecoder().decode(Board.self, from: Data(contentsOf: path.url))
}

/// Saves the board. On failure the board on disk is untouched; a real editor keeps the
/// user's work in memory and offers to retry or to save elsewhere.
func save(_ board: Board, to document: AnchoredDocument) throws {
  let encoder = JSONEncoder()
  encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
  do {
    try document.replaceDocument(with: encoder.encode(board))
  } catch let error as DocbmError {
    let advice =
      switch error.recommendation {
      case .freeSpace: "free some space and save again"
      case .confirmSave: "the save would give something up; save a copy elsewhere"
      case .clearFlags: "clear the board's immutable flag (chattr -i) or save elsewhere"
      case .retryLater: "retry later"
      default: "save elsewhere"
      }
    fail("not saved (\(error.code.rawValue) at \(error.step?.rawValue ?? "?")): \(error.message); \(advice)")
  }
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 2 else { fail("usage: moodboard add BOARD IMAGE... | open BOARD | prune BOARD") }
let boardPath = FilePath(arguments[1])
let document = BookmarkService().documents(anchoredOn: boardPath)

do {
  var board = try load(boardPath)
  switch arguments[0] {
  case "add":
    if !FileManager.default.fileExists(atPath: boardPath.description) { try save(board, to: document) }
    for image in arguments.dropFirst(2) {
      do {
        let bookmark = try document.makeBookmark(to: FilePath(image))
        board.images.append(.init(caption: URL(fileURLWithPath: image).lastPathComponent, bookmark: bookmark))
        print("added \(image)")
      } catch {
        print("not added \(image): \(error.message)")
      }
    }
    try save(board, to: document)

  case "open", "prune":
    var changed = false
    var kept: [Board.Image] = []
    for image in board.images {
      do {
        let resolution = try document.resolve(image.bookmark)
        var refreshedImage = image
        if let refreshed = resolution.refreshed {
          refreshedImage.bookmark = refreshed
          changed = true
        }
        kept.append(refreshedImage)
        let note =
          resolution.isStale
          ? "  (found again: \(resolution.staleReasons.map(\.rawValue).joined(separator: ", ")))" : ""
        print("\(image.caption): \(resolution.path)\(note)")
      } catch {
        let handling = Handling(error)
        print("\(image.caption): \(error.code.rawValue): \(handling.advice)")
        if arguments[0] == "prune" && handling == .forget {
          changed = true
        } else {
          kept.append(image)
        }
      }
    }
    board.images = kept
    if changed { try save(board, to: document) }

  default:
    fail("usage: moodboard add BOARD IMAGE... | open BOARD | prune BOARD")
  }
} catch {
  fail("\(error)")
}
