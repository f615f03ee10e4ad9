extension EscrowCatalogFile {
  /// The file of `records`, in the order given (the order of their names), with its lookup
  /// tables: each path's and each identity's latest document record (a later record
  /// replaces an earlier one; of two made at the same time, the one later in the catalog
  /// wins), a document record of each inode number recorded, and the sorted fingerprints.
  ///
  /// - Returns: `nil` when the records do not fit the format's 32-bit counts and offsets
  ///   (more than 4 GiB of names and paths).
  static func encode(_ records: [EscrowCatalog.Record], stampedAt: Timestamp) -> [UInt8]? {
    var data: [UInt8] = []
    // Where each entry's name (and a problem's reason) lies in the data, and its first document.
    var placements: [(name: Int, reason: Int, firstDocument: Int)] = []
    placements.reserveCapacity(records.count)
    var documents: [(document: EscrowEntry.Document, entry: Int, path: Int, handle: Int)] = []
    var fingerprints: [UInt64] = []
    func append(_ bytes: [UInt8]) -> Int {
      let offset = data.count
      data += bytes
      return offset
    }
    for (index, record) in records.enumerated() {
      let name = append(record.name)
      switch record.outcome {
      case .entry(let fingerprint, _, let recorded):
        fingerprints.append(
          fingerprint.withUnsafeBytes { UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)) })
        placements.append((name, 0, documents.count))
        for document in recorded {
          let path = append(document.path.bytes)
          let handle = append(document.fileHandle?.bytes ?? [])
          documents.append((document, index, path, handle))
        }
      case .problem(let reason):
        placements.append((name, append(Array(reason.utf8)), 0))
      }
    }
    guard data.count <= Int(UInt32.max), documents.count < Int(UInt32.max), records.count <= Int(UInt32.max)
    else { return nil }

    // The latest record of each path and each identity.
    var latestOfPath: [FilePath: Int] = [:]
    var latestOfIdentity: [Identity: Int] = [:]
    latestOfPath.reserveCapacity(documents.count)
    latestOfIdentity.reserveCapacity(documents.count)
    var firstOfInode: [UInt64: Int] = [:]
    firstOfInode.reserveCapacity(documents.count)
    for (index, item) in documents.enumerated() {
      let recorded = item.document.recorded
      if latestOfPath[item.document.path].map({ documents[$0].document.recorded <= recorded }) ?? true {
        latestOfPath[item.document.path] = index
      }
      let identity = Identity(item.document)
      if latestOfIdentity[identity].map({ documents[$0].document.recorded <= recorded }) ?? true {
        latestOfIdentity[identity] = index
      }
      if firstOfInode[item.document.inode] == nil { firstOfInode[item.document.inode] = index }
    }
    let pathSlots = slotTable(
      latestOfPath.values.sorted(),
      hash: { index in documents[index].document.path.bytes.withUnsafeBytes { pathHash($0) } })
    let identitySlots = slotTable(
      latestOfIdentity.values.sorted(),
      hash: { index in
        let document = documents[index].document
        return identityHash(
          filesystem: document.filesystemID ?? 0, handle: document.fileHandle, inode: document.inode)
      })
    let sortedFingerprints = Array(Set(fingerprints)).sorted()
    let inodeSlots = slotTable(
      firstOfInode.values.sorted(), hash: { index in inodeHash(documents[index].document.inode) })

    let layout = Layout(
      entries: records.count, documents: documents.count, pathSlots: pathSlots.count,
      identitySlots: identitySlots.count, inodeSlots: inodeSlots.count,
      fingerprints: sortedFingerprints.count,
      data: data.count)
    var file = [UInt8](repeating: 0, count: layout.total)
    file.withUnsafeMutableBytes { raw in
      let writer = Writer(raw: raw)
      magic.withUnsafeBytes { raw.copyMemory(from: $0) }
      writer.u32(Header.entryCount, records.count)
      writer.u32(Header.documentCount, documents.count)
      writer.u32(Header.pathSlotCount, pathSlots.count)
      writer.u32(Header.identitySlotCount, identitySlots.count)
      writer.u32(Header.inodeSlotCount, inodeSlots.count)
      writer.u32(Header.fingerprintCount, sortedFingerprints.count)
      writer.u64(Header.stampedSeconds, UInt64(bitPattern: stampedAt.seconds))
      writer.u32(Header.stampedNanoseconds, Int(stampedAt.nanoseconds))
      writer.u32(Header.dataCount, data.count)

      for (index, record) in records.enumerated() {
        let at = layout.entriesStart + index * Size.entry
        let placement = placements[index]
        writer.u32(at + EntryField.nameOffset, placement.name)
        writer.u32(at + EntryField.nameCount, record.name.count)
        writer.u64(at + EntryField.inode, record.stamp.inode)
        writer.u64(at + EntryField.size, record.stamp.size)
        writer.u64(at + EntryField.changedSeconds, UInt64(bitPattern: record.stamp.changeTime.seconds))
        writer.u32(at + EntryField.changedNanoseconds, Int(record.stamp.changeTime.nanoseconds))
        writer.u64(at + EntryField.contentHash, record.contentHash)
        switch record.outcome {
        case .entry(let fingerprint, let created, let recorded):
          writer.u32(at + EntryField.kind, Int(Kind.entry.rawValue))
          fingerprint.withUnsafeBytes {
            UnsafeMutableRawBufferPointer(rebasing: raw[(at + EntryField.fingerprint)...]).copyMemory(
              from: $0)
          }
          writer.u64(at + EntryField.createdSeconds, UInt64(bitPattern: created.seconds))
          writer.u32(at + EntryField.createdNanoseconds, Int(created.nanoseconds))
          writer.u32(at + EntryField.firstDocument, placement.firstDocument)
          writer.u32(at + EntryField.documentCount, recorded.count)
        case .problem(let reason):
          writer.u32(at + EntryField.kind, Int(Kind.problem.rawValue))
          writer.u32(at + EntryField.reasonOffset, placement.reason)
          writer.u32(at + EntryField.reasonCount, reason.utf8.count)
        }
      }
      for (index, item) in documents.enumerated() {
        let at = layout.documentsStart + index * Size.document
        let document = item.document
        writer.u32(at + DocumentField.pathOffset, item.path)
        writer.u32(at + DocumentField.pathCount, document.path.bytes.count)
        writer.u64(at + DocumentField.inode, document.inode)
        writer.u64(at + DocumentField.filesystem, document.filesystemID ?? 0)
        var flags: UInt32 = 0
        if document.filesystemID != nil { flags |= Flag.hasFilesystem }
        if let handle = document.fileHandle {
          flags |= Flag.hasHandle
          writer.u32(at + DocumentField.handleType, Int(UInt32(bitPattern: handle.type)))
          writer.u32(at + DocumentField.handleOffset, item.handle)
          writer.u32(at + DocumentField.handleCount, handle.bytes.count)
        } else {
          writer.u32(at + DocumentField.handleOffset, item.handle)
        }
        writer.u32(at + DocumentField.flags, Int(flags))
        writer.u64(at + DocumentField.recordedSeconds, UInt64(bitPattern: document.recorded.seconds))
        writer.u32(at + DocumentField.recordedNanoseconds, Int(document.recorded.nanoseconds))
        writer.u32(at + DocumentField.entry, item.entry)
        if case .entry(let fingerprint, _, _) = records[item.entry].outcome {
          fingerprint.withUnsafeBytes {
            UnsafeMutableRawBufferPointer(rebasing: raw[(at + DocumentField.fingerprint)...]).copyMemory(
              from: $0)
          }
        }
      }
      for (index, value) in sortedFingerprints.enumerated() {
        withUnsafeBytes(of: value.bigEndian) {
          UnsafeMutableRawBufferPointer(rebasing: raw[(layout.fingerprintsStart + index * 8)...]).copyMemory(
            from: $0)
        }
      }
      for (start, slots) in [
        (layout.pathSlotsStart, pathSlots), (layout.identitySlotsStart, identitySlots),
        (layout.inodeSlotsStart, inodeSlots),
      ] {
        for (index, slot) in slots.enumerated() {
          writer.u32(start + index * Size.slot, Int(slot.document))
          writer.u32(start + index * Size.slot + 4, Int(slot.tag))
        }
      }
      data.withUnsafeBytes {
        UnsafeMutableRawBufferPointer(rebasing: raw[layout.dataStart...]).copyMemory(from: $0)
      }
      writer.u64(
        Header.checksum,
        ByteHash.of(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(raw)[Size.header...])))
    }
    return file
  }

  /// An open-addressing table of `documents`, at least twice as many slots as documents, a
  /// power of two (none when there are no documents): each slot the document's index plus
  /// one (zero when empty) and the upper half of its key's hash.
  private static func slotTable(_ documents: [Int], hash: (Int) -> UInt64) -> [(
    document: UInt32, tag: UInt32
  )] {
    guard !documents.isEmpty else { return [] }
    var count = 2
    while count < documents.count * 2 { count <<= 1 }
    var slots = [(document: UInt32, tag: UInt32)](repeating: (0, 0), count: count)
    let mask = count - 1
    for document in documents {
      let hash = hash(document)
      var slot = Int(truncatingIfNeeded: hash) & mask
      while slots[slot].document != 0 { slot = (slot + 1) & mask }
      slots[slot] = (UInt32(document + 1), UInt32(truncatingIfNeeded: hash >> 32))
    }
    return slots
  }

  /// A document's identity as the identity table compares it: its filesystem (zero when
  /// unknown), and its file handle or, without one, its inode.
  private struct Identity: Hashable {
    let filesystem: UInt64
    let handleType: Int32?
    let handle: [UInt8]
    let inode: UInt64?

    init(_ document: EscrowEntry.Document) {
      filesystem = document.filesystemID ?? 0
      handleType = document.fileHandle?.type
      handle = document.fileHandle?.bytes ?? []
      inode = document.fileHandle == nil ? document.inode : nil
    }
  }

  /// Stores little-endian numbers at byte offsets of a buffer.
  private struct Writer {
    let raw: UnsafeMutableRawBufferPointer

    func u32(_ offset: Int, _ value: Int) {
      raw.storeBytes(
        of: UInt32(truncatingIfNeeded: value).littleEndian, toByteOffset: offset, as: UInt32.self)
    }
    func u64(_ offset: Int, _ value: UInt64) {
      raw.storeBytes(of: value.littleEndian, toByteOffset: offset, as: UInt64.self)
    }
  }
}
