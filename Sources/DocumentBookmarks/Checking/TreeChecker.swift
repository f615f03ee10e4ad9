import DocbmSystem
import FoundationEssentials

/// Checks every regular file in a folder tree.
///
/// It never follows symbolic links (so never loops), never lists a folder twice, and goes on
/// past entries it cannot read, reporting each. Folders are walked, not checked as
/// documents. FIFOs, sockets and devices in a tree are skipped; one given as the root is
/// reported ``CheckVerdict/unreadable`` without being opened.
public struct TreeChecker: Sendable {
  /// An entry the walk could not read.
  public struct Unreadable: Hashable, Sendable, Codable {
    public let path: FilePath
    public let message: String

    public init(path: FilePath, message: String) {
      self.path = path
      self.message = message
    }
  }

  /// How far the walk has come, for progress displays.
  public struct Progress: Hashable, Sendable {
    public let documentsChecked: Int
    public let foldersListed: Int
    public let current: FilePath
  }

  public let checker: DocumentChecker
  /// How many documents are checked at once (the files of one folder at a time).
  public let concurrency: Int
  /// Decides what repair would do to each document that lost its key, beside its check.
  private let repairer: DocumentRepairer?
  /// Whether the escrow's reads share a read transaction for a while (at most
  /// ``EscrowConnection/sharedReadLength`` and one document): only for a caller whose
  /// `found` writes nothing to the escrow, since a write from the thread holding the read
  /// would wait for it.
  private let sharesEscrowReads: Bool

  /// - Parameters:
  ///   - checker: the checker applied to each document.
  ///   - concurrency: documents checked at once; `nil` (the default) is one per core this
  ///     process may run on (its affinity mask: `taskset -c 0` gives one, checked in order
  ///     on the calling thread).
  public init(checker: DocumentChecker, concurrency: Int? = nil) {
    self.checker = checker
    self.concurrency = max(1, concurrency ?? Processors.usable)
    self.repairer = nil
    self.sharesEscrowReads = false
  }

  /// A tree checker that checks with `repairer`'s checker and, for each document whose key
  /// was lost, decides what `repairer` would do (``DocumentRepairer/prospect(_:)``) on the
  /// thread that checked it, from the same reading of the escrow. `sharingEscrowReads`:
  /// the escrow's reads share a read transaction for a while, for a caller whose `found`
  /// writes nothing to the escrow (``sharesEscrowReads``).
  package init(repairer: DocumentRepairer, concurrency: Int? = nil, sharingEscrowReads: Bool = false) {
    self.checker = repairer.checker
    self.concurrency = max(1, concurrency ?? Processors.usable)
    self.repairer = repairer
    self.sharesEscrowReads = sharingEscrowReads
  }

  /// Checks `root` (a file or a folder tree), calling `found` for each document checked, in
  /// walk order, and `progress` every `progressInterval` documents; both are called on the
  /// calling thread.
  ///
  /// With ``concurrency`` above one, documents are checked on that many worker threads while
  /// the calling thread lists folders and delivers the checks (at most
  /// 256 documents per worker at a time, so memory stays flat).
  public func check(
    _ root: FilePath, progressInterval: Int = 500, progress: (Progress) -> Void = { _ in },
    found: (DocumentCheck) -> Void
  ) -> [Unreadable] {
    check(root, progressInterval: progressInterval, progress: progress) { check, _ in found(check) }
  }

