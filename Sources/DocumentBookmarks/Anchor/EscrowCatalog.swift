import Glibc

/// What the checker needs from the escrow, without reading every entry file each time: a
/// summary file, `.catalog`, kept in the escrow folder beside the entries.
///
/// The entry files stay the only source of truth (and the only place keys are kept). The
/// catalog holds, for each entry file, its name, its ``Stamp`` (inode number, size and
/// change time), and either the entry's fingerprint, creation time and document records, or
/// why the file could not be read; and tables to look documents up in
/// (``EscrowCatalogFile``). Loading lists the folder, `statx`es each entry file, and takes
/// from the catalog every entry whose name and stamp still match; a file added, removed or
/// rewritten is read again, and the catalog rewritten. The inode alone would not do: a
/// rewrite by rename can be given the number a version before it freed, and one in place
/// (`cp` over it) keeps it; the change time moves with every write and rename and cannot be
/// set back. A stamp taken within ``settlingTime`` of the file's change time is not trusted
/// on the next load (a second write within the same tick of the filesystem's clock would
/// leave the same change time), so such an entry is read again until its stamp has settled.
/// A catalog that is missing, damaged or of another version is rebuilt from the entries, so
/// losing it costs time, never answers. The format is in docs/format.md §6.
///
/// Without it, a check reads and decodes every entry file before its first document: tens
/// of milliseconds per thousand keys.
struct EscrowCatalog: Sendable {
  /// One entry file, as last read.
  struct Record: Sendable, Equatable {
    enum Outcome: Sendable, Equatable {
      case entry(fingerprint: KeyFingerprint, created: Timestamp, documents: [EscrowEntry.Document])
      case problem(reason: String)
    }

    /// The file's name in the escrow folder.
    let name: [UInt8]
    /// The file as it was just before it was read.
    let stamp: Stamp
    let outcome: Outcome
    /// ``ByteHash`` of the file's bytes as read; 0 when they could not be read. A file read
    /// again while its stamp is young is taken from the catalog when its bytes hash the
    /// same, without decoding them again.
    var contentHash: UInt64 = 0
  }

  /// What tells one version of an entry file from another without reading it: its inode
  /// number, size and change time, from one `statx`.
  struct Stamp: Sendable, Equatable {
    let inode: UInt64
    let size: UInt64
    let changeTime: Timestamp

    init(inode: UInt64, size: UInt64, changeTime: Timestamp) {
      self.inode = inode
      self.size = size
      self.changeTime = changeTime
    }

    init(_ status: FileStatus) {
      self.init(inode: status.inode, size: status.size, changeTime: status.changeTime)
    }
  }

  static let fileName = ".catalog"
  /// How long after a file's change time its stamp is trusted: longer than the coarsest
  /// timestamp granularity of a filesystem the escrow can live on (one or two seconds).
  static let settlingTime: Int64 = 2

  /// The catalog, as read or as just rebuilt; `nil` when the escrow has no folder, or it
  /// could not be listed or trusted.
  let file: EscrowCatalogFile?
  /// Why the folder's entries were not used, when it cannot be trusted.
  var folderProblem: EscrowProblem? = nil

  /// Every entry, as records of their own.
  var records: [Record] { file?.records() ?? [] }

  /// The entry files of the escrow folder `folder` that could not be read, with why.
  func problems(in folder: FilePath) -> [EscrowProblem] {
    var problems =
      file?.problems().map { EscrowProblem(file: folder.appending($0.name), reason: $0.reason) } ?? []
    if let folderProblem { problems.insert(folderProblem, at: 0) }
    return problems
  }

