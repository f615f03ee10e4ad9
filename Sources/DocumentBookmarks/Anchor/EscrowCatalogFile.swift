import Glibc

/// The escrow catalog as it lies in its file (docs/format.md §6): fixed-size records of the
/// entry files and their documents, and lookup tables made when the file was written, in
/// one buffer that is checked once when read and then used where it lies.
///
/// A check with thousands of escrowed keys looks up every document it sees: with the
/// tables ready in the file, loading the catalog is reading one file and comparing one
/// stamp per entry, and a lookup is a hash of the path and a comparison of bytes, with no
/// record decoded and no table built on the way.
///
/// Every offset, count and table slot is checked against the file's length before it is
/// used, and a checksum covers everything after the header, so a file that was cut short,
/// damaged, or written by another version is refused (and the catalog rebuilt), never
/// trusted and never a crash.
struct EscrowCatalogFile: Sendable {
  /// The first 16 bytes: the format's name and version.
  static let magic: [UInt8] = Array("docbm-catalog-3\n".utf8)

  /// Sizes of the header and of the fixed-size records, in bytes.
  enum Size {
    static let header = 64
    static let entry = 80
    static let document = 64
    static let slot = 8
  }

  /// Field offsets in the header.
  enum Header {
    static let entryCount = 16
    static let documentCount = 20
    static let pathSlotCount = 24
    static let identitySlotCount = 28
    static let inodeSlotCount = 32
    static let fingerprintCount = 36
    static let stampedSeconds = 40
    static let stampedNanoseconds = 48
    static let dataCount = 52
    static let checksum = 56
  }

  /// Field offsets in an entry record.
  enum EntryField {
    static let nameOffset = 0
    static let nameCount = 4
    static let inode = 8
    static let size = 16
    static let changedSeconds = 24
    static let changedNanoseconds = 32
    static let kind = 36
    /// An entry's fingerprint, its eight bytes as printed; a problem's reason offset and count.
    static let fingerprint = 40
    static let reasonOffset = 40
    static let reasonCount = 44
    static let createdSeconds = 48
    static let createdNanoseconds = 56
    static let firstDocument = 60
    static let documentCount = 64
    /// ``EscrowCatalog/Record/contentHash``.
    static let contentHash = 72
  }

  /// Field offsets in a document record.
  enum DocumentField {
    static let pathOffset = 0
    static let pathCount = 4
    static let inode = 8
    static let filesystem = 16
    static let flags = 24
    static let handleType = 28
    static let handleOffset = 32
    static let handleCount = 36
    static let recordedSeconds = 40
    static let recordedNanoseconds = 48
    static let entry = 52
    /// Its entry's fingerprint, again: a lookup reads the one record.
    static let fingerprint = 56
  }

  /// An entry record's kind.
  enum Kind: UInt32 {
    /// An entry file that read: a fingerprint, a creation time and documents.
    case entry = 1
    /// A file that did not: the reason.
    case problem = 2
  }

  /// Document flags.
  enum Flag {
    static let hasFilesystem: UInt32 = 1
    static let hasHandle: UInt32 = 2
  }

  /// The whole file.
  let bytes: [UInt8]
  /// Where each part of the file lies, from the header's counts.
  private let layout: Layout
  /// The number of entry records (entry files that read, and those that did not).
  var entryCount: Int { layout.entries }
  /// The number of document records.
  var documentCount: Int { layout.documents }
  /// When the stamps were taken, at the latest: an entry changed less than
  /// ``EscrowCatalog/settlingTime`` before this may have been changed again within the same
  /// tick of the filesystem's clock, and is read again.
  let stampedAt: Timestamp

  /// The catalog in `bytes`, or `nil` when they are not a whole, intact catalog of this
  /// version.
  init?(_ bytes: [UInt8]) {
    guard bytes.count >= Size.header, bytes.starts(with: EscrowCatalogFile.magic) else { return nil }
    let layout: Layout? = bytes.withUnsafeBytes { raw in
      let header = Reader(raw)
      let layout = Layout(
        entries: Int(header.u32(Header.entryCount)), documents: Int(header.u32(Header.documentCount)),
        pathSlots: Int(header.u32(Header.pathSlotCount)),
        identitySlots: Int(header.u32(Header.identitySlotCount)),
        inodeSlots: Int(header.u32(Header.inodeSlotCount)),
        fingerprints: Int(header.u32(Header.fingerprintCount)),
        data: Int(header.u32(Header.dataCount)))
      guard layout.total == raw.count,
        header.u64(Header.checksum) == ByteHash.of(UnsafeRawBufferPointer(rebasing: raw[Size.header...]))
      else { return nil }
      return layout
    }
    guard let layout else { return nil }
    self.bytes = bytes
    self.layout = layout
    stampedAt = bytes.withUnsafeBytes { raw in
      let header = Reader(raw)
      return Timestamp(
        seconds: header.i64(Header.stampedSeconds), nanoseconds: header.u32(Header.stampedNanoseconds))
    }
    guard stampedAt.nanoseconds < 1_000_000_000, isWellFormed() else { return nil }
  }

