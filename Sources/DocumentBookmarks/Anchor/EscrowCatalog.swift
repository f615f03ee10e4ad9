/// What the checker needs from the escrow, without reading every entry file each time: a
/// summary file, `.catalog`, kept in the escrow folder beside the entries.
///
/// The entry files stay the only source of truth (and the only place keys are kept). The
/// catalog holds, for each entry file, its name, its ``Stamp`` (inode number, size and
/// change time), and either the entry's fingerprint, creation time and document records, or
/// why the file could not be read. Loading lists the folder, `statx`es each entry file, and
/// takes from the catalog every entry whose name and stamp still match; a file added,
/// removed or rewritten is read again, and the catalog rewritten. The inode alone would not
/// do: a rewrite by rename can be given the number a version before it freed, and one in
/// place (`cp` over it) keeps it; the change time moves with every write and rename and
/// cannot be set back. A catalog that is missing, damaged or of another version is rebuilt
/// from the entries, so losing it costs time, never answers. The format is in
/// docs/format.md §6.
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
  static let header = Array("docbm-escrow-catalog\t2\n".utf8)

  let records: [Record]
  /// Why the folder's entries were not used, when it cannot be trusted.
  var folderProblem: EscrowProblem? = nil

  /// The catalog of `escrow`, brought up to date with its folder; rewritten when it was
  /// not (best effort: a folder that cannot be written only makes the next load slower).
  /// A folder that cannot be trusted (``EscrowFolder``) gives no records, and the problem.
  static func load(_ escrow: KeyEscrow) -> EscrowCatalog {
    let folder: EscrowFolder
    do {
      guard let opened = try EscrowFolder.open(escrow.folder) else { return EscrowCatalog(records: []) }
      folder = opened
    } catch {
      return EscrowCatalog(
        records: [], folderProblem: EscrowProblem(file: escrow.folder, reason: error.message))
    }
    defer { folder.close() }
    guard var listed = try? DirectoryStream.entries(of: folder.descriptor) else {
      return EscrowCatalog(records: [])
    }
    ByteOrder.sort(&listed) { $0.name }
    // Saved records are in name order, as the listing is sorted here: one merge pass.
    // A catalog that is not a regular file of the user's is ignored (and rewritten).
    let saved =
      (try? folder.read(Array(fileName.utf8), limit: 256 << 20).get()).flatMap { $0 }.flatMap(decode) ?? []
    var next = saved.startIndex
    var records: [Record] = []
    records.reserveCapacity(listed.count)
    var changed = false
    for entry in listed where KeyEscrow.isEntryFileName(entry.name) {
      // The stamp is taken before the file is read: a rewrite between the two leaves a
      // stamp older than the contents, which the next load reads again (never the reverse).
      // A file that cannot be looked at gets a stamp no file has, and is read (which says why).
      let stamp: Stamp
      do {
        stamp = Stamp(
          try FileStatus.of(
            FilePath(uncheckedBytes: entry.name), relativeTo: folder.descriptor, followSymlinks: false))
      } catch {
        if error.errno == .noSuchFile {
          changed = true
          continue  // removed since it was listed
        }
        stamp = Stamp(inode: 0, size: 0, changeTime: Timestamp(seconds: 0, nanoseconds: 0))
      }
      while next < saved.endIndex && ByteOrder.precedes(saved[next].name, entry.name) { next += 1 }
      if next < saved.endIndex, saved[next].name == entry.name, stamp.inode != 0, saved[next].stamp == stamp {
        records.append(saved[next])
        next += 1
        continue
      }
      changed = true
      let outcome: Record.Outcome
      switch escrow.readEntry(entry.name, in: folder) {
      case .success(let read?):
        outcome = .entry(fingerprint: read.fingerprint, created: read.created, documents: read.documents)
      case .success(nil): continue  // removed since it was listed
      case .failure(let problem): outcome = .problem(reason: problem.reason)
      }
      records.append(Record(name: entry.name, stamp: stamp, outcome: outcome))
    }
    let catalog = EscrowCatalog(records: records)
    if changed || records.count != saved.count {
      try? escrow.writePrivateFile(fileName, contents: catalog.encoded())
    }
    return catalog
  }

  // MARK: - The file

  /// The catalog as text: a header line, then one line per entry file, each followed by one
  /// line per document record. Fields are separated by tabs; names and paths are URL-safe
  /// base64 (they are bytes), numbers decimal, file handles hex, `-` for none.
  ///
  ///     E <name> <stamp> <fingerprint> <created s> <created ns> <document count>
  ///     D <path> <inode> <filesystem id|-> <handle type|-> <handle hex|-> <recorded s> <recorded ns>
  ///     P <name> <stamp> <reason>
  ///     end <entry count>
  ///
  /// where `<stamp>` is four fields: `<inode> <size> <changed s> <changed ns>`.
  func encoded() -> [UInt8] {
    var text = ""
    for record in records {
      let name = Base64URL.encode(record.name)
      let stamp = record.stamp
      let nameAndStamp =
        "\(name)\t\(stamp.inode)\t\(stamp.size)\t\(stamp.changeTime.seconds)\t\(stamp.changeTime.nanoseconds)"
      switch record.outcome {
      case .entry(let fingerprint, let created, let documents):
        text +=
          "E\t\(nameAndStamp)\t\(fingerprint)\t\(created.seconds)\t\(created.nanoseconds)\t\(documents.count)\n"
        for document in documents {
          let filesystem = document.filesystemID.map(String.init) ?? "-"
          let handleType = document.fileHandle.map { String($0.type) } ?? "-"
          let handle = document.fileHandle.map { Hex.encode($0.bytes) } ?? "-"
          text +=
            "D\t\(Base64URL.encode(document.path.bytes))\t\(document.inode)\t\(filesystem)\t\(handleType)\t\(handle)"
            + "\t\(document.recorded.seconds)\t\(document.recorded.nanoseconds)\n"
        }
      case .problem(let reason):
        text += "P\t\(nameAndStamp)\t\(Base64URL.encode(Array(reason.utf8)))\n"
      }
    }
    text += "end\t\(records.count)\n"
    return EscrowCatalog.header + Array(text.utf8)
  }

  /// The records of a catalog file, or `nil` when it is not one this version wrote whole.
  static func decode(_ bytes: [UInt8]) -> [Record]? {
    guard bytes.starts(with: header), bytes.last == UInt8(ascii: "\n") else { return nil }
    var reader = LineReader(bytes: bytes, position: header.count)
    var records: [Record] = []
    var fields: [Range<Int>] = []
    var documentFields: [Range<Int>] = []
    while reader.nextLine(into: &fields) {
      switch (reader.kind(of: fields[0]), fields.count) {
      case (.entry, 10):
        guard let name = Base64URL.decode(bytes[fields[1]]),
          let stamp = reader.stamp(fields[2...5]),
          let fingerprint = KeyFingerprint(printed: bytes[fields[6]]),
          let seconds = reader.number(fields[7], Int64.self),
          let nanoseconds = reader.number(fields[8], UInt32.self),
          let count = reader.number(fields[9], UInt32.self).map(Int.init)
        else { return nil }
        var documents: [EscrowEntry.Document] = []
        documents.reserveCapacity(min(count, 64))
        for _ in 0..<count {
          guard reader.nextLine(into: &documentFields), let document = decodeDocument(documentFields, reader)
          else { return nil }
          documents.append(document)
        }
        records.append(
          Record(
            name: name, stamp: stamp,
            outcome: .entry(
              fingerprint: fingerprint, created: Timestamp(seconds: seconds, nanoseconds: nanoseconds),
              documents: documents)))
      case (.problem, 7):
        guard let name = Base64URL.decode(bytes[fields[1]]),
          let stamp = reader.stamp(fields[2...5]),
          let reason = Base64URL.decode(bytes[fields[6]])
        else { return nil }
        records.append(
          Record(name: name, stamp: stamp, outcome: .problem(reason: String(decoding: reason, as: UTF8.self)))
        )
      case (.end, 2):
        guard reader.number(fields[1], Int.self) == records.count, !reader.nextLine(into: &documentFields)
        else {
          return nil
        }
        return records
      default:
        return nil
      }
    }
    return nil  // no end line: cut short
  }

  private static func decodeDocument(_ fields: [Range<Int>], _ reader: LineReader) -> EscrowEntry.Document? {
    guard fields.count == 8, reader.kind(of: fields[0]) == .document,
      let pathBytes = Base64URL.decode(reader.bytes[fields[1]]), let path = FilePath(bytes: pathBytes),
      let inode = reader.number(fields[2], UInt64.self),
      let seconds = reader.number(fields[6], Int64.self),
      let nanoseconds = reader.number(fields[7], UInt32.self)
    else { return nil }
    var filesystem: UInt64?
    if !reader.isNone(fields[3]) {
      guard let value = reader.number(fields[3], UInt64.self) else { return nil }
      filesystem = value
    }
    var handle: KernelFileHandle?
    if !reader.isNone(fields[4]) {
      guard let type = reader.number(fields[4], Int32.self), let bytes = Hex.decode(reader.bytes[fields[5]])
      else {
        return nil
      }
      handle = KernelFileHandle(type: type, bytes: bytes)
    }
    return EscrowEntry.Document(
      path: path, inode: inode, fileHandle: handle, filesystemID: filesystem,
      recorded: Timestamp(seconds: seconds, nanoseconds: nanoseconds))
  }

  /// Reads the catalog's lines as ranges of tab-separated fields.
  private struct LineReader {
    let bytes: [UInt8]
    var position: Int

    /// The kinds of line, by their first field.
    enum Kind {
      case entry, document, problem, end, other
    }

    /// Reads the fields of the next line into `fields` (its storage reused from line to
    /// line); `false` at the end.
    mutating func nextLine(into fields: inout [Range<Int>]) -> Bool {
      fields.removeAll(keepingCapacity: true)
      guard position < bytes.count else { return false }
      var start = position
      while position < bytes.count {
        let byte = bytes[position]
        if byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n") {
          fields.append(start..<position)
          start = position + 1
          if byte == UInt8(ascii: "\n") { break }
        }
        position += 1
      }
      position += 1
      return true
    }

    /// What a line whose first field is `field` is, read without making text of it.
    func kind(of field: Range<Int>) -> Kind {
      let first = field.isEmpty ? 0 : bytes[field.lowerBound]
      switch (field.count, first) {
      case (1, UInt8(ascii: "E")): return .entry
      case (1, UInt8(ascii: "D")): return .document
      case (1, UInt8(ascii: "P")): return .problem
      case (3, UInt8(ascii: "e")) where bytes[field].elementsEqual("end".utf8): return .end
      default: return .other
      }
    }

    /// A ``Stamp`` from its four fields: inode, size, change time's seconds and nanoseconds.
    func stamp(_ fields: ArraySlice<Range<Int>>) -> Stamp? {
      let at = fields.startIndex
      guard fields.count == 4, let inode = number(fields[at], UInt64.self),
        let size = number(fields[at + 1], UInt64.self),
        let seconds = number(fields[at + 2], Int64.self),
        let nanoseconds = number(fields[at + 3], UInt32.self)
      else { return nil }
      return Stamp(
        inode: inode, size: size, changeTime: Timestamp(seconds: seconds, nanoseconds: nanoseconds))
    }

    /// Whether the field is `-` (none).
    func isNone(_ field: Range<Int>) -> Bool {
      field.count == 1 && bytes[field.lowerBound] == UInt8(ascii: "-")
    }

    /// A decimal number, digits only (and a leading `-` for signed types).
    func number<Value: FixedWidthInteger>(_ field: Range<Int>, _: Value.Type) -> Value? {
      guard !field.isEmpty, field.count <= 20 else { return nil }
      var value: Value = 0
      var index = field.lowerBound
      let negative = Value.isSigned && bytes[index] == UInt8(ascii: "-") && field.count > 1
      if negative { index += 1 }
      while index < field.upperBound {
        let digit = bytes[index] &- UInt8(ascii: "0")
        guard digit < 10 else { return nil }
        let (shifted, overflowA) = value.multipliedReportingOverflow(by: 10)
        let (added, overflowB) =
          negative
          ? shifted.subtractingReportingOverflow(Value(digit)) : shifted.addingReportingOverflow(Value(digit))
        guard !overflowA && !overflowB else { return nil }
        value = added
        index += 1
      }
      return value
    }
  }
}
