import DocbmSystem
import DocumentBookmarks
import FoundationEssentials

/// `docbm demo`: document-scoped bookmarks at work, in a scratch folder that is removed
/// afterwards.
struct DemoCommand {
  /// The document the demo writes: a mood board referring to images and a folder.
  private struct Board: Codable {
    struct Item: Codable {
      let label: String
      var bookmark: Bookmark
    }
    var title: String
    var items: [Item]
  }

  func run(_ console: Console) throws -> Int32 {
    let scratch = try DemoScratch()
    defer { scratch.remove(console) }
    let root = scratch.root
    func show(_ path: FilePath) -> String {
      path.isBelow(root) ? path.relative(from: root).description : path.description
    }

    console.printFitted("docbm demo: document-scoped bookmarks on Linux")
    console.printFitted("scratch folder: \(root)")
    console.printFitted()

    console.printFitted("1. A project: a mood board document, two images and a folder of sources.")
    let project = root.appending("project")
    for folder in ["", "/images", "/sources", "/archive", "/archive/2026"] {
      try scratch.makeFolder(FilePath(project.description + folder))
    }
    try scratch.write("PNG cat", to: project.appending("images").appending("cat.png"))
    try scratch.write("PNG dog", to: project.appending("images").appending("dog.png"))
    try scratch.write("int main() {}", to: project.appending("sources").appending("main.c"))
    let boardPath = project.appending("board.json")
    try scratch.write("{}", to: boardPath)
    // The demo keeps its own escrow in the scratch folder, so it leaves nothing behind.
    let escrow = KeyEscrow(folder: root.appending("escrow"))
    let service = BookmarkService(escrow: escrow)
    var document = service.documents(anchoredOn: boardPath)
    console.printFitted(
      "   - key before the first bookmark: \(try document.keyFingerprint().map(\.description) ?? "none")")

    console.printFitted()
    console.printFitted("2. Anchor bookmarks on board.json; the first one creates its key.")
    let targets: [(String, FilePath)] = [
      ("cat", project.appending("images").appending("cat.png")),
      ("dog", project.appending("images").appending("dog.png")),
      ("sources", project.appending("sources")),
    ]
    var board = Board(title: "Pets", items: [])
    for (label, target) in targets {
      let bookmark = try document.makeBookmark(to: target)
      board.items.append(.init(label: label, bookmark: bookmark))
      console.printFitted(
        "   - \(label) → \(show(target)): \(bookmark.bytes.count) bytes, \(bookmark.text.prefix(24))…")
    }
    console.printFitted(
      "   - key: \(try document.keyFingerprint()!) in user.docbm.key (the key itself is never shown).")
    let escrowed = escrow.entries().entries.map {
      FilePath(displayBytes: $0.file.lastComponent).description
    }
    let names = escrowed.joined(separator: ", ")
    console.printFitted("   - a copy is kept in the escrow, in \(names) (mode 0600), for repairs.")
    try save(board, in: document)
    console.printFitted(
      "   - board.json now stores the bookmarks' text forms in its JSON, saved with replaceDocument.")

    console.printFitted()
    console.printFitted("3. Rename cat.png, move dog.png two folders away, rename the sources folder.")
    try scratch.rename(targets[0].1, to: project.appending("images").appending("kitten.png"))
    try scratch.rename(targets[1].1, to: project.appending("archive").appending("2026").appending("dog.png"))
    try scratch.rename(targets[2].1, to: project.appending("src"))
    board = try resolveAll(board, document: document, console: console, show: show)
    try save(board, in: document)
    console.printFitted("   - refreshed bookmarks saved with replaceDocument; resolving again:")
    board = try resolveAll(board, document: document, console: console, show: show)

    console.printFitted()
    console.printFitted("4. Move the whole project folder; the bookmarks travel with it.")
    let moved = root.appending("project-moved")
    try scratch.rename(project, to: moved)
    document = service.documents(anchoredOn: moved.appending("board.json"))
    board = try resolveAll(board, document: document, console: console, show: show)

    console.printFitted()
    console.printFitted("5. What resolution refuses, with typed errors:")
    var tampered = board.items[0].bookmark.bytes
    tampered[tampered.count / 2] ^= 0x01
    report("one bit flipped", try document.resolve(Bookmark(bytes: tampered)), console, show: show)
    let other = root.appending("other.json")
    try scratch.write("{}", to: other)
    let foreign = try service.documents(anchoredOn: other).makeBookmark(
      to: moved.appending("src"))
    report("a bookmark from another document", try document.resolve(foreign), console, show: show)
    try scratch.deleteFile(moved.appending("images").appending("kitten.png"))
    report("the target deleted", try document.resolve(board.items[0].bookmark), console, show: show)

    console.printFitted()
    console.printFitted(
      "6. A safe save: replaceDocument writes a new version beside the document, gives it the document's key, attributes and mode, flushes it and renames it into place:"
    )
    let before = try FileStatus.of(document.path, followSymlinks: true)
    try save(board, in: document)
    let after = try FileStatus.of(document.path, followSymlinks: true)
    console.printFitted(
      "   - key after the save: \(try document.keyFingerprint().map(\.description) ?? "none"); new inode: \(before.inode != after.inode)"
    )
    report("the dog bookmark", try document.resolve(board.items[1].bookmark), console, show: show)

    console.printFitted()
    console.printFitted(
      "7. An editor's plain atomic save (write a temporary file, rename it over the document) drops every extended attribute, and with it the key:"
    )
    let saved = try String(decoding: readWholeFile(moved.appending("board.json")), as: UTF8.self)
    try scratch.atomicSave(saved, to: moved.appending("board.json"))
    console.printFitted(
      "   - key after the save: \(try document.keyFingerprint().map(\.description) ?? "none")")
    report("the dog bookmark", try document.resolve(board.items[1].bookmark), console, show: show)

    console.printFitted()
    console.printFitted(
      "8. The checker finds the loss from evidence: the bookmarks in the document's bytes name a key it no longer has:"
    )
    let check = DocumentChecker(escrow: escrow).check(document.path)
    console.printFitted("   - \(check.verdict.rawValue): \(check.message)")

    console.printFitted()
    console.printFitted(
      "9. Repair puts the escrowed key back (only a key its own bookmarks name, on a document the escrow recorded):"
    )
    let repair = DocumentRepairer(escrow: escrow).repair(document.path)
    console.printFitted(
      "   - \(repair.action.rawValue): key \(repair.fingerprint.map(\.description) ?? "-"); now \(repair.after?.verdict.rawValue ?? "-")"
    )
    for item in board.items {
      report(item.label, try document.resolve(item.bookmark), console, show: show)
    }

    console.printFitted()
    console.printFitted("Done; the scratch folder is removed.")
    return DocbmCommandLine.ExitStatus.success
  }

