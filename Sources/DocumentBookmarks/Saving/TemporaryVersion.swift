import DocbmSystem

/// Where a save writes the new version: a numbered slot beside the document (so the final
/// rename never crosses filesystems, and no extra folder has to be made and flushed).
///
/// Slot `n` of the document `board.json` is the entry `.board.json.docbm-save-n.json` (the
/// document's extension kept, so that writers which look at it keep working). A save
/// *claims* the lowest free slot by creating that entry with `O_CREAT | O_EXCL` and locks
/// it with `flock` at once, until the end of the save, so that no other save takes it:
///
/// - A save that writes the new version itself (a `Data` save) writes into the claim: the
///   claim is the new version.
/// - A save whose writer is handed a URL hands the writer the name
///   `.board.json.docbm-save-n-new-<16 random hex digits>.json`, where nothing exists, and
///   writes that random part into the claim: the writer creates the file (or folder), so
///   that a writer that writes nothing is told apart from one that writes an empty document.
///   The name a writer writes through is never predictable, so that nobody who may write
///   the folder can plant a link there for the writer to follow.
///
/// A save that crashed leaves its slot behind, unlocked. Leftovers are found without
/// listing the folder: a save that finds its slot taken looks at what holds it, and after
/// claiming one it looks at the next slot too, until the first free one (usually one
/// `statx` that finds nothing). A slot that nobody holds locked and that has not been
/// modified for ``sweepAge`` seconds is a leftover, and is removed (a claim is locked right
/// after it is created, so the age only covers that instant). Only when a save has
/// removed a leftover, evidence that saves crashed here, does it list the folder, for the
/// leftovers of slots further on and of earlier versions of docbm, which used random names
/// (`.board.json.docbm-save-XXXXXXXX.json`).
///
/// A failed save removes what it made. Where the filesystem refuses even that (EIO, a FUSE
/// server that has gone), it disarms the entry instead (the key taken off, the contents cut
/// to nothing, the times set to 1970) and says in its error which entry is left, so that no
/// file but the document holds the key and the next save beside the document sweeps it.
///
/// Slot names are predictable, but a claim is made with `O_EXCL` and never followed, so an
/// entry planted at one only takes the slot: after ``probeLimit`` slots held by others, a
/// save claims a slot at a random number instead, so that planted entries can neither stop
/// saves nor make them probe without end. The writer's own name has a random part (above).
/// The save opens what the writer made without following links, and refuses anything but
/// a regular file or a folder.
///
/// A save is not a ``NewFile`` (how the escrow and its exports make their files): a writer
/// handed a URL makes the new version itself, perhaps a folder; saves of several processes
/// and users meet beside one document, so a slot is locked rather than marked with a
/// process ID; and a save's leftovers are found without listing the folder.
package final class TemporaryVersion {
  package static let marker = Array(".docbm-save-".utf8)
  static let writerMark = Array("-new".utf8)
  /// How long an unlocked leftover must have stayed unmodified before a sweep removes it.
  static let sweepAge: Int64 = 600
  /// More slots than this in use at once is not a save docbm makes.
  static let slotLimit = 4096
  /// Slots tried in order before a random one: more held at once means planted entries.
  static let probeLimit = 16
  /// Random slots are drawn below this (the digits of a slot number are at most seven).
  static let randomSlotRange = 1_000_000
  /// The length, in hex digits, of the random part of a writer's name.
  static let tokenLength = 16
  /// The length of the random part of the names earlier versions used.
  static let legacySuffixLength = 8

  let folder: FileDescriptor
  /// The path of ``folder``.
  let folderPath: FilePath
  /// The new version's entry in ``folder``.
  let name: FilePath
  /// The full path handed to the writer.
  let path: FilePath
  /// The claimed slot, locked until the save ends. Open for writing when it is the new
  /// version itself (``claimIsVersion``).
  let claim: FileDescriptor
  let claimName: FilePath
  private var isOpen = true

  var claimIsVersion: Bool { claimName == name }

  private init(
    folder: FileDescriptor, folderPath: FilePath, name: FilePath, path: FilePath, claim: FileDescriptor,
    claimName: FilePath
  ) {
    self.folder = folder
    self.folderPath = folderPath
    self.name = name
    self.path = path
    self.claim = claim
    self.claimName = claimName
  }

  /// The fixed start of the temporary names of the document `documentName`.
  static func prefix(for documentName: [UInt8]) -> [UInt8] {
    // Whole names stay within NAME_MAX (255): 1 + 200 + 12 + 4 digits + 4 + an extension of ≤ 16.
    [UInt8(ascii: ".")] + documentName.prefix(200) + marker
  }

  /// `.json` for `board.json`, so that writers which look at the extension keep working.
  static func extensionSuffix(of documentName: [UInt8]) -> [UInt8] {
    guard let dot = documentName.lastIndex(of: UInt8(ascii: ".")), dot > documentName.startIndex,
      documentName.count - dot <= 16
    else { return [] }
    return Array(documentName[dot...])
  }

  /// The claim of slot `slot`: `.board.json.docbm-save-3.json`.
  static func slotName(_ slot: Int, for documentName: [UInt8]) -> [UInt8] {
    prefix(for: documentName) + Array(String(slot).utf8) + extensionSuffix(of: documentName)
  }

  /// Where a writer handed a URL writes in slot `slot`:
  /// `.board.json.docbm-save-3-new-<token>.json`.
  static func writerName(_ slot: Int, token: [UInt8], for documentName: [UInt8]) -> [UInt8] {
    prefix(for: documentName) + Array(String(slot).utf8) + writerMark + [UInt8(ascii: "-")] + token
      + extensionSuffix(of: documentName)
  }

  /// A new random part for a writer's name: ``tokenLength`` lowercase hex digits.
  static func newToken() -> [UInt8] {
    Array(Hex.encode(Sodium.randomBytes(tokenLength / 2)).utf8)
  }

  /// Whether `bytes` are a token as ``newToken()`` makes them.
  static func isToken(_ bytes: some Collection<UInt8>) -> Bool {
    bytes.count == tokenLength
      && bytes.allSatisfy {
        ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9"))
          || ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "f"))
      }
  }

  /// Claims the lowest free slot beside the document, sweeping the leftovers it meets.
  /// With `writesItself`, the claim is the new version, open for writing (mode 0600 while
  /// it is written); otherwise the writer gets a name of its own in the slot.
  ///
  /// - Throws: ``SystemCallError`` from `openat` (EACCES, EROFS, ENOSPC, EPERM for an
  ///   immutable folder, …): the folder cannot take a new version, before anything is written.
  static func claim(
    in folder: FileDescriptor, folderPath: FilePath, for documentName: [UInt8], writesItself: Bool,
    now: Timestamp = .now
  ) throws(SystemCallError) -> TemporaryVersion {
    var slot = 0
    var tries = 0
    var removedLeftover = false
    while true {
      let claimName = FilePath(uncheckedBytes: slotName(slot, for: documentName))
      let claim: FileDescriptor
      do {
        claim = try FileDescriptor.open(
          claimName, [.writeOnly, .create, .exclusive, .noFollow], permissions: 0o600, relativeTo: folder)
      } catch  where error.errno == .fileExists && tries < slotLimit {
        tries += 1
        switch sweepSlot(slot, in: folder, for: documentName, now: now) {
        case .removed: removedLeftover = true
        case .absent: break
        case .kept:
          // Many slots held at once: planted entries, not saves. Go where none can wait.
          slot = tries < probeLimit ? slot + 1 : Int.random(in: slotLimit..<randomSlotRange)
        }
        continue
      }
      do throws(SystemCallError) {
        _ = try claim.lockExclusively(wait: true)
      } catch  where error.errno == .notImplemented || error.errno == .notSupported {
        // A filesystem without locks (the Documents portal's FUSE mount): the claim, made
        // with O_EXCL, is still this save's; sweeps there cannot lock a slot, so they
        // remove none, this one included.
      } catch {
        abandon(claim, claimName, in: folder)
        throw error
      }
      // Leftovers in the slots after this one (a save that crashed while another ran).
      var next = slot + 1
      while next <= min(slot + probeLimit, slotLimit) {
        let outcome = sweepSlot(next, in: folder, for: documentName, now: now)
        if outcome == .absent { break }
        if outcome == .removed { removedLeftover = true }
        next += 1
      }
      if removedLeftover {
        sweepByListing(in: folder, for: documentName, now: now)
      }
      var name = claimName
      if !writesItself {
        // The writer's random part, kept in the claim so that a sweep finds the writer's
        // entry if this save crashes.
        let token = newToken()
        do throws(SystemCallError) {
          try claim.writeAll(token)
        } catch {
          abandon(claim, claimName, in: folder)
          throw error
        }
        name = FilePath(uncheckedBytes: writerName(slot, token: token, for: documentName))
      }
      return TemporaryVersion(
        folder: folder, folderPath: folderPath, name: name, path: folderPath.appending(name.bytes),
        claim: claim, claimName: claimName
      )
    }
  }

  /// Removes a claim the save could not go on with; where the removal fails, dates it 1970
  /// (it holds no key, at most part of a writer's random name), so that the next save
  /// beside the document sweeps it at once.
  private static func abandon(_ claim: FileDescriptor, _ claimName: FilePath, in folder: FileDescriptor) {
    // Best effort, after the failure the save reports: a claim left behind is swept.
    if (try? folder.removeEntry(claimName, isDirectory: false)) == nil { try? claim.setTimesToEpoch() }
    claim.close()
  }

  enum SlotOutcome { case absent, removed, kept }

  /// Looks at slot `slot`: nothing there, a leftover (removed now), or a live or recent save's.
  static func sweepSlot(_ slot: Int, in folder: FileDescriptor, for documentName: [UInt8], now: Timestamp)
    -> SlotOutcome
  {
    let claimName = FilePath(uncheckedBytes: slotName(slot, for: documentName))
    let status: FileStatus
    do {
      status = try FileStatus.of(claimName, relativeTo: folder, followSymlinks: false)
    } catch {
      return error.errno == .noSuchFile ? .absent : .kept
    }
    // A sweep removes only what it proves abandoned: a slot it cannot open or lock is kept.
    guard status.kind == .regular, now.seconds - status.modificationTime.seconds >= sweepAge,
      let fd = try? FileDescriptor.open(claimName, [.readOnly, .noFollow, .nonBlocking], relativeTo: folder)
    else { return .kept }
    defer { fd.close() }
    guard (try? fd.lockExclusively(wait: false)) == true else { return .kept }  // kept, as above
    // Held locked while both entries go, so that no save claims the slot in between. The
    // claim of a writer's save holds the random part of the writer's name.
    do throws(SystemCallError) {
      // A token that cannot be read leaves the writer's entry to the sweep by listing,
      // which removes a writer's entry whose claim is gone.
      if status.size == UInt64(tokenLength), let token = try? fd.readWhole(limit: tokenLength), isToken(token)
      {
        try folder.removeTree(FilePath(uncheckedBytes: writerName(slot, token: token, for: documentName)))
      }
      try folder.removeEntry(claimName, isDirectory: false)
    } catch {
      return .kept
    }
    return .removed
  }

  /// What a failed save could not remove.
  struct Leftover {
    /// The entry left beside the document.
    let path: FilePath
    /// Why it could not be removed.
    let failure: SystemCallError
    /// Whether its key was taken off, and a file's contents cut to nothing.
    let disarmed: Bool
  }

  /// Removes whatever the save made: the new version's entry and the claim.
  ///
  /// Where the filesystem refuses the removal (EIO, a FUSE server that has gone, EPERM),
  /// the entry is disarmed instead: its key is taken off, a file is cut to no bytes, and
  /// its times (and the claim's) are set to 1970, so that it holds neither the new
  /// contents nor the key, and the next save beside the document sweeps it at once. The
  /// claim is then kept, so that the sweep finds a writer's entry through it.
  ///
  /// - Returns: what is left, or `nil` when nothing is.
  func discard() -> Leftover? {
    defer { close() }
    do {
      try folder.removeTree(name)
    } catch {
      return Leftover(path: path, failure: error, disarmed: disarm())
    }
    guard !claimIsVersion else { return nil }
    do {
      try folder.removeEntry(claimName, isDirectory: false)
    } catch  where error.errno == .noSuchFile {
    } catch {
      // The claim holds no key, only the random part of the writer's name.
      try? claim.setTimesToEpoch()
      return Leftover(path: folderPath.appending(claimName.bytes), failure: error, disarmed: true)
    }
    return nil
  }

  /// Takes the key off the new version's entry and empties it (a file), and dates it and
  /// the claim 1970. Returns whether the key is off and a file's contents are gone.
  private func disarm() -> Bool {
    // Each step is tried whatever the others did; the result says what was done.
    try? claim.setTimesToEpoch()
    let entry: FileDescriptor
    if claimIsVersion {
      entry = claim
    } else {
      // Not looked at, not disarmed: the result says so.
      guard let status = try? FileStatus.of(name, relativeTo: folder, followSymlinks: false) else {
        return false
      }
      guard status.kind == .regular || status.kind == .directory else { return true }
      let options: FileDescriptor.Options =
        status.kind == .regular
        ? [.writeOnly, .noFollow, .nonBlocking] : [.readOnly, .noFollow, .nonBlocking]
      // Not opened, not disarmed: the result says so.
      guard let opened = try? FileDescriptor.open(name, options, relativeTo: folder) else { return false }
      entry = opened
    }
    defer { if !claimIsVersion { entry.close() } }
    var disarmed = true
    do {
      try ExtendedAttributes.remove(KeyAttribute.name, from: .descriptor(entry))
    } catch  where error.errno == .notSupported {
    } catch {
      disarmed = false
    }
    // A file not cut to nothing is not disarmed; its date only hurries the sweep.
    if (try? FileStatus.of(entry))?.kind == .regular, (try? entry.truncate(to: 0)) == nil { disarmed = false }
    try? entry.setTimesToEpoch()  // the date only hurries the sweep
    return disarmed
  }

  /// After a successful save: the new version is in place; the claim goes.
  func release() {
    // A claim left behind holds no key and is swept by a later save.
    if !claimIsVersion { try? folder.removeEntry(claimName, isDirectory: false) }
    close()
  }

  /// Closes the claim (which unlocks it) and leaves the entries, as a crash would.
  func close() {
    guard isOpen else { return }
    isOpen = false
    claim.close()
  }

  /// Lists the folder and removes the leftovers of `documentName` found there: slots the
  /// probing did not reach, writers' entries whose claim is gone, and the random names of
  /// earlier versions. Returns how many were removed.
  @discardableResult
  static func sweepByListing(in folder: FileDescriptor, for documentName: [UInt8], now: Timestamp = .now)
    -> Int
  {
    let prefix = prefix(for: documentName)
    let suffix = extensionSuffix(of: documentName)
    // A folder that cannot be listed keeps its leftovers until a later save lists it.
    guard let entries = try? DirectoryStream.entries(of: folder) else { return 0 }
    var removed = 0
    for entry in entries {
      guard entry.name.count > prefix.count + suffix.count, entry.name.starts(with: prefix),
        entry.name.suffix(suffix.count).elementsEqual(suffix)
      else { continue }
      let middle = entry.name[prefix.count..<(entry.name.count - suffix.count)]
      let digits = middle.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
      if !digits.isEmpty, digits.count <= 7, let slot = Int(String(decoding: digits, as: UTF8.self)) {
        let rest = middle.dropFirst(digits.count)
        if rest.isEmpty {
          if sweepSlot(slot, in: folder, for: documentName, now: now) == .removed { removed += 1 }
          continue
        }
        if rest.starts(with: writerMark + [UInt8(ascii: "-")]), isToken(rest.dropFirst(writerMark.count + 1))
        {
          // A writer's entry whose claim is gone belongs to no live save.
          let claimName = FilePath(uncheckedBytes: slotName(slot, for: documentName))
          if isAbsent(claimName, in: folder),
            removeIfUnlockedAndOld(FilePath(uncheckedBytes: entry.name), in: folder, now: now)
          {
            removed += 1
          }
          continue
        }
      }
      if middle.count == legacySuffixLength,
        removeIfUnlockedAndOld(FilePath(uncheckedBytes: entry.name), in: folder, now: now)
      {
        removed += 1
      }
    }
    return removed
  }

  /// Whether `name` is known to be gone from `folder`: an entry that cannot be looked at
  /// may be a live save's.
  private static func isAbsent(_ name: FilePath, in folder: FileDescriptor) -> Bool {
    do {
      _ = try FileStatus.of(name, relativeTo: folder, followSymlinks: false)
      return false
    } catch {
      return error.errno == .noSuchFile
    }
  }

  /// The sweep of earlier versions: an entry nobody holds locked, unmodified for ``sweepAge``.
  private static func removeIfUnlockedAndOld(_ name: FilePath, in folder: FileDescriptor, now: Timestamp)
    -> Bool
  {
    // Removed only when proved abandoned: what cannot be looked at, opened, locked or
    // removed stays.
    guard let status = try? FileStatus.of(name, relativeTo: folder, followSymlinks: false),
      status.kind == .regular || status.kind == .directory,
      now.seconds - status.modificationTime.seconds >= sweepAge,
      let fd = try? FileDescriptor.open(name, [.readOnly, .noFollow, .nonBlocking], relativeTo: folder)
    else { return false }
    defer { fd.close() }
    guard (try? fd.lockExclusively(wait: false)) == true else { return false }  // as above
    return (try? folder.removeTree(name)) != nil  // as above
  }
}
