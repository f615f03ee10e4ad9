import DocbmSystem
package import DocumentBookmarks
import FoundationEssentials
import Synchronization

extension StoreCore {
  /// What resolving one record found, before it is committed.
  struct Outcome: Sendable {
    let key: Key
    /// The bookmark that was resolved (`nil`: a path-only record): a commit applies only
    /// while the record still holds it, so a record re-added or forgotten meanwhile is left alone.
    let resolved: Bookmark?
    let result: Result<Found, DocbmError>

    enum Found: Sendable {
      case resolution(Resolution)
      case firstBookmark(Bookmark, BookmarkContents)
    }
  }

  /// Resolves the record with `key` and commits what was found; see ``BookmarkStore/resolve(_:)``.
  package func resolve(_ key: Key) throws(Failure) -> ResolvedRecord<Key, Metadata> {
    try loadIfNeeded()
    guard let record = snapshot[key] else { throw .notFound(key) }
    return try commit(find(record, on: try anchor()))
  }

  /// Commits one resolution's outcome, under the lock, to what the file holds now.
  ///
  /// - Throws: `notFound` when the record was forgotten meanwhile (here or by another
  ///   process): nothing is written, so the forget stays; `docbm` with the resolution's
  ///   failure (committed as the record's status first).
  func commit(_ outcome: Outcome) throws(Failure) -> ResolvedRecord<Key, Metadata> {
    let key = outcome.key
    var committed: Record?
    try change { (contents: inout Contents, evicted: inout [Eviction]) throws(Failure) in
      guard let index = contents.index(of: key) else { throw .notFound(key) }
      let current = contents.records[index]
      switch apply(outcome, at: index, to: &contents) {
      case .kept(let record): committed = record
      case .unchanged: committed = current
      case .dropped(let code):
        evicted.append(StoreEviction(record: contents.records.remove(at: index), reason: .failure(code)))
        committed = current
      }
    }
    switch outcome.result {
    case .failure(let error):
      throw .docbm(error)
    case .success(.resolution(let resolution)):
      return ResolvedRecord(record: committed!, path: resolution.path, resolution: resolution)
    case .success(.firstBookmark(_, let contents)):
      return ResolvedRecord(record: committed!, path: contents.absolutePath, resolution: nil)
    }
  }

  /// Resolves every record (or only those not known to be available), several at a time
  /// on worker threads, and commits all the results in one save. Returns each failure.
  package func refreshStatuses(includingAvailable: Bool = true) throws(Failure) -> [Key: DocbmError] {
    // The records as the file holds them now (a read transaction sees one version); the
    // commit applies to what it holds then.
    let list = try file.read().records
    let all = list.elements
    let indices =
      includingAvailable ? Array(all.indices) : all.indices.filter { all[$0].status != .available }
    return try refresh(includingAvailable ? all : indices.map { all[$0] }, readFrom: (list, indices))
  }

  /// Resolves `records` several at a time and commits the results in one save; `read`,
  /// when given, is the list they were read from and the position of each in it.
  func refresh(_ records: [Record], readFrom read: ReadPositions? = nil) throws(Failure) -> [Key: DocbmError]
  {
    guard !records.isEmpty else { return [:] }
    // In chunks, one per core, each resolved as one batch (its searches share the folders
    // they list), on a thread of its own but the last, which this thread resolves; the
    // outcomes are gathered in the records' order.
    let chunks = min(records.count, Processors.usable)
    let document = try anchor()
    let ranges = (0..<chunks).map { (records.count * $0 / chunks)..<(records.count * ($0 + 1) / chunks) }
    var found: [Outcome] = []
    found.reserveCapacity(records.count)
    if chunks > 1 {
      let work = OrderedWork<Range<Int>, [Outcome]>(
        workers: chunks, window: chunks, named: "docbm-refresh"
      ) {
        [self] range in find(records[range], on: document)
      }
      work.submit(ranges.dropLast()) { found += $0 }
      let last = find(records[ranges[chunks - 1]], on: document)
      work.finish { found += $0 }
      found += last
    } else {
      found = find(records[...], on: document)
    }
    try commit(found, readFrom: read)
    var failures: [Key: DocbmError] = [:]
    for outcome in found {
      if case .failure(let error) = outcome.result { failures[outcome.key] = error }
    }
    return failures
  }

