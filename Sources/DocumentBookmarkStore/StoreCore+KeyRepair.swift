import DocbmSystem
import DocumentBookmarks

extension StoreCore {
  /// The store file as the document its bookmarks are anchored on, with its key: when the
  /// file lost its key while its records hold bookmarks (another program saved it without
  /// the key: an app's `.atomic` write, a copy, a backup restored), the key is put back
  /// first (``repairKey()``), so that no bookmark is made under a new key nobody could
  /// verify the old ones with, and no record is marked `keyMissing` for the store's fault.
  ///
  /// - Throws: `keyLost` when the key cannot be put back; `docbm` when the key cannot be
  ///   read.
  func anchor() throws(Failure) -> AnchoredDocument {
    try repairKey()
    return file.document
  }

  /// Puts the store file's key back when the file lost it while its records hold
  /// bookmarks; see ``BookmarkStore/keyRepairs()``.
  ///
  /// The store's folder is one only the user can add files to (a store elsewhere is not
  /// opened), so the file at the store's path was put there by the user's own programs:
  /// the key goes back on it even when the escrow never recorded this file (a copy, a
  /// store moved without its key), once the file is narrowed to its owner (mode 0600, as
  /// the store makes it), so that nobody else can read the key it gets.
  ///
  /// - Returns: what was done, or `nil` when the file has its key, is not there, or no
  ///   record holds a bookmark (the next bookmark then makes a key).
  /// - Throws: `keyLost` when there is no escrow, the escrow has no key the records name,
  ///   or repair refuses for another reason (its report's message says which); `docbm`
  ///   when the store cannot be read or the file's mode cannot be changed.
  @discardableResult
  package func repairKey() throws(Failure) -> StoreKeyRepair? {
    let path = file.path
    do {
      guard try file.document.keyFingerprint() == nil else { return nil }
    } catch  where error.code == .notFound {
      return nil
    } catch {
      throw .docbm(error)
    }
    let holdsBookmarks = try file.read().records.elements.contains { $0.bookmark != nil }
    guard holdsBookmarks else { return nil }
    guard let escrow = file.service.escrow else {
      throw .keyLost(
        path: path,
        reason: "the store was given no escrow, so no copy of its key exists")
    }
    let widened: UInt32?
    do {
      widened = try narrowToOwner(path)
    } catch {
      throw .docbm(error)
    }
    let report = DocumentRepairer(escrow: escrow, policy: .init(allowsUnrecordedDocuments: true)).repair(path)
    switch report.action {
    case .restored:
      let repair = StoreKeyRepair(report: report, widenedMode: widened)
      publish(repair)
      return repair
    case .nothingToDo:
      // Another process put the key back meanwhile, or the file holds no bookmark.
      return nil
    default:
      // The repair's own reason, without its advice: that is for a document, and a store
      // goes on with reanchoring instead.
      var reason = report.message
      if let advice = report.advice, reason.hasSuffix("; \(advice)") { reason.removeLast(advice.count + 2) }
      if reason.hasPrefix("refused: ") { reason.removeFirst("refused: ".count) }
      if report.refusal == .notEscrowed {
        reason +=
          "; if the store came from another machine or account, import that escrow here and the key goes back on the next call"
      }
      throw .keyLost(path: path, reason: reason)
    }
  }

  /// Narrows the store file at `path` to its owner when others may read it; the mode it
  /// had, when it was narrowed. A file of another user, or not a regular file, is left for
  /// repair to refuse.
  private func narrowToOwner(_ path: FilePath) throws(DocbmError) -> UInt32? {
    try mappingSystemErrors(.writeKey, path: path) { () throws(SystemCallError) -> UInt32? in
      let fd = try FileDescriptor.open(path, [.readOnly, .noFollow, .nonBlocking])
      defer { fd.close() }
      let status = try FileStatus.of(fd)
      guard status.kind == .regular, status.owner == ProcessCredentials.effectiveUser,
        status.permissions & 0o077 != 0
      else { return nil }
      try fd.changeMode(status.permissions & 0o700)
      return status.permissions & 0o7777
    }
  }

  /// Gives a store whose key is gone for good a new start: each record whose bookmark the
  /// store file's key cannot verify keeps its key, path, pin, times and metadata but loses
  /// its bookmark, and is bookmarked again at its last known path under the key the file
  /// gets now (a new one, escrowed). A record whose target is no longer at that path stays
  /// without a bookmark, `missing`.
  ///
  /// The key is put back instead when it can be (``repairKey()``): then nothing is lost.
  /// The escrow's record of the store file under its old key is forgotten, so that the
  /// file can get a new one.
  ///
  /// - Returns: the records that lost their bookmark, as they are now.
  package func reanchor() throws(Failure) -> [Record] {
    do {
      if try repairKey() != nil { return [] }
    } catch .keyLost {
      // Gone for good: start again below.
    }
    let document = file.document
    let current: KeyFingerprint?
    do {
      current = try document.keyFingerprint()
      if current == nil {
        _ = try file.service.escrow?.forgetRecords(at: file.path)
      }
    } catch {
      throw .docbm(error)
    }
    var cleared: [Record] = []
    try change { (contents: inout Contents, _: inout [Eviction]) throws(Failure) in
      cleared = []
      for index in contents.records.indices {
        guard let bookmark = contents.records[index].bookmark, bookmark.keyFingerprint != current else {
          continue
        }
        var record = contents.records[index]
        record.bookmark = nil
        record.identity = nil
        record.status = .unknown
        contents.records[index] = record
        cleared.append(record)
      }
    }
    guard !cleared.isEmpty else { return [] }
    _ = try refresh(cleared)
    return try records(withKeys: cleared.map(\.key))
  }
}
