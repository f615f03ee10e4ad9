import DocbmSystem

/// How a tree check checks documents on worker threads while it goes on walking the tree:
/// an ``OrderedWork`` of listed documents, whose checks come back in walk order.
///
/// The walk lists folders and prints results at the same time as the workers check,
/// instead of waiting for each folder's checks to finish before listing the next.
enum CheckPipeline {
  /// A document to check: where it is, and the folder it was listed in, open, so that it
  /// is opened by name (no second walk of its whole path).
  struct Document: Sendable {
    let path: FilePath
    /// What the walk knows of ``path``.
    let listed: ListedPaths
    let folder: OpenFolder?
    let name: [UInt8]
    /// The inode number the folder's listing gave.
    let inode: UInt64
  }

  /// A listed folder, kept open until every document listed in it has been checked and the
  /// walk has let go of it. Workers only use its descriptor for `openat`; the listing
  /// itself is finished before the folder is shared.
  final class OpenFolder: @unchecked Sendable {
    private let stream: DirectoryStream

    init(_ stream: DirectoryStream) { self.stream = stream }

    var descriptor: FileDescriptor { stream.descriptor }
  }

  /// A document's check, and what repair would do to it when its key was lost.
  struct Checked: Sendable {
    let check: DocumentCheck
    let prospect: DocumentRepairer.Report?
  }

  /// How many documents of a folder a thread takes at once: a document's check is a few
  /// microseconds of work, so taking them one at a time would spend a good part of the
  /// second core on the queue's lock and the counts both threads change.
  static let documentsPerJob = 64

  /// Starts checking documents with `checker` on `workers - 1` threads and the caller
  /// (deciding the prospects of those that lost their keys with `repairer`, when given),
  /// at most `window` at once.
  static func start(
    checker: DocumentChecker, repairer: DocumentRepairer?, workers: Int, window: Int
  ) -> OrderedWork<Document, Checked> {
    OrderedWork(workers: workers, window: window, inputsPerJob: documentsPerJob, named: "docbm-check") {
      document in
      Checked(
        checker.check(
          document.path, in: document.folder?.descriptor, named: document.name, inode: document.inode,
          listed: document.listed),
        repairer: repairer)
    }
  }
}

extension CheckPipeline.Checked {
  /// `check`, with its prospect decided by `repairer` when it lost its key or can hold
  /// none where it is (a filesystem without user extended attributes).
  init(_ check: DocumentCheck, repairer: DocumentRepairer?) {
    self.check = check
    prospect =
      check.verdict == .keyLost || check.verdict == .unsupportedFilesystem ? repairer?.prospect(check) : nil
  }
}
