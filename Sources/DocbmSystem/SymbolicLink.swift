import Glibc

/// Reading symbolic links and resolving paths.
package enum SymbolicLink {
  /// The most links followed in a row, as the kernel (`MAXSYMLINKS`).
  static let followLimit = 40

  /// Makes a symbolic link at `path` whose text is `destination`.
  /// The corresponding C function is `symlink`.
  ///
  /// - Throws: ``SystemCallError``: EEXIST, EACCES, ENOENT.
  package static func create(at path: FilePath, pointingTo destination: FilePath) throws(SystemCallError) {
    _ = try retryingOnInterrupt("symlink", path: path) {
      destination.withCString { text in path.withCString { symlink(text, $0) } }
    }
  }

  /// Makes `path` a second name (a hard link) of the file at `existing`.
  /// The corresponding C function is `link`.
  ///
  /// - Throws: ``SystemCallError``: EEXIST, EXDEV, EMLINK, EPERM.
  package static func makeHardLink(at path: FilePath, to existing: FilePath) throws(SystemCallError) {
    _ = try retryingOnInterrupt("link", path: path) {
      existing.withCString { old in path.withCString { link(old, $0) } }
    }
  }

  /// The text stored in the link `path`, as it is (relative or absolute).
  /// The corresponding C function is `readlink`.
  ///
  /// - Throws: ``SystemCallError``: EINVAL when `path` is not a link, ENOENT, EACCES.
  package static func destination(of path: FilePath) throws(SystemCallError) -> FilePath {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX))
    let count = try retryingOnInterrupt("readlink", path: path) {
      path.withCString { readlink($0, &buffer, buffer.count) }
    }
    return FilePath(uncheckedBytes: buffer[..<count].map { UInt8(bitPattern: $0) })
  }

  /// The absolute path of `path` with every symbolic link and `.`/`..` resolved; `path`
  /// must exist. The corresponding C function is `realpath`.
  ///
  /// - Throws: ``SystemCallError``: ENOENT, EACCES, ELOOP, ENOTDIR.
  package static func canonicalPath(_ path: FilePath) throws(SystemCallError) -> FilePath {
    guard let result = path.withCString({ realpath($0, nil) }) else {
      throw SystemCallError("realpath", Errno.current, path: path)
    }
    defer { free(result) }
    return FilePath(uncheckedBytes: Array(UnsafeRawBufferPointer(start: result, count: strlen(result))))
  }

  /// `path` with the symbolic links at its end followed, one after another, to the entry
  /// they lead to, which need not exist (a link to a file not made yet leads to where that
  /// file will be), in its folder's canonical path (``canonicalPath(_:)``). A path that is
  /// not a link comes back absolute, in its folder's canonical path.
  ///
  /// - Throws: ``SystemCallError``: ELOOP after ``followLimit`` links; `readlink`'s,
  ///   `statx`'s and `realpath`'s errors other than ENOENT at the end (EACCES on a folder
  ///   on the way, ENOENT for a missing folder).
  package static func followingFinalLinks(_ path: FilePath) throws(SystemCallError) -> FilePath {
    var current = path.isAbsolute ? path : FilePath.currentDirectory.appending(path.bytes)
    for _ in 0...followLimit {
      let status: FileStatus
      do {
        status = try FileStatus.of(current, followSymlinks: false)
      } catch  where error.errno == .noSuchFile {
        break
      }
      guard status.kind == .symbolicLink else { break }
      let destination = try destination(of: current)
      current =
        destination.isAbsolute
        ? destination : current.removingLastComponent.appending(destination.bytes)
    }
    do throws(SystemCallError) {
      if try FileStatus.of(current, followSymlinks: false).kind == .symbolicLink {
        throw SystemCallError("readlink", .tooManySymbolicLinks, path: path)
      }
    } catch  where error.errno == .noSuchFile {
    }
    guard let name = current.lastEntryName else {
      return try canonicalPath(current)
    }
    return try canonicalPath(current.removingLastComponent).appending(name)
  }
}
