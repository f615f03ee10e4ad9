import DocbmTestSupport
import DocumentBookmarks
import Foundation
import Glibc

@testable import DocumentBookmarkStore

/// A scratch folder with a store file in it.
struct StoreScratch {
  let scratch: Scratch
  let storePath: FilePath

  init() throws {
    scratch = try Scratch()
    storePath = scratch.path("state/store.json")
  }

  func store(
    _ policy: StorePolicy = StorePolicy(), follows: Bool = false
  ) -> BookmarkStore<String, NoMetadata> {
    BookmarkStore(file: storePath, policy: policy, followsOtherProcesses: follows)
  }

  /// The store file's bytes.
  func storeBytes() throws -> [UInt8] { Array(try Data(contentsOf: storePath.url)) }

  /// The store file's inode and change time: what tells whether it was written.
  func storeVersion() -> String {
    var info = stat()
    guard stat(storePath.description, &info) == 0 else { return "none" }
    return "\(info.st_ino):\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
  }

  /// The store file's key fingerprint.
  func fingerprint() throws -> KeyFingerprint? {
    try BookmarkService().documents(anchoredOn: storePath).keyFingerprint()
  }
}
