import DocumentBookmarks

/// The records a change reads: those with its keys, and those whose target has one of its
/// inodes or paths (the records that may hold a target being added).
struct StoreScope<Key: Hashable & Sendable & Codable>: Sendable {
  var keys: [Key]
  var targets: [(inode: UInt64?, path: FilePath)] = []
}