  /// The catalog of `escrow`, brought up to date with its folder; rewritten when it was
  /// not (best effort: a folder that cannot be written only makes the next load slower).
  /// A folder that cannot be trusted (``EscrowFolder``) gives no records, and the problem.
  ///
  /// - Parameter settlingTime: how much older than the stamps a file's change time must be
  ///   for its stamp to be trusted (``settlingTime``; tests shorten or lengthen it).
  static func load(_ escrow: KeyEscrow, settlingTime: Int64 = EscrowCatalog.settlingTime) -> EscrowCatalog {
    let folder: EscrowFolder
    do {
      guard let opened = try EscrowFolder.open(escrow.folder) else { return EscrowCatalog(file: nil) }
      folder = opened
    } catch {
      return EscrowCatalog(
        file: nil, folderProblem: EscrowProblem(file: escrow.folder, reason: error.message))
    }
    defer { folder.close() }
    guard let stream = try? DirectoryStream(FilePath("."), relativeTo: folder.descriptor) else {
      return EscrowCatalog(file: nil)
    }
    let listing = DirectoryListing(stream)
    guard listing.failure == nil else { return EscrowCatalog(file: nil) }
    // Every stamp of this load is taken after this time.
    let stampedAt = Timestamp.now
    // A catalog that is not a regular file of the user's is ignored (and rewritten).
    let saved =
      (try? folder.read(Array(fileName.utf8), limit: 256 << 20).get()).flatMap { $0 }.flatMap(
        EscrowCatalogFile.init)

    // Each listed entry file, taken from the saved catalog (its index there) or read now.
    // Saved entries are in name order, as the listing is: one merge pass.
    enum Source {
      case saved(Int)
      case read(Record)
    }
    var sources: [Source] = []
    sources.reserveCapacity(listing.entries.count)
    var next = 0
    var changed = false
    for entry in listing.entries where listing.withBytes(ofName: entry, { KeyEscrow.isEntryFileName($0) }) {
      // The stamp is taken before the file is read: a rewrite between the two leaves a
      // stamp older than the contents, which the next load reads again (never the reverse).
      // A file that cannot be looked at gets a stamp no file has, and is read (which says why).
      let stamp: Stamp
      do {
        stamp = Stamp(
          try listing.withName(of: entry) { name throws(SystemCallError) in
            try FileStatus.of(name: name, relativeTo: folder.descriptor, followSymlinks: false)
          })
      } catch {
        if error.errno == .noSuchFile {
          changed = true
          continue  // removed since it was listed
        }
        stamp = Stamp(inode: 0, size: 0, changeTime: Timestamp(seconds: 0, nanoseconds: 0))
      }
      // A file whose stamp matches but had not settled is read again; when its bytes are
      // the ones the catalog summarised, its record is kept, and the catalog rewritten only
      // when the stamp has settled since (so that the next load can trust it).
      var young: Int?
      if let saved {
        let found = listing.withBytes(ofName: entry) { name -> Bool in
          while next < saved.entryCount,
            saved.withName(ofEntry: next, { ByteOrder.precedes($0, name) })
          {
            next += 1
          }
          return next < saved.entryCount
            && saved.withName(ofEntry: next) {
              $0.count == name.count && memcmp($0.baseAddress!, name.baseAddress!, name.count) == 0
            }
        }
        if found, stamp.inode != 0, saved.stamp(ofEntry: next) == stamp {
          if isSettled(stamp, at: saved.stampedAt, settlingTime: settlingTime) {
            sources.append(.saved(next))
            next += 1
            continue
          }
          young = next
          next += 1
        }
      }
      let name = listing.name(of: entry)
      let record: Record
      switch folder.read(name, limit: KeyEscrow.maximumFileSize) {
      case .success(nil):
        changed = true
        continue  // removed since it was listed
      case .failure(let problem):
        record = Record(name: name, stamp: stamp, outcome: .problem(reason: problem.reason))
      case .success(let bytes?):
        let hash = bytes.withUnsafeBytes { ByteHash.of($0) }
        if let young, let saved, saved.contentHash(ofEntry: young) == hash {
          if isSettled(stamp, at: stampedAt, settlingTime: settlingTime) { changed = true }
          sources.append(.saved(young))
          continue
        }
        switch escrow.entry(decoding: bytes, name: name, in: folder) {
        case .success(let read):
          record = Record(
            name: name, stamp: stamp,
            outcome: .entry(fingerprint: read.fingerprint, created: read.created, documents: read.documents),
            contentHash: hash)
        case .failure(let problem):
          record = Record(
            name: name, stamp: stamp, outcome: .problem(reason: problem.reason), contentHash: hash)
        }
      }
      changed = true
      sources.append(.read(record))
    }
    if let saved, !changed, sources.count == saved.entryCount { return EscrowCatalog(file: saved) }

    var records: [Record] = []
    records.reserveCapacity(sources.count)
    for source in sources {
      switch source {
      case .read(let record): records.append(record)
      case .saved(let index):
        if let record = saved?.record(index) { records.append(record) }
      }
    }
    guard let bytes = EscrowCatalogFile.encode(records, stampedAt: stampedAt) else {
      return EscrowCatalog(
        file: nil,
        folderProblem: EscrowProblem(
          file: escrow.folder,
          reason: "holds more entries than its catalog can index (4 GiB of names and paths)"))
    }
    guard let file = EscrowCatalogFile(bytes) else {
      return EscrowCatalog(
        file: nil,
        folderProblem: EscrowProblem(
          file: escrow.folder, reason: "its catalog could not be made from its entries (a fault in docbm)"))
    }
    try? escrow.writePrivateFile(fileName, contents: bytes)
    return EscrowCatalog(file: file)
  }

  /// Whether a stamp taken no earlier than `stampedAt` can be trusted to change with the
  /// file: the file's change time is at least `settlingTime` seconds older.
  static func isSettled(_ stamp: Stamp, at stampedAt: Timestamp, settlingTime: Int64) -> Bool {
    let (settled, overflow) = stamp.changeTime.seconds.addingReportingOverflow(settlingTime)
    return !overflow && Timestamp(seconds: settled, nanoseconds: stamp.changeTime.nanoseconds) <= stampedAt
  }
}
