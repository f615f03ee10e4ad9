/// Checks every regular file in a folder tree.
///
/// It never follows symbolic links (so never loops), never lists a folder twice, and goes on
/// past entries it cannot read, reporting each. Folders are walked, not checked as
/// documents.
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

  public init(checker: DocumentChecker) {
    self.checker = checker
  }

  /// Checks `root` (a file or a folder tree), calling `found` for each document checked and
  /// `progress` every `progressInterval` documents.
  public func check(
    _ root: FilePath, progressInterval: Int = 500, progress: (Progress) -> Void = { _ in },
    found: (DocumentCheck) -> Void
  ) -> [Unreadable] {
    var unreadable: [Unreadable] = []
    var visited = Set<String>()
    var stack: [FilePath] = [root]
    var documents = 0
    var folders = 0
    while let path = stack.popLast() {
      let status: FileStatus
      do {
        status = try FileStatus.of(path, followSymlinks: false)
      } catch {
        unreadable.append(
          Unreadable(path: path, message: DocbmError(error, operation: .search, path: path).message))
        continue
      }
      switch status.kind {
      case .regular:
        found(checker.check(path))
        documents += 1
        if documents % progressInterval == 0 {
          progress(Progress(documentsChecked: documents, foldersListed: folders, current: path))
        }
      case .directory:
        guard visited.insert("\(status.device.major):\(status.device.minor):\(status.inode)").inserted else {
          continue
        }
        do {
          let stream = try DirectoryStream(path)
          var children: [FilePath] = []
          while let entry = stream.next() { children.append(path.appending(entry.name)) }
          // Depth first, in name order.
          stack.append(
            contentsOf: children.sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) }.reversed())
          folders += 1
        } catch {
          unreadable.append(
            Unreadable(path: path, message: DocbmError(error, operation: .search, path: path).message))
        }
      case .symbolicLink, .other:
        continue
      }
    }
    return unreadable
  }
}
