import DocbmSystem
import Synchronization

/// What watchers saw of renames: each file or folder renamed under a watched folder, by its
/// identity (inode number and birth time), with its old and new paths, so that resolution
/// finds a target moved there without a search, even after the watcher stopped.
///
/// The file `moves`, in the escrow's folder and under its rules (a folder of the user's
/// that nobody else can change; a regular file of the user's, mode 0600, never through a
/// link): one line per rename, `INODE BIRTH OLD NEW`, the paths percent-encoded, the
/// newest last. Past ``compactionBytes`` it is rewritten with its newest lines, half
/// that size. A line is a hint only: resolution takes a path from it only when the
/// file there is the very object the bookmark recorded, so a damaged or planted line
/// costs a look-up, never a wrong answer.
package struct MoveJournal {
  /// One rename seen.
  package struct Move: Hashable, Sendable {
    package let inode: UInt64
    package let birthTime: Timestamp?
    package let oldPath: FilePath
    package let newPath: FilePath

    package init(inode: UInt64, birthTime: Timestamp?, oldPath: FilePath, newPath: FilePath) {
      self.inode = inode
      self.birthTime = birthTime
      self.oldPath = oldPath
      self.newPath = newPath
    }
  }

  /// The escrow folder it lives in.
  package let folder: FilePath

  package init(folder: FilePath) {
    self.folder = folder
  }

  static let fileName = Array("moves".utf8)
  /// The size past which the journal is rewritten with its newest lines (about 3,000
  /// renames of paths of 80 bytes).
  static let compactionBytes = 512 << 10
  /// The most bytes read: a journal larger than that is not one docbm wrote.
  static let maximumBytes = 8 << 20

  /// Appends `moves` (one `write`, so that concurrent writers' lines do not interleave),
  /// and keeps the file bounded. Nothing is written when the folder does not exist or
  /// cannot be trusted: the journal is a help, never a reason for a watcher to fail.
  package func record(_ moves: [Move]) {
    // Best effort throughout, as documented.
    guard !moves.isEmpty, let opened = try? EscrowFolder.open(folder) else { return }
    defer { opened.close() }
    var bytes: [UInt8] = []
    for move in moves { bytes += Self.line(move) }
    let name = FilePath(uncheckedBytes: Self.fileName)
    // Best effort, as above.
    guard
      let fd = try? FileDescriptor.open(
        name, [.writeOnly, .create, .append, .noFollow, .nonBlocking], permissions: 0o600,
        relativeTo: opened.descriptor)
    else { return }
    defer { fd.close() }
    // A file that cannot be looked at is not shown to be the user's own: not written.
    guard let status = try? FileStatus.of(fd), status.kind == .regular,
      EscrowFolder.ownershipProblem(status) == nil
    else { return }
    // Best effort: a full disk loses a hint, not a document.
    try? fd.writeAll(bytes)
    if status.size + UInt64(bytes.count) > UInt64(Self.compactionBytes) {
      compact(in: opened)
    }
  }

  /// The journal's lines, parsed only as far as their old paths; empty when there is no
  /// journal or it cannot be trusted. The folder and file are checked on every call, and
  /// the file read again only when it is not the version read last in this process.
  func lines() -> Lines {
    // A hint: a journal that cannot be read gives none, as documented.
    guard let opened = try? EscrowFolder.open(folder) else { return Lines(bytes: []) }
    defer { opened.close() }
    // A version names one file (its device and inode), whichever escrow folder holds it.
    let seen = Self.lastRead.withLock { $0 }
    switch opened.read(Self.fileName, limit: Self.maximumBytes, unlessVersion: seen?.version) {
    case .success(.unchanged?):
      return seen?.lines ?? Lines(bytes: [])
    case .success(.read(let bytes, let version)?):
      let lines = Lines(bytes: bytes)
      Self.lastRead.withLock { $0 = (version, lines) }
      return lines
    case .success(nil), .failure:
      return Lines(bytes: [])
    }
  }

  /// The journal read last in this process: its file's version and its lines.
  private static let lastRead = Mutex<(version: FileStatus.Version, lines: Lines)?>(nil)

  /// A journal's bytes, parsed only where a line's old path may lead from a path asked for.
  struct Lines: Sendable {
    let bytes: [UInt8]
    /// Each line's range, oldest first.
    private let lines: [Range<Int>]
    /// The lines (indices in ``lines``) by their old path as written (percent-encoded).
    private let byOldPath: [[UInt8]: [Int]]

    init(bytes: [UInt8]) {
      self.bytes = bytes
      var lines: [Range<Int>] = []
      var byOldPath: [[UInt8]: [Int]] = [:]
      var lineStart = 0
      var spaces: [Int] = []
      for (index, byte) in bytes.enumerated() {
        if byte == UInt8(ascii: " ") {
          spaces.append(index)
        } else if byte == UInt8(ascii: "\n") {
          if spaces.count == 3 {
            byOldPath[Array(bytes[(spaces[1] + 1)..<spaces[2]]), default: []].append(lines.count)
            lines.append(lineStart..<index)
          }
          lineStart = index + 1
          spaces.removeAll(keepingCapacity: true)
        }
      }
      self.lines = lines
      self.byOldPath = byOldPath
    }

    /// The moves, newest first, whose old path is `path` or a folder above it: `path`
    /// encoded, and looked up with each folder above it, before anything is parsed.
    func moves(from path: FilePath) -> [Move] {
      guard !byOldPath.isEmpty else { return [] }
      let encoded = PercentEncoding.encode(path.bytes)
      var found: [Int] = byOldPath[encoded] ?? []
      for (index, byte) in encoded.enumerated() where byte == UInt8(ascii: "/") && index > 0 {
        found += byOldPath[Array(encoded[..<index])] ?? []
      }
      return found.sorted(by: >).compactMap { MoveJournal.parse(bytes[lines[$0]]) }
    }
  }

  /// The paths where the object recorded at `path` (with inode number `inode`) went by
  /// the renames recorded, newest first: its own renames, and those of the folders above
  /// it (the path below the folder carried along); each followed by later renames, a few
  /// steps deep.
  static func candidates(for path: FilePath, inode: UInt64, in lines: Lines) -> [FilePath] {
    var found: [FilePath] = []
    var own: Set<FilePath> = []
    var frontier = [path]
    for _ in 0..<4 {
      var next: [FilePath] = []
      for current in frontier {
        for move in lines.moves(from: current) {
          if move.inode == inode { own.insert(move.newPath) }
          let destination: FilePath
          if current == move.oldPath {
            destination = move.newPath
          } else if current.isBelow(move.oldPath) {
            let rest = current.components.dropFirst(move.oldPath.components.count)
            destination = rest.reduce(move.newPath) { $0.appending($1) }
          } else {
            continue
          }
          if !found.contains(destination) && destination != path {
            found.append(destination)
            next.append(destination)
          }
        }
      }
      if next.isEmpty { break }
      frontier = next
    }
    // Its own renames first: a line with its inode number names it.
    return found.filter { own.contains($0) } + found.filter { !own.contains($0) }
  }

  /// Rewrites the journal with its newer half, under a temporary name renamed over it.
  private func compact(in opened: EscrowFolder) {
    guard case .success(let bytes?) = opened.read(Self.fileName, limit: Self.maximumBytes) else { return }
    var kept: [ArraySlice<UInt8>] = []
    var size = 0
    for line in bytes.split(separator: UInt8(ascii: "\n")).reversed() {
      guard size + line.count < Self.compactionBytes / 2 else { break }
      kept.append(line)
      size += line.count + 1
    }
    var text: [UInt8] = []
    text.reserveCapacity(size)
    for line in kept.reversed() { text += line + [UInt8(ascii: "\n")] }
    let temporary = FilePath(uncheckedBytes: Self.fileName + Array(".new-\(ProcessID.current)".utf8))
    // Best effort: a compaction that fails leaves the journal as it was, and is tried again.
    guard
      let fd = try? FileDescriptor.open(
        temporary, [.writeOnly, .create, .exclusive, .noFollow], permissions: 0o600,
        relativeTo: opened.descriptor)
    else { return }
    let written = (try? fd.writeAll(text)) != nil  // as above
    fd.close()
    // As above; the temporary file is removed when it did not take the journal's place.
    if !written
      || (try? opened.descriptor.rename(
        temporary, to: FilePath(uncheckedBytes: Self.fileName), in: opened.descriptor)) == nil
    {
      try? opened.descriptor.removeEntry(temporary, isDirectory: false)  // clean-up, best effort
    }
  }

  private static func line(_ move: Move) -> [UInt8] {
    let birth = move.birthTime.map { "\($0.seconds).\($0.nanoseconds)" } ?? "-"
    return Array("\(move.inode) \(birth) ".utf8) + PercentEncoding.encode(move.oldPath.bytes)
      + [UInt8(ascii: " ")] + PercentEncoding.encode(move.newPath.bytes) + [UInt8(ascii: "\n")]
  }

  fileprivate static func parse(_ line: ArraySlice<UInt8>) -> Move? {
    let fields = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
    guard fields.count == 4, let inode = UInt64(String(decoding: fields[0], as: UTF8.self)) else {
      return nil
    }
    var birthTime: Timestamp?
    let birth = String(decoding: fields[1], as: UTF8.self)
    if birth != "-" {
      let parts = birth.split(separator: ".")
      guard parts.count == 2, let seconds = Int64(parts[0]), let nanoseconds = UInt32(parts[1]) else {
        return nil
      }
      birthTime = Timestamp(seconds: seconds, nanoseconds: nanoseconds)
    }
    guard let old = PercentEncoding.decode(fields[2]).flatMap(FilePath.init(bytes:)),
      let new = PercentEncoding.decode(fields[3]).flatMap(FilePath.init(bytes:)), old.isAbsolute,
      new.isAbsolute
    else { return nil }
    return Move(
      inode: inode, birthTime: birthTime, oldPath: old.lexicallyNormalized, newPath: new.lexicallyNormalized)
  }
}
