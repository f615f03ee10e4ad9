import DocumentBookmarks
import FoundationEssentials
import Glibc

/// The demo's scratch folder and the plain file operations it performs on it.
struct DemoScratch {
  let root: FilePath

  init() throws {
    let base = ProcessEnvironment.value("TMPDIR") ?? "/tmp"
    var template = Array("\(base)/docbm-demo-XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else {
      throw DocbmError(.systemFailure, message: "cannot make a scratch folder in \(base)")
    }
    // Resolve symbolic links in the base so printed paths are the ones bookmarks record.
    let real = realpath(made, nil)
    defer { free(real) }
    root = FilePath(String(cString: real ?? made))
  }

  func makeFolder(_ path: FilePath) throws {
    guard path.withCString({ mkdir($0, 0o755) }) == 0 || errno == EEXIST else {
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
    let result = from.withCString { old in to.withCString { Glibc.rename(old, $0) } }
    guard result == 0 else {
      throw DocbmError(.systemFailure, path: from, message: "cannot rename \(from) to \(to)")
    }
  }

  func deleteFile(_ path: FilePath) throws {
    guard path.withCString({ unlink($0) }) == 0 else {
      throw DocbmError(.systemFailure, path: path, message: "cannot delete \(path)")
    }
  }

  /// Removes the scratch folder and everything in it.
  func remove() {
    try? FileManager.default.removeItem(at: root.url)
  }
}
