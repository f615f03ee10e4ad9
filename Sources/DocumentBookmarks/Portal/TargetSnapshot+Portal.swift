import DocbmSystem

extension TargetSnapshot {
  /// The facts about a target reached through the Documents portal, as a bookmark records
  /// them: its host path (never the portal's), its kind, size and modification time (which
  /// the portal passes through), and no identity: inode numbers seen through the portal
  /// are the portal's own, so the inode is recorded as 0 (not recorded), with no handle,
  /// generation, birth time or volume.
  ///
  /// - Throws: ``DocbmError`` `portalHostPathUnknown` when the portal does not say where
  ///   the target really is; as ``read(_:)`` does otherwise.
  static func read(_ path: FilePath, through portal: PortalDocument) throws(DocbmError) -> TargetSnapshot {
    guard let host = portal.hostPath else {
      throw PortalDocument.hostPathUnknown(portal, path: path)
    }
    let status = try mappingSystemErrors(.inspectTarget, path: path) { () throws(SystemCallError) in
      try FileStatus.of(portal.path, followSymlinks: false)
    }
    let kind = try TargetKind(of: status, at: path)
    return TargetSnapshot(
      path: host, kind: kind,
      identity: TargetIdentity(
        fileHandle: nil, inode: 0, generation: nil, birthTime: nil, size: status.size,
        modificationTime: status.modificationTime),
      volume: VolumeHint(filesystemID: nil, mountPoint: nil))
  }
}
