import DocbmSystem

/// Turns the bookmarks a scan finds into the checker's evidence as they arrive, in bounded
/// memory: no record is kept once judged, identical records are verified and resolved
/// once, and the evidence kept for one document has a budget.
///
/// A document may hold the same bookmark thousands of times (one image placed on every
/// page); resolving it once is enough. Records are remembered with their outcome up to
/// ``memoBudget`` bytes of records; past it, each is judged on its own.
struct EvidenceCollector {
  /// The bytes of records remembered with their outcome.
  static let memoBudget = 1 << 20
  /// The bytes of evidence kept for one document (each bookmark's fixed part and the path
  /// it records): room for 10 000 bookmarks with paths of 700 bytes.
  static let evidenceBudget = 8 << 20
  /// What one bookmark's evidence costs besides its path.
  static let evidenceOverhead = 128

  private let path: FilePath
  /// The document's key, with its MAC schedule.
  private let documentKey: DocumentKeyCache.Entry?
  private let searchBudget: SearchBudget
  /// ``path`` made absolute, when the checker was given it.
  private let absolute: FilePath?
  /// The Documents portal document it is reached through, as the checker found it.
  private let portal: PortalDocument?
  /// Made at the first bookmark: it computes the document's folder.
  private var anchored: AnchoredDocument?
  /// What the document's full resolves share (one search area), made at the first.
  private var batch: ResolutionBatch?
  private let filesystem: FilesystemSearch?
  /// The folder the document was listed in, open.
  private let listedIn: FileDescriptor?
  /// ``listedIn`` when it is the anchored document's folder (`path` is that folder's normal
  /// path and the document's name): targets inside it are looked up from it. Set with
  /// ``anchored``.
  private var targetFolder: FileDescriptor?
  /// The first record judged, with its judgement, kept apart from ``memo``: most documents
  /// hold one bookmark (or one, many times), and need no table.
  private var first: (key: RecordKey, record: [UInt8], evidence: DocumentCheck.FoundEvidence)?
  /// One judged record per tag (``RecordKey``), with its judgement, for the records after
  /// the first.
  private var memo: [RecordKey: (record: [UInt8], evidence: DocumentCheck.FoundEvidence)] = [:]
  private var memoBytes = 0

  /// The evidence so far, in the order the bookmarks were found.
  private(set) var evidence: [DocumentCheck.FoundEvidence] = []
  /// The bytes of evidence kept, as counted against ``evidenceBudget``.
  private(set) var evidenceBytes = 0
  /// Whether a bookmark came after the budget was spent (it and later ones were dropped).
  private(set) var overBudgetAt: UInt64?
  /// How many bookmarks were judged from the memo rather than verified again.
  private(set) var memoHits = 0
  /// The escrow's key of a fingerprint, for a document without a key: each bookmark is
  /// counted against the key it names (``tally``). `nil` when bookmarks are not counted.
  private let escrowedKey: ((KeyFingerprint) -> DocumentKey?)?
  /// The keys ``escrowedKey`` gave for this document (`nil`: the escrow has none).
  private var escrowedKeys: [KeyFingerprint: DocumentKey?] = [:]
  /// The bookmarks counted against the escrowed keys they name, when counted.
  private(set) var tally: EscrowedKeyTally?

  /// - Parameters:
  ///   - absolute: `path` made absolute and normalized, when the caller knows it (the
  ///     working folder is then not asked for it).
  ///   - listedIn: the open folder a tree walk listed the document in (`path` is its path
  ///     with the document's name appended), or `nil`.
  ///   - escrowedKey: for a document without a key, the escrow's key of a fingerprint:
  ///     every bookmark found is then counted against the key it names (``tally``).
  ///   - filesystem: the walks of whole filesystems shared with the other documents of
  ///     the call (a tree check), or `nil` for the document's own.
  init(
    path: FilePath, absolute: FilePath? = nil, documentKey: DocumentKeyCache.Entry?,
    searchBudget: SearchBudget, portal: PortalDocument?, listedIn folder: FileDescriptor? = nil,
    escrowedKey: ((KeyFingerprint) -> DocumentKey?)? = nil, filesystem: FilesystemSearch? = nil
  ) {
    self.filesystem = filesystem
    self.path = path
    self.absolute = absolute
    self.documentKey = documentKey
    self.searchBudget = searchBudget
    self.portal = portal
    self.listedIn = folder
    self.escrowedKey = documentKey == nil ? escrowedKey : nil
    if self.escrowedKey != nil { tally = EscrowedKeyTally() }
  }