  /// Where a batch's records were read: the list, and the position of each record in it.
  typealias ReadPositions = (list: StoreRecordList<Key, Metadata>, indices: [Int])

  /// Commits many outcomes in one save, each to its record as the file holds it now;
  /// `read`, when given, is where their records were read (``ReadPositions``): while the
  /// store is still that version, each outcome goes to the position its record was read at.
  func commit(_ found: [Outcome], readFrom read: ReadPositions? = nil) throws(Failure) {
    try change { (contents: inout Contents, evicted: inout [Eviction]) throws(Failure) in
      // Each record is where it was read, or else found through one table of the store's
      // keys; records dropped are removed at the end, so that positions hold meanwhile.
      let unchangedSinceRead = read.map { contents.records.isSameVersion(as: $0.list) } ?? false
      let positions =
        unchangedSinceRead
        ? [:]
        : Dictionary(
          contents.records.indices.map { (contents.records[$0].key, $0) },
          uniquingKeysWith: { first, _ in first })
      var dropped: [(index: Int, code: DocbmError.Code)] = []
      for (number, outcome) in found.enumerated() {
        guard let index = unchangedSinceRead ? read?.indices[number] : positions[outcome.key] else {
          continue
        }
        if case .dropped(let code) = apply(outcome, at: index, to: &contents) {
          dropped.append((index, code))
        }
      }
      for (index, code) in dropped.sorted(by: { $0.index > $1.index }) {
        evicted.append(StoreEviction(record: contents.records.remove(at: index), reason: .failure(code)))
      }
    }
  }

  /// Relinks the records whose targets lay under `from` (``AnchoredDocument/relink(_:from:to:)``
  /// against the store file) and commits the relinked ones in one save; the relinks of the
  /// records under `from`, by key.
  package func relink(from: FilePath, to: FilePath) throws(Failure) -> [Key: Relink] {
    let records = try file.read().records.elements.filter { $0.bookmark != nil }
    let relinks = try anchor().relink(records.compactMap(\.bookmark), from: from, to: to)
    var outcomes: [Outcome] = []
    var results: [Key: Relink] = [:]
    for (record, relink) in zip(records, relinks) where relink.outcome != .notUnderSource {
      results[record.key] = relink
      if case .relinked(let resolution) = relink.outcome {
        outcomes.append(
          Outcome(key: record.key, resolved: record.bookmark, result: .success(.resolution(resolution))))
      }
    }
    if !outcomes.isEmpty { try commit(outcomes) }
    return results
  }

  /// Resolves `record`'s bookmark against the store file, or makes the first bookmark of a
  /// path-only record. No lock is held: resolution may search, and other changes go on.
  func find(_ record: Record, on document: AnchoredDocument) -> Outcome {
    resolutions.add(1, ordering: .relaxed)
    guard let bookmark = record.bookmark else {
      do throws(DocbmError) {
        let made = try document.makeBookmark(to: record.lastKnownPath)
        return Outcome(
          key: record.key, resolved: nil, result: .success(.firstBookmark(made, try made.decodeUnverified())))
      } catch {
        return Outcome(key: record.key, resolved: nil, result: .failure(pathOnlyFailure(error, record)))
      }
    }
    do throws(DocbmError) {
      return Outcome(
        key: record.key, resolved: bookmark, result: .success(.resolution(try document.resolve(bookmark))))
    } catch {
      return Outcome(key: record.key, resolved: bookmark, result: .failure(error))
    }
  }

