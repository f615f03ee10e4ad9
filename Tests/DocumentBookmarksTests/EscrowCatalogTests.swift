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
    EscrowCatalogFile(try readWholeFile(catalogFile))?.records()
  }

  /// Writes a catalog of `records` stamped at `stampedAt`, as a load would have left it.
  private func writeCatalog(_ records: [EscrowCatalog.Record], stampedAt: Timestamp) throws {
    let bytes = try #require(EscrowCatalogFile.encode(records, stampedAt: stampedAt))
    try Data(bytes).write(to: catalogFile.url)
  }

  /// `time` moved by `seconds`.
  private func shifted(_ time: Timestamp, by seconds: Int64) -> Timestamp {
    Timestamp(seconds: time.seconds + seconds, nanoseconds: time.nanoseconds)
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
    let encoded = try #require(EscrowCatalogFile.encode(catalog.records, stampedAt: .now))
    #expect(EscrowCatalogFile(encoded)?.records() == catalog.records)

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
    let staleBytes = try readWholeFile(catalogFile)
    let before = try FileStatus.of(entry.file, followSymlinks: false)

    // The entry rewritten by rename (a new inode): a second document recorded with the key.
    let copy = scratch.path("project/a-copy.json")
    #expect(run("/bin/cp", ["--preserve=xattr", first.description, copy.description]).status == 0)
    #expect(try escrow.escrowKey(of: copy) != nil)
    let after = try FileStatus.of(entry.file, followSymlinks: false)
    #expect(after.inode != before.inode)

    // The catalog as it was, but naming the entry's new inode: what the folder shows when the
    // file system gives the rewrite the number of a version it freed. Stamped long after the
    // entry's change time, so that only the stamp's other fields can tell.
    let stale = try #require(EscrowCatalogFile(staleBytes)?.records())
    #expect(stale.count == 1)
    let reused = stale.map {
      EscrowCatalog.Record(
        name: $0.name,
        stamp: EscrowCatalog.Stamp(inode: after.inode, size: $0.stamp.size, changeTime: $0.stamp.changeTime),
        outcome: $0.outcome)
    }
    #expect(reused[0].stamp.inode != stale[0].stamp.inode)
    try writeCatalog(reused, stampedAt: shifted(.now, by: 60))
    #expect(fromCatalog(EscrowCatalog.load(escrow)) == fromEntryFiles())
    #expect(fromEntryFiles().values.contains { $0.count == 2 })

    // Rewritten in place (as `cp` over it does: the inode is kept), after the catalog was
    // (and that catalog stamped as if long after the entry's change time: only the stamp
    // itself can tell).
    let current = try readWholeFile(entry.file)
    let upToDate = EscrowCatalog.load(escrow).records
    try writeCatalog(upToDate, stampedAt: shifted(.now, by: 60))
    let oneDocument = String(decoding: current, as: UTF8.self).replacingOccurrences(
      of: copy.description, with: first.description)
    let fd = open(entry.file.description, O_WRONLY | O_TRUNC)
    #expect(fd >= 0)
    _ = oneDocument.withCString { write(fd, $0, strlen($0)) }
    close(fd)
    #expect(try FileStatus.of(entry.file, followSymlinks: false).inode == after.inode)
    #expect(fromCatalog(EscrowCatalog.load(escrow)) == fromEntryFiles())
  }

  @Test(
    "an entry whose stamp matches is taken from the catalog once its change time is two seconds older than the stamp, and read again before (kept when its bytes hash the same)"
  )
  func settledStamps() throws {
    let (document, _) = try anchoredDocument("a.json")
    let records = EscrowCatalog.load(escrow).records
    let record = try #require(records.first)
    guard case .entry(let fingerprint, let created, let documents) = record.outcome else {
      Issue.record("the entry did not read: \(record.outcome)")
      return
    }
    #expect(documents.map(\.path) == [document.absolute])
    // The same stamp, but another document recorded: what the catalog would say if the file
    // had been rewritten in place without its change time moving.
    let elsewhere = EscrowEntry.Document(
      path: scratch.path("elsewhere.json").absolute, inode: 1, fileHandle: nil, filesystemID: nil,
      recorded: created)
    let forged = [
      EscrowCatalog.Record(
        name: record.name, stamp: record.stamp,
        outcome: .entry(fingerprint: fingerprint, created: created, documents: [elsewhere]))
    ]
    let changed = record.stamp.changeTime

    // Stamped one second after the change: a second write could have kept the change time,
    // so the file is read again, and its bytes are not the ones summarised.
    #expect(record.contentHash != 0)
    try writeCatalog(forged, stampedAt: shifted(changed, by: 1))
    #expect(fromCatalog(EscrowCatalog.load(escrow)) == fromEntryFiles())
    // The same, but with the hash of the bytes as they are: the record is kept as it is,
    // without decoding the file (what tells it here is the forged document).
    let sameBytes = forged.map {
      EscrowCatalog.Record(
        name: $0.name, stamp: $0.stamp, outcome: $0.outcome, contentHash: record.contentHash)
    }
    try writeCatalog(sameBytes, stampedAt: shifted(changed, by: 1))
    #expect(
      fromCatalog(EscrowCatalog.load(escrow, settlingTime: 3_600)).values.first == [
        elsewhere.path.description
      ])
    // Stamped three seconds after: the catalog is trusted, and used as it is (not rewritten).
    try writeCatalog(forged, stampedAt: shifted(changed, by: 3))
    let trusted = try readWholeFile(catalogFile)
    #expect(fromCatalog(EscrowCatalog.load(escrow)).values.first == [elsewhere.path.description])
    #expect(try readWholeFile(catalogFile) == trusted)
  }

  @Test(
    "an entry read again before its stamp settles leaves the catalog as it is when it says the same; once settled, the catalog is rewritten once"
  )
  func unsettledNotRewritten() throws {
    try anchoredDocument("a.json")
    try anchoredDocument("b.json")
    _ = EscrowCatalog.load(escrow)
    // Nothing settles within an hour: both entries are read again, found the same, and the
    // catalog is left as it is.
    let first = try readWholeFile(catalogFile)
    #expect(EscrowCatalog.load(escrow, settlingTime: 3_600).records.count == 2)
    #expect(try readWholeFile(catalogFile) == first)
    // A catalog stamped before the entries changed (unsettled however short the settling
    // time), loaded with none: read again, settled now, so rewritten (stamped anew) once,
    // then taken as it is.
    let records = try #require(EscrowCatalogFile(first)?.records())
    let earliest = try #require(records.map(\.stamp.changeTime).min())
    try writeCatalog(records, stampedAt: shifted(earliest, by: -10))
    let forged = try readWholeFile(catalogFile)
    #expect(fromCatalog(EscrowCatalog.load(escrow, settlingTime: 0)) == fromEntryFiles())
    let settled = try readWholeFile(catalogFile)
    #expect(settled != forged)
    #expect(EscrowCatalogFile(settled)?.records() == records)
    _ = EscrowCatalog.load(escrow, settlingTime: 0)
    #expect(try readWholeFile(catalogFile) == settled)
    // An entry changed while unsettled is still read again and the catalog rewritten.
    try anchoredDocument("c.json")
    #expect(EscrowCatalog.load(escrow, settlingTime: 3_600).records.count == 3)
    #expect(try savedCatalog()?.count == 3)
  }

  @Test("an entry edited by hand to record a path of no bytes is catalogued, not taken for a fault")
  func emptyRecordedPath() throws {
    try anchoredDocument("a.json")
    let entry = try #require(escrow.entries().entries.first)
    let text = String(decoding: try readWholeFile(entry.file), as: UTF8.self)
    let edited = text.replacingOccurrences(of: "\"path\" : \"", with: "\"path\" : \"\", \"was\" : \"")
    #expect(edited != text)
    try scratch.write(edited, to: entry.file)
    let catalog = EscrowCatalog.load(escrow)
    #expect(catalog.folderProblem == nil)
    #expect(fromCatalog(catalog) == fromEntryFiles())
    #expect(fromCatalog(catalog).values.first == [""])
    #expect(try savedCatalog()?.count == 1)
  }

  /// `bytes` with the checksum made to match again: damage only the structure checks can see.
  private func resealed(_ bytes: [UInt8]) -> [UInt8] {
    var bytes = bytes
    let sum = bytes.withUnsafeBytes { ByteHash.of(UnsafeRawBufferPointer(rebasing: $0[64...])) }
    withUnsafeBytes(of: sum.littleEndian) { bytes.replaceSubrange(56..<64, with: $0) }
    return bytes
  }

  /// `bytes` with the 32-bit field at `offset` set to `value`, resealed.
  private func patched(_ bytes: [UInt8], at offset: Int, _ value: UInt32) -> [UInt8] {
    var bytes = bytes
    withUnsafeBytes(of: value.littleEndian) { bytes.replaceSubrange(offset..<(offset + 4), with: $0) }
    return resealed(bytes)
  }

  @Test("a damaged, cut-short or foreign catalog is rebuilt from the entries")
  func damagedCatalog() throws {
    try anchoredDocument("a.json")
    try anchoredDocument("b.json")
    let good = EscrowCatalog.load(escrow)
    let bytes = try readWholeFile(catalogFile)
    #expect(EscrowCatalogFile(bytes) != nil)
    #expect(EscrowCatalogFile(resealed(bytes)) != nil)
    var flipped = bytes
    flipped[bytes.count / 2] ^= 0x10
    let entry = EscrowCatalogFile.Size.header
    let documents = entry + 2 * EscrowCatalogFile.Size.entry
    let damaged: [[UInt8]] = [
      Array("not a catalog\n".utf8),
      Array(bytes.dropLast(12)),  // cut short
      bytes + [0],  // longer than its parts
      flipped,  // the checksum no longer matches
      // Another version's, older and newer, and the text catalog of version 2.
      Array("docbm-catalog-2\n".utf8) + bytes.dropFirst(16),
      Array("docbm-catalog-4\n".utf8) + bytes.dropFirst(16),
      Array("docbm-escrow-catalog\t2\nend\t0\n".utf8),
      [],
      // Checksums made to match, structures wrong: a name outside the file, documents
      // beyond the last, an unknown kind, a document of no entry, a file handle outside the
      // file, more entries than the file holds.
      patched(bytes, at: entry + EscrowCatalogFile.EntryField.nameOffset, 1 << 30),
      patched(bytes, at: entry + EscrowCatalogFile.EntryField.documentCount, UInt32.max),
      patched(bytes, at: entry + EscrowCatalogFile.EntryField.kind, 7),
      patched(bytes, at: documents + EscrowCatalogFile.DocumentField.entry, 5),
      patched(bytes, at: documents + EscrowCatalogFile.DocumentField.handleOffset, 1 << 30),
      // A document's copy of its entry's fingerprint that is not the entry's.
      patched(bytes, at: documents + EscrowCatalogFile.DocumentField.fingerprint, 0x0102_0304),
      patched(bytes, at: EscrowCatalogFile.Header.entryCount, 3),
    ]
    for contents in damaged {
      #expect(EscrowCatalogFile(contents) == nil)
      try Data(contents).write(to: catalogFile.url)
      let rebuilt = EscrowCatalog.load(escrow)
      #expect(rebuilt.records == good.records)
      #expect(try savedCatalog() == good.records)
    }
  }

  @Test("a catalog damaged anywhere, its checksum made to match, is refused or read without a crash")
  func damagedAnywhere() throws {
    for name in ["a.json", "b.json", "c.json"] { try anchoredDocument(name) }
    _ = EscrowCatalog.load(escrow)
    let bytes = try readWholeFile(catalogFile)
    var generator = SystemRandomNumberGenerator()
    var refused = 0
    for _ in 0..<3_000 {
      var damaged = bytes
      for _ in 0..<Int.random(in: 1...3, using: &generator) {
        damaged[Int.random(in: 64..<bytes.count, using: &generator)] = UInt8.random(
          in: 0...255, using: &generator)
      }
      guard let file = EscrowCatalogFile(resealed(damaged)) else {
        refused += 1
        continue
      }
      // Accepted (the change fell on a stamp, a time or the data): every part reads.
      _ = file.records()
      _ = file.problems()
      for index in 0..<file.entryCount { _ = file.withName(ofEntry: index) { $0.count } }
      _ = Array("/nowhere".utf8).withUnsafeBytes { file.fingerprint(ofPath: $0) }
      _ = file.fingerprint(filesystem: 1, handle: KernelFileHandle(type: 1, bytes: [1, 2]), inode: 3)
      _ = file.fingerprint(filesystem: 1, handle: nil, inode: 3)
    }
    #expect(refused > 0)
  }

  @Test(
    "the catalog's tables find each path's and identity's latest record, as a plain search of the records does"
  )
  func lookupTables() throws {
    var generator = SystemRandomNumberGenerator()
    let paths = (0..<1_500).map { FilePath("/home/user/\($0 % 7)/document-\($0).txt") }
    var records: [EscrowCatalog.Record] = []
    for entry in 0..<800 {
      let fingerprint = try #require(
        KeyFingerprint(bytes: (0..<8).map { _ in UInt8.random(in: 0...255, using: &generator) }))
      let documents = (0..<Int.random(in: 0...5, using: &generator)).map { _ in
        let handle: KernelFileHandle? =
          Bool.random(using: &generator)
          ? KernelFileHandle(type: 1, bytes: (0..<8).map { _ in UInt8.random(in: 0...3, using: &generator) })
          : nil
        return EscrowEntry.Document(
          path: paths.randomElement(using: &generator)!, inode: UInt64.random(in: 2...400, using: &generator),
          fileHandle: handle, filesystemID: Bool.random(using: &generator) ? 9 : nil,
          // Few distinct times, so that ties are common.
          recorded: Timestamp(seconds: Int64.random(in: 0...3, using: &generator), nanoseconds: 0))
      }
      records.append(
        EscrowCatalog.Record(
          name: Array(String(format: "%08d.json", entry).utf8),
          stamp: EscrowCatalog.Stamp(
            inode: UInt64(entry), size: 1, changeTime: Timestamp(seconds: 1, nanoseconds: 0)),
          outcome: entry % 50 == 0
            ? .problem(reason: "damaged")
            : .entry(
              fingerprint: fingerprint, created: Timestamp(seconds: 0, nanoseconds: 0), documents: documents))
      )
    }
    let encoded = try #require(EscrowCatalogFile.encode(records, stampedAt: .now))
    let file = try #require(EscrowCatalogFile(encoded))
    #expect(file.records() == records)

    // The plain search: the later of two records wins, and of two at one time the later one.
    var byPath: [FilePath: (KeyFingerprint, Timestamp)] = [:]
    var byIdentity: [String: (KeyFingerprint, Timestamp)] = [:]
    var inodes: Set<UInt64> = []
    var fingerprints: Set<KeyFingerprint> = []
    func identity(_ filesystem: UInt64, _ handle: KernelFileHandle?, _ inode: UInt64) -> String {
      handle.map { "\(filesystem) h\($0.type) \($0.bytes)" } ?? "\(filesystem) i\(inode)"
    }
    for record in records {
      guard case .entry(let fingerprint, _, let documents) = record.outcome else { continue }
      fingerprints.insert(fingerprint)
      for document in documents {
        if byPath[document.path].map({ $0.1 <= document.recorded }) ?? true {
          byPath[document.path] = (fingerprint, document.recorded)
        }
        let key = identity(document.filesystemID ?? 0, document.fileHandle, document.inode)
        if byIdentity[key].map({ $0.1 <= document.recorded }) ?? true {
          byIdentity[key] = (fingerprint, document.recorded)
        }
        inodes.insert(document.inode)
      }
    }
    #expect(byPath.count > 500)
    for path in paths + [FilePath("/home/user/none"), FilePath("/")] {
      let found = path.bytes.withUnsafeBytes { file.fingerprint(ofPath: $0) }
      #expect(found == byPath[path]?.0, "\(path)")
    }
    for inode in UInt64(0)...401 {
      #expect(file.recordsInode(inode) == inodes.contains(inode))
      for filesystem: UInt64 in [0, 9] {
        #expect(
          file.fingerprint(filesystem: filesystem, handle: nil, inode: inode)
            == byIdentity[identity(filesystem, nil, inode)]?.0)
      }
    }
    for first in UInt8(0)...3 {
      for second in UInt8(0)...3 {
        let handle = KernelFileHandle(type: 1, bytes: [first, second, 0, 1, 2, 3, 0, 1])
        for filesystem: UInt64 in [0, 9] {
          #expect(
            file.fingerprint(filesystem: filesystem, handle: handle, inode: 0)
              == byIdentity[identity(filesystem, handle, 0)]?.0)
        }
      }
    }
    for record in records {
      if case .entry(let fingerprint, _, _) = record.outcome { #expect(file.holds(fingerprint)) }
    }
    let absent = try #require(KeyFingerprint(bytes: [0, 0, 0, 0, 0, 0, 0, 1]))
    #expect(file.holds(absent) == fingerprints.contains(absent))
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