  /// ``check(_:progressInterval:progress:found:)`` that also gives each document's repair
  /// prospect: `nil` unless the checker was made with a repairer and the document lost its
  /// key or can hold none where it is.
  package func check(
    _ root: FilePath, progressInterval: Int = 500, progress: (Progress) -> Void = { _ in },
    found: (DocumentCheck, DocumentRepairer.Report?) -> Void
  ) -> [Unreadable] {
    // A tree reads the escrow's records of its documents once (by the path it is given and
    // by its real path), and each key its documents name once; a single file, its own. A
    // root that cannot be looked at is checked as a single file, which reports why.
    let isTree = (try? FileStatus.of(root, followSymlinks: true))?.kind == .directory
    let treeFolders = isTree ? TreeChecker.escrowFolders(of: root) : []
    let shares = isTree && sharesEscrowReads
    let repairer =
      isTree ? self.repairer?.loadingEscrow(inside: treeFolders, sharingReads: shares) : self.repairer
    let checker =
      repairer?.checker
      ?? (isTree ? self.checker.loadingEscrow(inside: treeFolders, sharingReads: shares) : self.checker)
    // Runs after the pipeline's last delivery (below): no read is left holding the escrow.
    defer { checker.endSharedEscrowRead() }
    var unreadable: [Unreadable] = []
    var visited = Set<String>()
    // Each entry carries the type `getdents64` gave, so regular files need no `statx`, and its
    // absolute and canonical paths made from the root's (``ListedPaths``), so that the
    // working folder and the links on the way are looked up once.
    var stack: [(path: FilePath, absolute: FilePath, real: FilePath?, type: DirectoryStream.EntryType)] = [
      (root, root.absolute, try? TargetSnapshot.canonicalPath(root), .unknown)  // `nil`: looked up as given
    ]
    var documents = 0
    var folders = 0
    var pipeline: OrderedWork<CheckPipeline.Document, CheckPipeline.Checked>?
    // Listed folders kept open while their documents are checked (opened by name in them),
    // oldest first, with the number of the last document submitted from each.
    var openFolders: [(folder: CheckPipeline.OpenFolder, last: Int)] = []
    var submitted = 0
    func report(_ checked: CheckPipeline.Checked) {
      if shares { checker.endSharedEscrowRead(ifOlderThan: EscrowConnection.sharedReadLength) }
      found(checked.check, checked.prospect)
      documents += 1
      if documents % max(1, progressInterval) == 0 {
        progress(
          Progress(documentsChecked: documents, foldersListed: folders, current: checked.check.document))
      }
    }
    defer { pipeline?.finish(deliver: report) }
    while let (path, absolute, real, listedType) = stack.popLast() {
      // A shared read ends on time while the walk lists folders, checking nothing.
      if shares { checker.endSharedEscrowRead(ifOlderThan: EscrowConnection.sharedReadLength) }
      var type = listedType
      var status: FileStatus?
      if type == .unknown || type == .directory {
        do {
          let current = try FileStatus.of(path, followSymlinks: false)
          status = current
          switch current.kind {
          case .regular: type = .regular
          case .directory: type = .directory
          case .symbolicLink: type = .symbolicLink
          case .other: type = .other
          }
        } catch {
          unreadable.append(
            Unreadable(path: path, message: DocbmError(error, operation: .search, path: path).message))
          continue
        }
      }
      switch type {
      case .regular:
        // The root, or an entry whose type `getdents64` did not give.
        pipeline?.finish(deliver: report)
        pipeline = nil
        report(CheckPipeline.Checked(checker.check(path), repairer: repairer))
      case .directory:
        guard let status,
          visited.insert("\(status.device.major):\(status.device.minor):\(status.inode)").inserted
        else { continue }
        do {
          let stream = try DirectoryStream(path)
          // Depth first, in name order (bytewise, as `LC_ALL=C ls` sorts): a folder's files
          // first, then its folders.
          let listing = DirectoryListing(stream)
          if let failure = listing.failure {
            unreadable.append(
              Unreadable(
                path: path,
                message: DocbmError(failure, operation: .search, path: path).message))
          }
          folders += 1
          let fileCount = listing.entries.count { $0.type == .regular }
          if fileCount > 0 {
            if concurrency > 1, pipeline == nil {
              pipeline = CheckPipeline.start(
                checker: checker, repairer: repairer, workers: concurrency,
                window: concurrency * TreeChecker.documentsInFlight)
            }
            if let active = pipeline {
              // Folders whose documents have all been delivered are closed; past a bound
              // (small folders, deep trees) documents are opened by their whole path instead,
              // so the walk never runs out of descriptors.
              openFolders.removeAll { $0.last < documents }
              let folder =
                openFolders.count < TreeChecker.openFolderLimit ? CheckPipeline.OpenFolder(stream) : nil
              if let folder {
                openFolders.append((folder, submitted + fileCount - 1))
              }
              active.submit(
                listing.entries.filter { $0.type == .regular }.map {
                  CheckPipeline.Document(
                    path: listing.path(of: $0, in: path),
                    listed: ListedPaths(absolute: listing.path(of: $0, in: absolute), realFolder: real),
                    folder: folder, name: listing.name(of: $0), inode: $0.inode)
                },
                deliver: report)
              submitted += fileCount
            } else {
              // One core: in order, on this thread, each opened by its name where the
              // listing holds it.
              let folder = stream.descriptor
              for entry in listing.entries where entry.type == .regular {
                let documentPath = listing.path(of: entry, in: path)
                let listed = ListedPaths(absolute: listing.path(of: entry, in: absolute), realFolder: real)
                let check = listing.withName(of: entry) {
                  checker.check(documentPath, in: folder, cName: $0, inode: entry.inode, listed: listed)
                }
                report(CheckPipeline.Checked(check, repairer: repairer))
              }
            }
          }
          for entry in listing.entries.reversed() where entry.type != .regular {
            stack.append(
              (
                listing.path(of: entry, in: path), listing.path(of: entry, in: absolute),
                real.map { listing.path(of: entry, in: $0) }, entry.type
              ))
          }
        } catch {
          unreadable.append(
            Unreadable(path: path, message: DocbmError(error, operation: .search, path: path).message))
        }
      case .symbolicLink where path == root:
        unreadable.append(
          Unreadable(
            path: path, message: "\(path) is a symbolic link, which is never followed; check its target"))
      case .other where path == root:
        // Named by the caller: a FIFO, socket or device is never opened (a FIFO would
        // block, a device may act on being opened), and is reported rather than skipped.
        report(
          CheckPipeline.Checked(
            check: DocumentCheck(
              document: path, verdict: .unreadable, keyFingerprint: nil, escrowedFingerprint: nil,
              bookmarks: [],
              message:
                "\(path) is not a regular file (a FIFO, socket or device), so there are no document bytes to check"
            ), prospect: nil))
      case .symbolicLink, .other, .unknown:
        continue
      }
    }
    return unreadable
  }

  /// The folders whose escrow records a check of the tree at `root` reads: the root made
  /// absolute, and its real path when links lead there.
  private static func escrowFolders(of root: FilePath) -> [FilePath] {
    let absolute = root.absolute
    // A root whose real path cannot be made is walked, and looked up, by its given path.
    guard let real = try? TargetSnapshot.canonicalPath(absolute), real != absolute else { return [absolute] }
    return [absolute, real]
  }

  /// Documents in flight per worker thread: enough that no worker waits for the walk, few
  /// enough that memory stays flat.
  static let documentsInFlight = 256

  /// Listed folders kept open at once for opening their documents by name.
  static let openFolderLimit = 64
}