  /// Where each part of a file lies, from its counts.
  struct Layout {
    let entries: Int
    let documents: Int
    let pathSlots: Int
    let identitySlots: Int
    let inodeSlots: Int
    let fingerprints: Int
    let data: Int

    /// Where each part starts, worked out once: lookups and the load's merge ask on every
    /// record.
    let entriesStart = Size.header
    let documentsStart: Int
    let fingerprintsStart: Int
    let pathSlotsStart: Int
    let identitySlotsStart: Int
    let inodeSlotsStart: Int
    let dataStart: Int
    let total: Int

    init(
      entries: Int, documents: Int, pathSlots: Int, identitySlots: Int, inodeSlots: Int, fingerprints: Int,
      data: Int
    ) {
      self.entries = entries
      self.documents = documents
      self.pathSlots = pathSlots
      self.identitySlots = identitySlots
      self.inodeSlots = inodeSlots
      self.fingerprints = fingerprints
      self.data = data
      documentsStart = entriesStart + entries * Size.entry
      fingerprintsStart = documentsStart + documents * Size.document
      pathSlotsStart = fingerprintsStart + fingerprints * 8
      identitySlotsStart = pathSlotsStart + pathSlots * Size.slot
      inodeSlotsStart = identitySlotsStart + identitySlots * Size.slot
      dataStart = inodeSlotsStart + inodeSlots * Size.slot
      total = dataStart + data
    }
  }

  /// Reads little-endian numbers at byte offsets of a buffer.
  struct Reader {
    let raw: UnsafeRawBufferPointer

    init(_ raw: UnsafeRawBufferPointer) { self.raw = raw }

    func u32(_ offset: Int) -> UInt32 {
      UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }
    func u64(_ offset: Int) -> UInt64 {
      UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }
    func i64(_ offset: Int) -> Int64 { Int64(bitPattern: u64(offset)) }
    func i32(_ offset: Int) -> Int32 { Int32(bitPattern: u32(offset)) }
  }

  // MARK: - Checking the structure

  /// Whether every offset and count lies inside the file, every table slot names a record,
  /// every table has an empty slot (so that a lookup ends), and the sorted lists are sorted.
  private func isWellFormed() -> Bool {
    bytes.withUnsafeBytes { raw -> Bool in
      let reader = Reader(raw)
      let dataCount = raw.count - layout.dataStart
      func inData(_ offset: UInt32, _ count: UInt32) -> Bool { Int(offset) + Int(count) <= dataCount }
      for index in 0..<entryCount {
        let at = Size.header + index * Size.entry
        guard inData(reader.u32(at + EntryField.nameOffset), reader.u32(at + EntryField.nameCount)) else {
          return false
        }
        switch Kind(rawValue: reader.u32(at + EntryField.kind)) {
        case .entry:
          let first = Int(reader.u32(at + EntryField.firstDocument))
          guard first + Int(reader.u32(at + EntryField.documentCount)) <= documentCount,
            reader.u32(at + EntryField.createdNanoseconds) < 1_000_000_000
          else { return false }
        case .problem:
          guard inData(reader.u32(at + EntryField.reasonOffset), reader.u32(at + EntryField.reasonCount))
          else {
            return false
          }
        case nil: return false
        }
        guard reader.u32(at + EntryField.changedNanoseconds) < 1_000_000_000 else { return false }
      }
      for index in 0..<documentCount {
        let at = layout.documentsStart + index * Size.document
        let entry = Int(reader.u32(at + DocumentField.entry))
        guard inData(reader.u32(at + DocumentField.pathOffset), reader.u32(at + DocumentField.pathCount)),
          inData(reader.u32(at + DocumentField.handleOffset), reader.u32(at + DocumentField.handleCount)),
          reader.u32(at + DocumentField.recordedNanoseconds) < 1_000_000_000,
          entry < entryCount,
          reader.u32(Size.header + entry * Size.entry + EntryField.kind) == Kind.entry.rawValue,
          reader.u64(at + DocumentField.fingerprint)
            == reader.u64(Size.header + entry * Size.entry + EntryField.fingerprint)
        else { return false }
      }
      func sorted(_ start: Int, _ count: Int, _ value: (Int) -> UInt64) -> Bool {
        guard count > 1 else { return true }
        for index in 1..<count where value(start + (index - 1) * 8) >= value(start + index * 8) {
          return false
        }
        return true
      }
      guard sorted(layout.fingerprintsStart, layout.fingerprints, { Self.fingerprintValue(raw, at: $0) })
      else {
        return false
      }
      func validTable(_ start: Int, _ count: Int) -> Bool {
        guard count > 0 else { return true }
        guard count & (count - 1) == 0 else { return false }
        var empty = false
        for slot in 0..<count {
          let value = Int(reader.u32(start + slot * Size.slot))
          if value == 0 { empty = true } else if value > documentCount { return false }
        }
        return empty
      }
      return validTable(layout.pathSlotsStart, layout.pathSlots)
        && validTable(layout.identitySlotsStart, layout.identitySlots)
        && validTable(layout.inodeSlotsStart, layout.inodeSlots)
    }
  }

