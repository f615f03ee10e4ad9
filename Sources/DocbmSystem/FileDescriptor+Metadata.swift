import CDocbmShims
import Glibc

extension FileDescriptor {
  /// Changes the owner and group. The corresponding C function is `fchown`.
  package func changeOwner(user: UInt32, group: UInt32) throws(SystemCallError) {
    _ = try retryingOnInterrupt("fchown") { fchown(rawValue, user, group) }
  }

  /// Changes the permission bits (`mode & 07777`). The corresponding C function is `fchmod`.
  package func changeMode(_ permissions: UInt32) throws(SystemCallError) {
    _ = try retryingOnInterrupt("fchmod") { fchmod(rawValue, mode_t(permissions & 0o7777)) }
  }

  /// Whether the file's permissions (its mode bits and ACL) let the caller, by its effective
  /// ids, write it. A read-only filesystem or an immutable flag is not a permission: other
  /// checks report those, so this says `true` for them. The corresponding C function is
  /// `faccessat` with `AT_EMPTY_PATH` and `AT_EACCESS`.
  ///
  /// - Throws: ``SystemCallError`` when the kernel cannot answer (not EACCES nor EROFS).
  package func permitsWriting() throws(SystemCallError) -> Bool {
    do {
      _ = try retryingOnInterrupt("faccessat") {
        faccessat(rawValue, "", W_OK, AT_EACCESS | CDOCBM_AT_EMPTY_PATH)
      }
      return true
    } catch {
      if error.errno == .permissionDenied { return false }
      if error.errno.rawValue == EROFS { return true }
      throw error
    }
  }

  /// Sets the access and modification times to the start of 1970 (the status change time
  /// is the kernel's). The corresponding C function is `futimens`.
  package func setTimesToEpoch() throws(SystemCallError) {
    var times = [timespec(tv_sec: 0, tv_nsec: 0), timespec(tv_sec: 0, tv_nsec: 0)]
    _ = try retryingOnInterrupt("futimens") { futimens(rawValue, &times) }
  }

  /// Takes an exclusive advisory lock; returns `false` when `wait` is false and another
  /// open file description holds it. The lock goes with the descriptor's last close.
  /// The corresponding C function is `flock`.
  package func lockExclusively(wait: Bool) throws(SystemCallError) -> Bool {
    let operation = CDOCBM_LOCK_EX | (wait ? 0 : CDOCBM_LOCK_NB)
    while true {
      if cdocbm_flock(rawValue, operation) == 0 { return true }
      let error = Errno.current
      if error == .interrupted { continue }
      if error.rawValue == EWOULDBLOCK { return false }
      throw SystemCallError("flock", error)
    }
  }
}

extension FileDescriptor {
  /// What ``openLocked(_:relativeTo:accepts:)`` found at the lock file's path.
  package enum LockFile {
    /// The lock file, locked until the descriptor's last close.
    case locked(FileDescriptor)
    /// A file that is not a regular file, or that `accepts` refused: it was not waited on.
    case refused(FileStatus)
  }

  /// Opens (creating it, mode 0600) the lock file `path`, relative to `directory` when
  /// relative, without following a link nor blocking on a FIFO, and waits for an exclusive
  /// `flock` on it. The lock goes with the descriptor's last close (or the process's end,
  /// however it ends).
  ///
  /// - Parameter accepts: a further test of the opened file (its owner, its mode), made
  ///   before waiting, so that a file that is refused cannot keep the caller waiting.
  /// - Returns: the locked file, or the status of a file that is not a regular one or that
  ///   `accepts` refused.
  /// - Throws: ``SystemCallError``: `open`'s (ELOOP for a symbolic link), `statx`'s and
  ///   `flock`'s own errors.
  package static func openLocked(
    _ path: FilePath, relativeTo directory: FileDescriptor = .currentWorkingDirectory,
    accepts: (FileStatus) -> Bool = { _ in true }
  ) throws(SystemCallError) -> LockFile {
    let fd = try FileDescriptor.open(
      path, [.readWrite, .create, .noFollow, .nonBlocking], permissions: 0o600, relativeTo: directory)
    do throws(SystemCallError) {
      let status = try FileStatus.of(fd)
      guard status.kind == .regular, accepts(status) else {
        fd.close()
        return .refused(status)
      }
      _ = try fd.lockExclusively(wait: true)
    } catch {
      fd.close()
      throw error
    }
    return .locked(fd)
  }
}

/// Operations on the entries of an open folder, by name.
extension FileDescriptor {
  /// Checks that the caller (by its effective ids) may make and remove entries in this
  /// folder: EACCES, or EROFS on a read-only filesystem, when not.
  /// The corresponding C function is `faccessat` with `AT_EACCESS`.
  package func checkEntriesWritable() throws(SystemCallError) {
    _ = try retryingOnInterrupt("faccessat") { faccessat(rawValue, ".", W_OK | X_OK, AT_EACCESS) }
  }