  /// Judges one bookmark found in the document.
  mutating func add(_ item: FoundBookmark) {
    // Counted against the escrowed key whatever the evidence's budget, as repair counts.
    if escrowedKey != nil { countAgainstEscrow(item) }
    guard overBudgetAt == nil else { return }
    let key = RecordKey(item.bookmark.bytes)
    let known: (record: [UInt8], evidence: DocumentCheck.FoundEvidence)? =
      if let first, first.key == key { (first.record, first.evidence) } else if memo.isEmpty { nil } else {
        memo[key]
      }
    if let known, RecordKey.sameRecord(known.record, item.bookmark.bytes) {
      memoHits += 1
      // The path's storage is shared with the remembered evidence: only the fixed part costs.
      keep(known.evidence.moved(to: item), pathBytes: 0)
      return
    }
    let judged = judge(item)
    keep(judged, pathBytes: judged.recordedTarget?.bytes.count ?? 0)
    // A tag already taken by another record keeps its first: one comparison per lookup.
    if known == nil, memoBytes + item.bookmark.bytes.count <= Self.memoBudget {
      if first == nil {
        first = (key, item.bookmark.bytes, judged)
      } else {
        memo[key] = (item.bookmark.bytes, judged)
      }
      memoBytes += item.bookmark.bytes.count
    }
  }

  /// Verifies the bookmark with the escrow's key of the fingerprint it names, when the
  /// escrow holds one, and counts the outcome.
  private mutating func countAgainstEscrow(_ item: FoundBookmark) {
    let fingerprint = item.bookmark.keyFingerprint
    let key: DocumentKey?
    if let known = escrowedKeys[fingerprint] {
      key = known
    } else {
      key = escrowedKey?(fingerprint)
      escrowedKeys[fingerprint] = key
    }
    guard let key else { return }
    tally?.count(fingerprint, verifies: BookmarkRecord.verify(item.bookmark.bytes, key: key))
  }

  private mutating func keep(_ item: DocumentCheck.FoundEvidence, pathBytes: Int) {
    let cost = Self.evidenceOverhead + pathBytes
    guard evidenceBytes + cost <= Self.evidenceBudget else {
      overBudgetAt = item.offset
      return
    }
    evidenceBytes += cost
    evidence.append(item)
  }

  /// Verifies the bookmark with the document's key and resolves it.
  private mutating func judge(_ item: FoundBookmark) -> DocumentCheck.FoundEvidence {
    // The recorded target, unverified: parsed here only when resolution did not.
    var recorded: FilePath? { item.bookmark.unverifiedAbsolutePath }
    let key = documentKey?.key.fingerprint
    guard let documentKey, let key, item.bookmark.keyFingerprint == key else {
      let paths = item.bookmark.unverifiedPaths
      return DocumentCheck.FoundEvidence(
        offset: item.offset, form: item.form, fingerprint: item.bookmark.keyFingerprint,
        recordedTarget: paths?.target, recordedDocument: paths?.document, verifies: false, resolves: false,
        problem: key == nil ? .keyMissing : .keyMismatch)
    }
    let anchored: AnchoredDocument
    if let made = self.anchored {
      anchored = made
    } else {
      anchored = AnchoredDocument(path: path, absolute: absolute, searchBudget: searchBudget)
      self.anchored = anchored
      if let listedIn, EvidenceCollector.isName(path, in: anchored.folder) { targetFolder = listedIn }
    }
    let attempt = UnmovedResolver.locate(
      item.bookmark, on: anchored, key: documentKey, portal: portal, folder: targetFolder)
    if let unmoved = attempt.found {
      return DocumentCheck.FoundEvidence(
        offset: item.offset, form: item.form, fingerprint: key, recordedTarget: unmoved.path,
        recordedDocument: nil, verifies: true, resolves: true, problem: nil)
    }
    let batch = self.batch ?? ResolutionBatch(for: anchored, portal: .some(portal), filesystem: filesystem)
    self.batch = batch
    do throws(DocbmError) {
      let resolution = try anchored.resolve(
        item.bookmark, key: documentKey.key, refreshing: false, portal: .some(portal),
        verified: attempt.verified,
        batch: batch)
      return DocumentCheck.FoundEvidence(
        offset: item.offset, form: item.form, fingerprint: key,
        recordedTarget: resolution.recorded.absolutePath, recordedDocument: nil, verifies: true,
        resolves: true,
        problem: nil)
    } catch {
      let verified = error.code != .tampered && error.code != .corrupt && error.code != .unsupportedVersion
      return DocumentCheck.FoundEvidence(
        offset: item.offset, form: item.form, fingerprint: key, recordedTarget: recorded,
        recordedDocument: nil, verifies: verified, resolves: false, problem: error.code)
    }
  }
}

extension EvidenceCollector {
  /// Whether `path` is `folder`, a slash and one name: the folder a walk listed the
  /// document in is then the anchored document's folder, byte for byte.
  static func isName(_ path: FilePath, in folder: FilePath) -> Bool {
    path.bytes.withUnsafeBytes { path in
      folder.bytes.withUnsafeBytes { folder in
        guard let rest = FilePath.restStart(of: path, below: folder) else { return false }
        return !ByteSearch.contains(UInt8(ascii: "/"), in: UnsafeRawBufferPointer(rebasing: path[rest...]))
      }
    }
  }
}

extension DocumentCheck.FoundEvidence {
  /// The same judgement for the same record found at another place.
  fileprivate func moved(to item: FoundBookmark) -> Self {
    Self(
      offset: item.offset, form: item.form, fingerprint: fingerprint, recordedTarget: recordedTarget,
      recordedDocument: recordedDocument, verifies: verifies, resolves: resolves, problem: problem)
  }
}