  // MARK: - Entries

  /// Runs `body` with the name of entry `index`, where it lies.
  func withName<Value>(ofEntry index: Int, _ body: (UnsafeRawBufferPointer) -> Value) -> Value {
    bytes.withUnsafeBytes { raw in
      let reader = Reader(raw)
      let at = Size.header + index * Size.entry
      let start = layout.dataStart + Int(reader.u32(at + EntryField.nameOffset))
      return body(
        UnsafeRawBufferPointer(rebasing: raw[start..<(start + Int(reader.u32(at + EntryField.nameCount)))]))
    }
  }

  /// The stamp entry `index` was read under.
  func stamp(ofEntry index: Int) -> EscrowCatalog.Stamp {
    bytes.withUnsafeBytes { raw in
      let reader = Reader(raw)
      let at = Size.header + index * Size.entry
      return EscrowCatalog.Stamp(
        inode: reader.u64(at + EntryField.inode), size: reader.u64(at + EntryField.size),
        changeTime: Timestamp(
          seconds: reader.i64(at + EntryField.changedSeconds),
          nanoseconds: reader.u32(at + EntryField.changedNanoseconds)))
    }
  }

  /// ``EscrowCatalog/Record/contentHash`` of entry `index`.
  func contentHash(ofEntry index: Int) -> UInt64 {
    bytes.withUnsafeBytes { Reader($0).u64(Size.header + index * Size.entry + EntryField.contentHash) }
  }

  /// Entry `index` as a record of its own (names, paths and handles copied out).
  func record(_ index: Int) -> EscrowCatalog.Record? {
    bytes.withUnsafeBytes { raw -> EscrowCatalog.Record? in
      let reader = Reader(raw)
      let at = Size.header + index * Size.entry
      let name = copy(raw, at + EntryField.nameOffset, at + EntryField.nameCount)
      let stamp = stamp(ofEntry: index)
      guard Kind(rawValue: reader.u32(at + EntryField.kind)) == .entry else {
        let reason = copy(raw, at + EntryField.reasonOffset, at + EntryField.reasonCount)
        return EscrowCatalog.Record(
          name: name, stamp: stamp, outcome: .problem(reason: String(decoding: reason, as: UTF8.self)),
          contentHash: reader.u64(at + EntryField.contentHash))
      }
      let first = Int(reader.u32(at + EntryField.firstDocument))
      var documents: [EscrowEntry.Document] = []
      for document in first..<(first + Int(reader.u32(at + EntryField.documentCount))) {
        let at = layout.documentsStart + document * Size.document
        guard
          let path = FilePath(bytes: copy(raw, at + DocumentField.pathOffset, at + DocumentField.pathCount))
        else {
          return nil
        }
        let flags = reader.u32(at + DocumentField.flags)
        documents.append(
          EscrowEntry.Document(
            path: path, inode: reader.u64(at + DocumentField.inode),
            fileHandle: flags & Flag.hasHandle == 0
              ? nil
              : KernelFileHandle(
                type: reader.i32(at + DocumentField.handleType),
                bytes: copy(raw, at + DocumentField.handleOffset, at + DocumentField.handleCount)),
            filesystemID: flags & Flag.hasFilesystem == 0 ? nil : reader.u64(at + DocumentField.filesystem),
            recorded: Timestamp(
              seconds: reader.i64(at + DocumentField.recordedSeconds),
              nanoseconds: reader.u32(at + DocumentField.recordedNanoseconds))))
      }
      return EscrowCatalog.Record(
        name: name, stamp: stamp,
        outcome: .entry(
          fingerprint: KeyFingerprint(
            loadedBigEndian: raw.loadUnaligned(fromByteOffset: at + EntryField.fingerprint, as: UInt64.self)),
          created: Timestamp(
            seconds: reader.i64(at + EntryField.createdSeconds),
            nanoseconds: reader.u32(at + EntryField.createdNanoseconds)),
          documents: documents),
        contentHash: reader.u64(at + EntryField.contentHash))
    }
  }

