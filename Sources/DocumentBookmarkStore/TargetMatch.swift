import DocumentBookmarks

/// Whether two records (or a record and a path just read) hold the same target: by identity
/// when both have one (same filesystem, inode, and birth time or file handle where both are
/// known), else by path. Identity is what makes a renamed file a duplicate.
enum TargetMatch {
  static func isSame(
    _ a: (identity: TargetIdentity?, volume: VolumeHint?, path: FilePath),
    _ b: (identity: TargetIdentity?, volume: VolumeHint?, path: FilePath)
  ) -> Bool {
    guard let first = a.identity, let second = b.identity else {
      return a.path.lexicallyNormalized == b.path.lexicallyNormalized
    }
    if let x = a.volume?.filesystemID, let y = b.volume?.filesystemID, x != y { return false }
    guard first.inode == second.inode else { return false }
    if let x = first.birthTime, let y = second.birthTime { return x == y }
    if let x = first.fileHandle, let y = second.fileHandle { return x == y }
    if let x = first.generation, let y = second.generation { return x == y }
    return true
  }
}
