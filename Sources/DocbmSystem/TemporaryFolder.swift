import Glibc

/// A private folder (mode 0700) made with `mkdtemp(3)` under the temporary directory.
package struct TemporaryFolder: Sendable {
  /// The folder's path.
  package let path: FilePath

  /// Makes a folder named `prefix` and six random characters in `$TMPDIR` (else `/tmp`).
  /// The corresponding C function is `mkdtemp`.
  package static func make(prefix: String) throws(SystemCallError) -> TemporaryFolder {
    let environment = ProcessEnvironment.value("TMPDIR") ?? ""
    return try make(prefix: prefix, in: FilePath(environment.hasPrefix("/") ? environment : "/tmp"))
  }

  /// Makes a folder named `prefix` and six random characters in `base`.
  /// The corresponding C function is `mkdtemp`.
  package static func make(prefix: String, in base: FilePath) throws(SystemCallError) -> TemporaryFolder {
    var template = base.appending(prefix + "XXXXXX").bytes.map { CChar(bitPattern: $0) } + [0]
    guard let made = mkdtemp(&template) else {
      throw SystemCallError("mkdtemp", .current, path: base)
    }
    return TemporaryFolder(
      path: FilePath(uncheckedBytes: Array(UnsafeRawBufferPointer(start: made, count: strlen(made)))))
  }

  /// Removes the folder and everything in it; best effort.
  package func remove() {
    try? FileDescriptor.currentWorkingDirectory.removeTree(path)  // best effort, as documented
  }
}