  /// A copy of the bytes of the data area whose offset and length are the 32-bit fields at
  /// `offsetField` and `countField` (checked to lie inside it when the file was read).
  private func copy(_ raw: UnsafeRawBufferPointer, _ offsetField: Int, _ countField: Int) -> [UInt8] {
    let reader = Reader(raw)
    let start = layout.dataStart + Int(reader.u32(offsetField))
    return Array(raw[start..<(start + Int(reader.u32(countField)))])
  }

  /// Every entry, as records of their own; `nil` when a recorded path holds a NUL.
  func records() -> [EscrowCatalog.Record]? {
    var records: [EscrowCatalog.Record] = []
    records.reserveCapacity(entryCount)
    for index in 0..<entryCount {
      guard let record = record(index) else { return nil }
      records.append(record)
    }
    return records
  }

  /// The entries that did not read, with why.
  func problems() -> [(name: [UInt8], reason: String)] {
    bytes.withUnsafeBytes { raw in
      let reader = Reader(raw)
      var problems: [(name: [UInt8], reason: String)] = []
      for index in 0..<entryCount {
        let at = Size.header + index * Size.entry
        guard reader.u32(at + EntryField.kind) == Kind.problem.rawValue else { continue }
        problems.append(
          (
            copy(raw, at + EntryField.nameOffset, at + EntryField.nameCount),
            String(
              decoding: copy(raw, at + EntryField.reasonOffset, at + EntryField.reasonCount), as: UTF8.self)
          ))
      }
      return problems
    }
  }

  // MARK: - Lookups

  /// Whether the catalog records no document.
  var isEmpty: Bool { documentCount == 0 }

