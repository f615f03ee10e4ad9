import DocbmTestSupport
import Foundation
import Glibc
import Testing

@testable import DocumentBookmarks

@Suite("Escrow catalog")
struct EscrowCatalogTests {
  let scratch: Scratch
  let escrow: KeyEscrow
  let service: BookmarkService

  init() throws {
    (scratch, escrow, service) = try EscrowScratch.make()
  }

  /// A document with one bookmark, its key escrowed.
  @discardableResult
  private func anchoredDocument(_ name: String) throws -> (FilePath, Bookmark) {
    let path = try scratch.file("project/\(name)", "{}")
    let bookmark = try service.documents(anchoredOn: path).makeBookmark(
      to: try scratch.file("project/\(name).png"))
    return (path, bookmark)
  }

  /// What the entry files themselves say: fingerprint and document paths, by file name.
  private func fromEntryFiles() -> [String: [String]] {
    var result: [String: [String]] = [:]
    for entry in escrow.entries().entries {
      result[String(decoding: entry.file.lastComponent, as: UTF8.self)] = entry.documents.map(
        \.path.description)
    }
    return result
  }

  private func fromCatalog(_ catalog: EscrowCatalog) -> [String: [String]] {
    var result: [String: [String]] = [:]
    for record in catalog.records {
      if case .entry(_, _, let documents) = record.outcome {
        result[String(decoding: record.name, as: UTF8.self)] = documents.map(\.path.description)
      }
    }
    return result
  }

  private var catalogFile: FilePath { escrow.folder.appending(EscrowCatalog.fileName) }

  private func savedCatalog() throws -> [EscrowCatalog.Record]? {
    EscrowCatalog.decode(try readWholeFile(catalogFile))
  }

  @Test(
    "the catalog says what the entry files say, and follows them as they are added, rewritten and removed")
  func followsEntries() throws {
    let (first, _) = try anchoredDocument("a.json")
    try anchoredDocument("b.json")
    try anchoredDocument("c.json")
    var catalog = EscrowCatalog.load(escrow)
    #expect(catalog.records.count == 3)
    #expect(fromCatalog(catalog) == fromEntryFiles())
    #expect(try savedCatalog() == catalog.records)
    #expect(try FileStatus.of(catalogFile, followSymlinks: false).permissions == 0o600)
    #expect(EscrowCatalog.decode(catalog.encoded()) == catalog.records)

    // Added.
    try anchoredDocument("d.json")
    catalog = EscrowCatalog.load(escrow)
    #expect(catalog.records.count == 4)
    #expect(try savedCatalog() == catalog.records)

    // Rewritten: the same key recorded on a second document (a copy that kept it).
    let copy = scratch.path("project/a-copy.json")
    #expect(run("/bin/cp", ["--preserve=xattr", first.description, copy.description]).status == 0)
    #expect(try escrow.escrowKey(of: copy) != nil)
    catalog = EscrowCatalog.load(escrow)
    #expect(fromCatalog(catalog) == fromEntryFiles())
    #expect(fromCatalog(catalog).values.contains { $0.count == 2 })

    // Removed.
    let entry = try #require(escrow.entries().entries.first)
    try scratch.remove(entry.file)
    catalog = EscrowCatalog.load(escrow)
    #expect(catalog.records.count == 3)
    #expect(fromCatalog(catalog) == fromEntryFiles())
  }

  @Test(
    "an entry rewritten under a number its old version had (inode reuse) or in place is read again, not taken from the catalog"
  )
  func rewrittenUnderTheSameInode() throws {
    let (first, _) = try anchoredDocument("a.json")
    _ = EscrowCatalog.load(escrow)
    let entry = try #require(escrow.entries().entries.first)
    let stale = try readWholeFile(catalogFile)
    let before = try FileStatus.of(entry.file, followSymlinks: false)

    // The entry rewritten by rename (a new inode): a second document recorded with the key.
    let copy = scratch.path("project/a-copy.json")
    #expect(run("/bin/cp", ["--preserve=xattr", first.description, copy.description]).status == 0)
    #expect(try escrow.escrowKey(of: copy) != nil)
    let after = try FileStatus.of(entry.file, followSymlinks: false)
    #expect(after.inode != before.inode)

    // The catalog as it was, but naming the entry's new inode: what the folder shows when the
    // file system gives the rewrite the number of a version it freed.
    let text = String(decoding: stale, as: UTF8.self)
    let reused = text.replacingOccurrences(of: "\t\(before.inode)\t", with: "\t\(after.inode)\t")
    #expect(reused != text)
    try Data(reused.utf8).write(to: catalogFile.url)
    #expect(fromCatalog(EscrowCatalog.load(escrow)) == fromEntryFiles())
    #expect(fromEntryFiles().values.contains { $0.count == 2 })

    // Rewritten in place (as `cp` over it does: the inode is kept), after the catalog was.
    let current = try readWholeFile(entry.file)
    _ = EscrowCatalog.load(escrow)
    let oneDocument = String(decoding: current, as: UTF8.self).replacingOccurrences(
      of: copy.description, with: first.description)
    let fd = open(entry.file.description, O_WRONLY | O_TRUNC)
    #expect(fd >= 0)
    _ = oneDocument.withCString { write(fd, $0, strlen($0)) }
    close(fd)
    #expect(try FileStatus.of(entry.file, followSymlinks: false).inode == after.inode)
    #expect(fromCatalog(EscrowCatalog.load(escrow)) == fromEntryFiles())
  }

