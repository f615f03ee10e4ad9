import DocbmSystem

/// What the snapshots of many targets in few folders share, found out once per folder: the
/// folder's canonical path (`realpath`) and the mount point it is on; and once per device,
/// its filesystem (`fstatfs`). A batch resolve
/// (``ResolutionBatch``) keeps one for the refreshed bookmarks of its moved targets.
///
/// It answers only for a target that is not a symbolic link (its canonical path is then
/// its folder's with its own name), as every target a resolve finds is: one replaced by a
/// link since is read as what it is now and refused.
package final class SnapshotFolders {
  private var canonicalFolders: [FilePath: FilePath] = [:]
  private var mountPoints: [FilePath: FilePath?] = [:]
  private var filesystems: [FileStatus.Device: FileSystemIdentity] = [:]

  /// The canonical path of `path`: its folder's, looked up once per folder, with its own
  /// name.
  ///
  /// - Throws: ``DocbmError`` as ``TargetSnapshot/canonicalPath(_:)``.
  func canonicalPath(of path: FilePath) throws(DocbmError) -> FilePath {
    let folder = path.absolute.removingLastComponent
    guard let name = path.lastEntryName else {
      return try TargetSnapshot.canonicalPath(path)
    }
    if let known = canonicalFolders[folder] { return known.appending(name) }
    let real = try TargetSnapshot.canonicalPath(folder)
    canonicalFolders[folder] = real
    return real.appending(name)
  }

  /// The mount point of the target at canonical path `real`, whose status is `status`: as
  /// ``FileSystemIdentity/mountPoint(of:status:)`` says, with its folder's answer kept.
  func mountPoint(of real: FilePath, status: FileStatus) -> FilePath? {
    guard status.knowsMountRoot, !status.isMountRoot, !real.isRoot else {
      return FileSystemIdentity.mountPoint(of: real, status: status)
    }
    let folder = real.removingLastComponent
    if let known = mountPoints[folder] { return known }
    // A folder that cannot be looked at is not kept: the target's own answer stands.
    guard let folderStatus = try? FileStatus.of(folder, followSymlinks: false) else {
      return FileSystemIdentity.mountPoint(of: real, status: status)
    }
    let found = FileSystemIdentity.mountPoint(of: folder, status: folderStatus)
    mountPoints[folder] = found
    return found
  }

  /// The filesystem on `device`: `read` asked once per device, its answer kept; `nil`
  /// when `read` finds none (not kept, so the next target asks again).
  func filesystem(on device: FileStatus.Device, reading read: () -> FileSystemIdentity?)
    -> FileSystemIdentity?
  {
    if let known = filesystems[device] { return known }
    let found = read()
    filesystems[device] = found
    return found
  }
}