  /// Whether an entry holds the key `fingerprint`.
  func holds(_ fingerprint: KeyFingerprint) -> Bool {
    let wanted = fingerprint.withUnsafeBytes { UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)) }
    return bytes.withUnsafeBytes { raw in
      Self.binarySearch(count: layout.fingerprints, for: wanted) {
        Self.fingerprintValue(raw, at: layout.fingerprintsStart + $0 * 8)
      }
    }
  }

  /// The fingerprint stored at `offset` (its eight bytes as printed) as a number, in the
  /// order the printed forms sort in.
  private static func fingerprintValue(_ raw: UnsafeRawBufferPointer, at offset: Int) -> UInt64 {
    UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
  }

  /// Whether a document record names the inode number `inode`.
  func recordsInode(_ inode: UInt64) -> Bool {
    guard layout.inodeSlots > 0 else { return false }
    return bytes.withUnsafeBytes { raw in
      let reader = Reader(raw)
      return slot(
        for: EscrowCatalogFile.inodeHash(inode), in: layout.inodeSlotsStart, count: layout.inodeSlots, reader
      ) {
        reader.u64(layout.documentsStart + $0 * Size.document + DocumentField.inode) == inode
      } != nil
    }
  }

  private static func binarySearch(count: Int, for wanted: UInt64, _ value: (Int) -> UInt64) -> Bool {
    var low = 0
    var high = count
    while low < high {
      let middle = (low + high) / 2
      let found = value(middle)
      if found == wanted { return true }
      if found < wanted { low = middle + 1 } else { high = middle }
    }
    return false
  }

  /// The key of the latest record of the document at `path` (its bytes, absolute).
  func fingerprint(ofPath path: UnsafeRawBufferPointer) -> KeyFingerprint? {
    guard layout.pathSlots > 0 else { return nil }
    return bytes.withUnsafeBytes { raw in
      let reader = Reader(raw)
      return lookUp(
        EscrowCatalogFile.pathHash(path), in: layout.pathSlotsStart, count: layout.pathSlots, reader
      ) {
        let at = layout.documentsStart + $0 * Size.document
        let count = Int(reader.u32(at + DocumentField.pathCount))
        guard count == path.count else { return false }
        let start = layout.dataStart + Int(reader.u32(at + DocumentField.pathOffset))
        return count == 0 || memcmp(raw.baseAddress! + start, path.baseAddress!, count) == 0
      }
    }
  }

  /// The key of the latest record of the file with this identity: its filesystem, and its
  /// file handle or, without one, its inode.
  func fingerprint(filesystem: UInt64, handle: KernelFileHandle?, inode: UInt64) -> KeyFingerprint? {
    guard layout.identitySlots > 0 else { return nil }
    return bytes.withUnsafeBytes { raw in
      let reader = Reader(raw)
      let hash = EscrowCatalogFile.identityHash(filesystem: filesystem, handle: handle, inode: inode)
      return lookUp(hash, in: layout.identitySlotsStart, count: layout.identitySlots, reader) {
        let at = layout.documentsStart + $0 * Size.document
        let flags = reader.u32(at + DocumentField.flags)
        let recordedFilesystem =
          flags & Flag.hasFilesystem == 0 ? 0 : reader.u64(at + DocumentField.filesystem)
        guard recordedFilesystem == filesystem else { return false }
        guard let handle else {
          return flags & Flag.hasHandle == 0 && reader.u64(at + DocumentField.inode) == inode
        }
        guard flags & Flag.hasHandle != 0, reader.i32(at + DocumentField.handleType) == handle.type,
          Int(reader.u32(at + DocumentField.handleCount)) == handle.bytes.count
        else { return false }
        let start = layout.dataStart + Int(reader.u32(at + DocumentField.handleOffset))
        return handle.bytes.withUnsafeBytes {
          $0.isEmpty || memcmp(raw.baseAddress! + start, $0.baseAddress!, $0.count) == 0
        }
      }
    }
  }

  /// The key of the first document, in the table at `start` from the slot `hash` picks on,
  /// for which `matches` holds; `nil` at the first empty slot.
  private func lookUp(
    _ hash: UInt64, in start: Int, count: Int, _ reader: Reader, matches: (Int) -> Bool
  ) -> KeyFingerprint? {
    guard let document = slot(for: hash, in: start, count: count, reader, matches: matches) else {
      return nil
    }
    return KeyFingerprint(
      loadedBigEndian: reader.raw.loadUnaligned(
        fromByteOffset: layout.documentsStart + document * Size.document + DocumentField.fingerprint,
        as: UInt64.self
      ))
  }

  /// The first document, in the table at `start` from the slot `hash` picks on, whose slot
  /// carries the hash's upper half and for which `matches` holds; `nil` at the first empty
  /// slot. A slot is the document's index plus one (zero when empty) and the upper half of
  /// its key's hash, so that a probe past another key rarely reads that key's record.
  private func slot(
    for hash: UInt64, in start: Int, count: Int, _ reader: Reader, matches: (Int) -> Bool
  ) -> Int? {
    let mask = count - 1
    let tag = UInt32(truncatingIfNeeded: hash >> 32)
    var slot = Int(truncatingIfNeeded: hash) & mask
    while true {
      let value = Int(reader.u32(start + slot * Size.slot))
      if value == 0 { return nil }
      if reader.u32(start + slot * Size.slot + 4) == tag, matches(value - 1) { return value - 1 }
      slot = (slot + 1) & mask
    }
  }

  /// The hash a path's slot is found by.
  static func pathHash(_ path: UnsafeRawBufferPointer) -> UInt64 { ByteHash.of(path) }

  /// The hash an inode number's slot is found by.
  static func inodeHash(_ inode: UInt64) -> UInt64 { ByteHash.of(0, 2, inode) }

  /// The hash an identity's slot is found by.
  static func identityHash(filesystem: UInt64, handle: KernelFileHandle?, inode: UInt64) -> UInt64 {
    guard let handle else { return ByteHash.of(filesystem, 0, inode) }
    let bytes = handle.bytes.withUnsafeBytes { ByteHash.of($0) }
    return ByteHash.of(filesystem, 1 << 32 | UInt64(UInt32(bitPattern: handle.type)), bytes)
  }
}