  /// Resolves the bookmarks of `records` in one batch
  /// (``AnchoredDocument/resolve(_:)-([Bookmark])``), and makes the first bookmark of each
  /// path-only record; the outcomes in the records' order.
  func find(_ records: ArraySlice<Record>, on document: AnchoredDocument) -> [Outcome] {
    var resolved = document.resolve(records.compactMap(\.bookmark))[...]
    return records.map { record in
      guard let bookmark = record.bookmark, let result = resolved.popFirst() else {
        return find(record, on: document)
      }
      resolutions.add(1, ordering: .relaxed)
      return Outcome(key: record.key, resolved: bookmark, result: result.map { .resolution($0) })
    }
  }

  /// A path-only record's path could not be bookmarked. A path that does not exist is
  /// `missing`, unless the filesystem it was on when added is no longer mounted where it
  /// was (`volumeUnavailable`: it may come back).
  private func pathOnlyFailure(_ error: DocbmError, _ record: Record) -> DocbmError {
    guard error.code == .notFound else { return error }
    if let recorded = record.volume, let mountPoint = recorded.mountPoint, let fsid = recorded.filesystemID,
      !mountPoint.isRoot
    {
      let now = Self.volumeHint(near: record.lastKnownPath)
      if now?.filesystemID != fsid {
        return DocbmError(
          .volumeUnavailable, path: record.lastKnownPath,
          message: "the filesystem of \(record.lastKnownPath) is not mounted at \(mountPoint)",
          lastKnownPath: record.lastKnownPath)
      }
    }
    return DocbmError(
      .missing, path: record.lastKnownPath, message: "\(record.lastKnownPath) does not exist",
      lastKnownPath: record.lastKnownPath)
  }

  /// What committing an outcome did to its record.
  enum Disposition {
    /// The record changed, to this.
    case kept(Record)
    /// Nothing changed (the record moved on meanwhile, or the failure repeats the stored one).
    case unchanged
    /// The policy drops the record for this failure; the caller removes it.
    case dropped(DocbmError.Code)
  }

  /// Commits `outcome` to the record at `index`: status, path, refreshed or first
  /// bookmark. A record that no longer holds the bookmark resolved (re-added meanwhile) is
  /// left alone; a failure that repeats the stored one changes nothing, so nothing is
  /// written; a failure the policy drops is reported for the caller to remove.
  func apply(_ outcome: Outcome, at index: Int, to contents: inout Contents) -> Disposition {
    guard contents.records[index].bookmark == outcome.resolved else { return .unchanged }
    // The common case of a refresh, found where it was: nothing to change, nothing to copy.
    if case .success(.resolution(let resolution)) = outcome.result, resolution.refreshed == nil,
      contents.records[index].status == .available, contents.records[index].lastKnownPath == resolution.path
    {
      return .unchanged
    }
    var record = contents.records[index]
    switch outcome.result {
    case .success(.resolution(let resolution)):
      record.status = .available
      record.lastKnownPath = resolution.path
      // This version signed the refreshed bookmark, so it decodes; were it not, the old one stays.
      if let refreshed = resolution.refreshed, let fields = try? refreshed.decodeUnverified() {
        record.bookmark = refreshed
        record.identity = fields.identity
        record.volume = fields.volume
        record.refreshedAt = clock()
      }
    case .success(.firstBookmark(let bookmark, let fields)):
      record.bookmark = bookmark
      record.identity = fields.identity
      record.volume = fields.volume
      record.lastKnownPath = fields.absolutePath
      record.status = .available
    case .failure(let error):
      if policy.failureHandling.drops(error.code) { return .dropped(error.code) }
      if record.status.failure == error.code { return .unchanged }
      record.status = .unavailable(error.code, since: clock())
    }
    if record == contents.records[index] { return .unchanged }
    contents.records[index] = record
    return .kept(record)
  }
}
