import DocumentBookmarks
import Foundation
import Glibc

/// `DocbmBenchmarks board`: opening a board (every bookmark of one document resolved in
/// one call, ``AnchoredDocument/resolve(_:)-([Bookmark])``) of 1,000 and 10,000
/// bookmarks, with a tenth of the targets moved to a sibling folder (goal ≤ 3x) or renamed
/// in their folder (goal ≤ 2x), each against opening the same board with nothing moved, in
/// paired rounds. At 1,000, the same board resolved one bookmark at a time, for reference.
/// Returns the rows.
///
/// The targets of a board lie in one folder; its moved ones in a sibling folder. A search
/// from that folder reads all its entries first, so the boards use a budget of 50,000
/// entries (the standard 10,000 would not reach every moved target of the larger board).
func runBoardBenchmark(root: String) throws -> [Row] {
  var rows: [Row] = []
  let service = BookmarkService(searchBudget: SearchBudget(maximumEntries: 50_000), escrow: nil)
  for count in [1_000, 10_000] {
    let unmoved = try makeBoard(at: "\(root)/board-\(count)/unmoved", count: count, service: service)
    let moved = try makeBoard(at: "\(root)/board-\(count)/moved", count: count, service: service)
    let renamed = try makeBoard(at: "\(root)/board-\(count)/renamed", count: count, service: service)
    for index in stride(from: 0, to: count, by: 10) {
      _ = rename("\(moved.folder)/images/\(index).png", "\(moved.folder)/archive/\(index).png")
      _ = rename("\(renamed.folder)/images/\(index).png", "\(renamed.folder)/images/\(index)-old.png")
    }
    // Every result as intended before timing: the moved and renamed ones found.
    for (board, place) in [(unmoved, nil), (moved, "archive/"), (renamed, "images/")] as [(Board, String?)] {
      for (index, result) in board.document.resolve(board.bookmarks).enumerated() {
        let resolution = try result.get()
        let isMoved = place != nil && index % 10 == 0
        precondition(resolution.isStale == isMoved, "bookmark \(index) of \(board.folder)")
        if isMoved, let place {
          let name = place == "archive/" ? "\(index).png" : "\(index)-old.png"
          precondition(resolution.path == FilePath("\(board.folder)/\(place)\(name)"), "\(resolution.path)")
        }
      }
    }
    let iterations = count == 1_000 ? 20 : 2
    let label = count == 1_000 ? "1,000" : "10,000"
    let open = { (board: Board) in { _ = board.document.resolve(board.bookmarks) } }
    rows.append(
      Row(
        operation: "open a board, \(label) bookmarks, 10% moved to a sibling folder",
        measurePaired(iterations: iterations, open(moved), against: open(unmoved)),
        baselineName: "the same board, nothing moved", goal: 3))
    rows.append(
      Row(
        operation: "open a board, \(label) bookmarks, 10% renamed in their folder",
        measurePaired(iterations: iterations, open(renamed), against: open(unmoved)),
        baselineName: "the same board, nothing moved", goal: 2))
    if count == 1_000 {
      rows.append(
        Row(
          operation: "open a board, 1,000 bookmarks, 10% moved, one resolve per bookmark",
          measurePaired(
            iterations: 1, rounds: 7,
            { for bookmark in moved.bookmarks { _ = try? moved.document.resolve(bookmark) } },
            against: open(unmoved)),
          baselineName: "the same board, nothing moved, in one call", goal: nil))
    }
  }
  return rows
}

/// A document and its bookmarks, one per file of its `images` folder.
struct Board {
  let folder: String
  let document: AnchoredDocument
  let bookmarks: [Bookmark]
}

/// A board of `count` bookmarks at `folder`: `board.json`, its targets in `images`, and an
/// empty `archive` beside them.
func makeBoard(at folder: String, count: Int, service: BookmarkService) throws -> Board {
  makeFolders("\(folder)/images")
  makeFolders("\(folder)/archive")
  makeFile("\(folder)/board.json", "{}")
  let document = service.documents(anchoredOn: FilePath("\(folder)/board.json"))
  var bookmarks: [Bookmark] = []
  for index in 0..<count {
    makeFile("\(folder)/images/\(index).png")
    bookmarks.append(try document.makeBookmark(to: FilePath("\(folder)/images/\(index).png")))
  }
  return Board(folder: folder, document: document, bookmarks: bookmarks)
}

/// `DocbmBenchmarks board`, the scattered board: 100,000 bookmarks, a tenth of whose
/// targets moved into 1,000 new folders (ten each, `archive/0` to `archive/999` beside the
/// targets' folder), opened in one call with the standard search budget, against the same
/// board with nothing moved, in paired rounds. Every moved target must be found where it
/// went before timing. As root, the boards are on a tmpfs of their own, so that a search
/// that goes on over the whole filesystem walks the boards, not the machine's disk.
/// **Goal: ≤ 3x.**
func runScatteredBoardBenchmark(root: String) throws -> [Row] {
  let folder = "\(root)/board-scattered"
  let mounted = makeFolderOnOwnTmpfs(folder)
  if mounted { print("(the scattered board on a tmpfs of its own)") }
  defer { if mounted { _ = run("/bin/umount", [folder]) } }
  let count = 100_000
  let service = BookmarkService(escrow: nil)
  let unmoved = try makeBoard(at: "\(folder)/unmoved", count: count, service: service)
  let moved = try makeBoard(at: "\(folder)/moved", count: count, service: service)
  for index in stride(from: 0, to: count, by: 10) {
    let place = "\(moved.folder)/archive/\(index / 10 % 1_000)"
    if index < 10_000 { makeFolders(place) }
    _ = rename("\(moved.folder)/images/\(index).png", "\(place)/\(index).png")
  }
  for (index, result) in moved.document.resolve(moved.bookmarks).enumerated() {
    let resolution = try result.get()
    let isMoved = index % 10 == 0
    precondition(resolution.isStale == isMoved, "bookmark \(index) of \(moved.folder)")
    if isMoved {
      let place = FilePath("\(moved.folder)/archive/\(index / 10 % 1_000)/\(index).png")
      precondition(resolution.path == place, "bookmark \(index): \(resolution.path), not \(place)")
    }
  }
  let open = { (board: Board) in { _ = board.document.resolve(board.bookmarks) } }
  return [
    Row(
      operation: "open a board, 100,000 bookmarks, 10% moved across 1,000 folders",
      measurePaired(iterations: 1, rounds: 7, open(moved), against: open(unmoved)),
      baselineName: "the same board, nothing moved", goal: 3)
  ]
}