  /// Saves the board as a real editor should: through replaceDocument.
  private func save(_ board: Board, in document: AnchoredDocument) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    try document.replaceDocument(with: try encoder.encode(board))
  }

  private func resolveAll(
    _ board: Board, document: AnchoredDocument, console: Console, show: (FilePath) -> String
  ) throws -> Board {
    var board = board
    for index in board.items.indices {
      let resolution = try document.resolve(board.items[index].bookmark)
      var line = "   - \(board.items[index].label) → \(show(resolution.path))"
      if resolution.isStale {
        line += " (stale: \(resolution.staleReasons.map(\.rawValue).joined(separator: ", ")); refreshed)"
        if let refreshed = resolution.refreshed { board.items[index].bookmark = refreshed }
      } else {
        line += " (exact)"
      }
      console.printFitted(line)
    }
    return board
  }

  private func report(
    _ what: String, _ attempt: @autoclosure () throws -> Resolution, _ console: Console,
    show: (FilePath) -> String
  ) {
    do {
      let resolution = try attempt()
      console.printFitted("   - \(what): resolved to \(show(resolution.path))")
    } catch let error as DocbmError {
      console.printFitted(
        "   - \(what): \(error.code.rawValue) → recommendation: \(error.recommendation.rawValue)")
    } catch {
      console.printFitted("   - \(what): \(commandLineText(error))")
    }
  }
}