  /// Makes a folder `name` inside this folder. The corresponding C function is `mkdirat`.
  package func makeDirectory(_ name: FilePath, permissions: UInt32) throws(SystemCallError) {
    _ = try retryingOnInterrupt("mkdirat", path: name) {
      name.withCString { mkdirat(rawValue, $0, mode_t(permissions)) }
    }
  }

  /// Renames `name` in this folder to `newName` in `folder`, replacing a file there.
  /// The corresponding C function is `renameat`.
  package func rename(
    _ name: FilePath, to newName: FilePath, in folder: FileDescriptor
  ) throws(SystemCallError) {
    _ = try retryingOnInterrupt("renameat", path: newName) {
      name.withCString { old in newName.withCString { renameat(rawValue, old, folder.rawValue, $0) } }
    }
  }

  /// Renames `name` in this folder to `newName` in `folder` only when nothing is there:
  /// fails with `EEXIST` rather than replace an entry. The corresponding C function is
  /// `renameat2` with `RENAME_NOREPLACE`.
  ///
  /// Where the filesystem refuses the flag (EINVAL: FUSE filesystems, NFS clients), a file
  /// is given the new name with `linkat`, which fails with `EEXIST` just as the flag would,
  /// and its old name is then removed; a failure to remove it leaves the file under both
  /// names, the new one in place. A folder, or a file on a filesystem without hard links,
  /// fails there with the refusal of the flag.
  package func renameWithoutReplacing(
    _ name: FilePath, to newName: FilePath, in folder: FileDescriptor
  ) throws(SystemCallError) {
    do {
      try renameat2(name, to: newName, in: folder, flags: CDOCBM_RENAME_NOREPLACE)
    } catch let refusal where refusal.errno == .invalidArgument || refusal.errno == .notImplemented {
      do {
        _ = try retryingOnInterrupt("linkat", path: newName) {
          name.withCString { old in newName.withCString { linkat(rawValue, old, folder.rawValue, $0, 0) } }
        }
      } catch  where error.errno != .fileExists {
        throw refusal
      }
      // The file is at the new name already, as the rename would have put it; an old
      // name left behind is a second name of it, as documented above.
      try? removeEntry(name, isDirectory: false)
    }
  }

  /// Makes a regular file with no name in this folder (`O_TMPFILE`), open for reading and
  /// writing, with `permissions` (less the umask): nobody can open, rename or replace it
  /// until ``link(_:as:)`` names it, and it is gone when its descriptor is closed unnamed
  /// (a process killed before naming it leaves nothing behind).
  ///
  /// - Throws: ``SystemCallError`` from `openat`: EOPNOTSUPP (or EISDIR, EINVAL on older
  ///   kernels) where the filesystem cannot make such a file; EACCES, EROFS, ENOSPC as for
  ///   any new file. The corresponding C function is `openat` with `O_TMPFILE`.
  package func makeUnnamedFile(permissions: UInt32) throws(SystemCallError) -> FileDescriptor {
    let flags = CDOCBM_O_TMPFILE | O_RDWR | O_CLOEXEC
    let fd = try retryingOnInterrupt("openat") { openat(rawValue, ".", flags, mode_t(permissions)) }
    return FileDescriptor(rawValue: fd)
  }

  /// Gives `file`, an unnamed file of this folder (``makeUnnamedFile(permissions:)``), the
  /// name `name` here; fails with `EEXIST` when anything has that name, never replacing it.
  /// The file is named through `/proc/self/fd` (naming by descriptor itself, `AT_EMPTY_PATH`,
  /// needs a capability users lack). The corresponding C function is `linkat`.
  ///
  /// - Throws: ``SystemCallError``: EEXIST; ENOENT when `/proc` is not mounted.
  package func link(_ file: FileDescriptor, as name: FilePath) throws(SystemCallError) {
    let source = "/proc/self/fd/\(file.rawValue)"
    _ = try retryingOnInterrupt("linkat", path: name) {
      name.withCString { linkat(AT_FDCWD, source, rawValue, $0, CDOCBM_AT_SYMLINK_FOLLOW) }
    }
  }

  /// `renameat2` with `flags`. The corresponding C function is `renameat2`.
  private func renameat2(
    _ name: FilePath, to newName: FilePath, in folder: FileDescriptor, flags: UInt32
  ) throws(SystemCallError) {
    _ = try retryingOnInterrupt("renameat2", path: newName) {
      name.withCString { old in
        newName.withCString { cdocbm_renameat2(rawValue, old, folder.rawValue, $0, flags) }
      }
    }
  }