  /// The catalog with its first entry's document count made `-1`.
  func negativeCount(_ bytes: [UInt8]) -> [UInt8] {
    var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map(Array.init)
    guard let entry = lines.firstIndex(where: { $0.first == UInt8(ascii: "E") }),
      let lastTab = lines[entry].lastIndex(of: UInt8(ascii: "\t"))
    else { return [] }
    lines[entry] = Array(lines[entry][...lastTab]) + Array("-1".utf8)
    return Array(lines.joined(separator: [UInt8(ascii: "\n")]))
  }

  @Test("a damaged, cut-short or foreign catalog is rebuilt from the entries")
  func damagedCatalog() throws {
    try anchoredDocument("a.json")
    try anchoredDocument("b.json")
    let good = EscrowCatalog.load(escrow)
    let bytes = try readWholeFile(catalogFile)
    let damaged: [[UInt8]] = [
      Array("not a catalog\n".utf8),
      Array(bytes.dropLast(12)),  // cut short: no end line
      bytes.map { $0 == UInt8(ascii: "\t") ? UInt8(ascii: " ") : $0 },
      // Another version's, older and newer.
      Array("docbm-escrow-catalog\t1\n".utf8) + bytes.dropFirst(EscrowCatalog.header.count),
      Array("docbm-escrow-catalog\t3\n".utf8) + bytes.dropFirst(EscrowCatalog.header.count),
      [],
      // An entry claiming a negative number of documents.
      negativeCount(bytes),
    ]
    for contents in damaged {
      #expect(EscrowCatalog.decode(contents) == nil)
      try Data(contents).write(to: catalogFile.url)
      let rebuilt = EscrowCatalog.load(escrow)
      #expect(rebuilt.records == good.records)
      #expect(try savedCatalog() == good.records)
    }
  }

  @Test("a corrupt entry is reported from the catalog as from the file, every time")
  func problemsKept() throws {
    try anchoredDocument("a.json")
    try scratch.write("{ not json", to: escrow.folder.appending("0000000000000000.json"))
    for _ in 0..<2 {
      let checker = DocumentChecker(escrow: escrow)
      #expect(checker.escrowProblems.count == 1)
      #expect(checker.escrowProblems.first?.reason.contains("malformed") == true)
      #expect(checker.escrowProblems.first?.file == escrow.folder.appending("0000000000000000.json"))
    }
    #expect(try savedCatalog()?.count == 2)
  }

  @Test("a moved document whose key was stripped is found in the escrow by its identity, alone or in a tree")
  func identityEvidence() throws {
    let (path, bookmark) = try anchoredDocument("drawing.bin")
    // Nothing of the bookmark in the bytes; then moved (same inode) and stripped in place.
    try scratch.write("compressed", to: path)
    let moved = scratch.path("project/moved/drawing.bin")
    try scratch.makeParents(of: moved)
    try scratch.move(path, moved)
    #expect(run("/usr/bin/setfattr", ["-x", KeyAttribute.name, moved.description]).status == 0)
    let alone = DocumentChecker(escrow: escrow).check(moved)
    #expect(alone.verdict == .keyLost, "\(alone.message)")
    #expect(alone.escrowedFingerprint == bookmark.keyFingerprint)
    var inTree: DocumentCheck?
    _ = TreeChecker(checker: DocumentChecker(escrow: escrow), concurrency: 2).check(
      scratch.path("project/moved")
    ) {
      if $0.document == moved { inTree = $0 }
    }
    #expect(inTree?.verdict == .keyLost)
    #expect(inTree?.escrowedFingerprint == bookmark.keyFingerprint)
    // Another file with no record is not mistaken for it.
    let other = try scratch.file("project/moved/other.bin", "compressed")
    #expect(DocumentChecker(escrow: escrow).check(other).verdict == .noBookmarks)
  }
}
