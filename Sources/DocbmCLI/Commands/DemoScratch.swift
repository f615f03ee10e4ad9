import DocbmSystem
import DocumentBookmarks
import FoundationEssentials

/// The demo's scratch folder and the plain file operations it performs on it.
struct DemoScratch {
  let root: FilePath

  private static var here: FileDescriptor { .currentWorkingDirectory }

  init() throws {
    let made: TemporaryFolder
    do {
      made = try TemporaryFolder.make(prefix: "docbm-demo-")
    } catch {
      throw DocbmError(.systemFailure, message: "cannot make a scratch folder: \(error)")
    }
    // Resolve symbolic links in the base so printed paths are the ones bookmarks record.
    root = (try? SymbolicLink.canonicalPath(made.path)) ?? made.path
  }

  func makeFolder(_ path: FilePath) throws {
    do {
      try Self.here.makeDirectory(path, permissions: 0o755)
    } catch  where error.errno == .fileExists {
      return
    } catch {
      throw DocbmError(.systemFailure, path: path, message: "cannot make folder \(path)")
    }
  }

  /// Writes in place (truncate and write), which keeps the file's attributes.
  func write(_ text: String, to path: FilePath) throws {
    try Data(text.utf8).write(to: path.url)
  }

  /// What most editors do: a temporary file renamed over the document.
  func atomicSave(_ text: String, to path: FilePath) throws {
    let temporary = path.removingLastComponent.appending(".board.json.tmp")
    try write(text, to: temporary)
    try rename(temporary, to: path)
  }

  func rename(_ from: FilePath, to: FilePath) throws {
    do {
      try Self.here.rename(from, to: to, in: Self.here)
    } catch {
      throw DocbmError(.systemFailure, path: from, message: "cannot rename \(from) to \(to)")
    }
  }

  func deleteFile(_ path: FilePath) throws {
    do {
      try Self.here.removeEntry(path, isDirectory: false)
    } catch {
      throw DocbmError(.systemFailure, path: path, message: "cannot delete \(path)")
    }
  }

  /// Removes the scratch folder and everything in it; a folder left behind is told on
  /// standard error (it holds documents with keys, and an escrow).
  func remove(_ console: Console) {
    do {
      try Self.here.removeTree(root)
    } catch {
      console.printError(
        "warning: the demo could not remove its scratch folder (\(error)); remove it yourself: \(root)")
    }
  }
}