  /// Swaps `name` in this folder with `otherName` in `folder` atomically; both must exist.
  /// The corresponding C function is `renameat2` with `RENAME_EXCHANGE`.
  package func exchange(
    _ name: FilePath, with otherName: FilePath, in folder: FileDescriptor
  ) throws(SystemCallError) {
    try renameat2(name, to: otherName, in: folder, flags: CDOCBM_RENAME_EXCHANGE)
  }

  /// Removes the file or empty folder `name`. The corresponding C function is `unlinkat`.
  package func removeEntry(_ name: FilePath, isDirectory: Bool) throws(SystemCallError) {
    _ = try retryingOnInterrupt("unlinkat", path: name) {
      name.withCString { unlinkat(rawValue, $0, isDirectory ? AT_REMOVEDIR : 0) }
    }
  }

  /// Removes `name` and, when it is a folder, everything in it, without following
  /// symbolic links. Missing entries are not an error.
  ///
  /// A folder that is not empty after its entries were removed (ENOTEMPTY) is listed and
  /// emptied again, at most 20 times 5 ms apart: a FUSE filesystem (bindfs) was seen to
  /// leave a just-emptied folder not empty while its server caught up (libfuse keeps a file
  /// removed while still open as a hidden `.fuse_hidden…` entry).
  package func removeTree(_ name: FilePath) throws(SystemCallError) {
    let status: FileStatus
    do {
      status = try FileStatus.of(name, relativeTo: self, followSymlinks: false)
    } catch  where error.errno == .noSuchFile {
      return
    }
    var attempt = 0
    while true {
      if status.kind == .directory {
        let stream = try DirectoryStream(name, relativeTo: self)
        var children: [[UInt8]] = []
        while let entry = stream.next() { children.append(entry.name) }
        for child in children {
          try stream.descriptor.removeTree(FilePath(uncheckedBytes: child))
        }
      }
      do {
        try removeEntry(name, isDirectory: status.kind == .directory)
        return
      } catch  where error.errno == .noSuchFile {
        return
      } catch  where error.errno == .notEmpty && attempt < 20 {
        attempt += 1
        usleep(5000)
      }
    }
  }

  /// Removes `name` and everything under it like ``removeTree(_:)``, and also what a
  /// program left hard to remove: folders without permissions (given mode 0700 first) and
  /// immutable or append-only files and folders (their flags cleared, which needs root).
  ///
  /// - Returns: the names, relative to this folder, of what could not be removed.
  package func removeTreeForcibly(_ name: FilePath) -> [FilePath] {
    let status: FileStatus
    do {
      status = try FileStatus.of(name, relativeTo: self, followSymlinks: false)
    } catch  where error.errno == .noSuchFile {
      return []
    } catch {
      return [name]
    }
    if status.kind != .symbolicLink { clearRemovalObstacles(name, status) }
    var left: [FilePath] = []
    if status.kind == .directory {
      do {
        let stream = try DirectoryStream(name, relativeTo: self)
        var children: [[UInt8]] = []
        while let entry = stream.next() { children.append(entry.name) }
        for child in children {
          left += stream.descriptor.removeTreeForcibly(FilePath(uncheckedBytes: child)).map {
            name.appending($0.bytes)
          }
        }
      } catch {
        return [name]
      }
    }
    guard left.isEmpty else { return left }
    do {
      try removeEntry(name, isDirectory: status.kind == .directory)
    } catch  where error.errno == .noSuchFile {
    } catch {
      return [name]
    }
    return []
  }

  /// Gives a folder its owner's permissions and clears immutable and append-only flags,
  /// best effort (each may fail without privileges; the removal then reports what is left).
  private func clearRemovalObstacles(_ name: FilePath, _ status: FileStatus) {
    if status.kind == .directory, status.permissions & 0o700 != 0o700 {
      // The corresponding C function is `fchmodat`.
      _ = name.withCString { fchmodat(rawValue, $0, 0o700, 0) }
    }
    // Best effort, as above. Only files and folders carry the flags; opening a device
    // could act on it.
    guard status.kind == .regular || status.kind == .directory,
      let fd = try? FileDescriptor.open(
        name,
        status.kind == .directory
          ? [.readOnly, .directory, .noFollow] : [.readOnly, .nonBlocking, .noFollow],
        relativeTo: self)
    else { return }
    defer { fd.close() }
    // Best effort, as above: flags that cannot be read or cleared leave the entry to the removal.
    if let flags = (try? fd.inodeFlags()) ?? nil, !flags.isDisjoint(with: [.immutable, .appendOnly]) {
      try? fd.setInodeFlags(flags.subtracting([.immutable, .appendOnly]))  // needs root; best effort
    }
  }
}
