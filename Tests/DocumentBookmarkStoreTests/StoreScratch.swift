import DocbmTestSupport
import DocumentBookmarks
import DocumentBookmarksTesting
import Foundation
import Glibc
import Testing

@testable import DocumentBookmarkStore

/// A scratch folder with a store file in it.
struct StoreScratch {
  let scratch: Scratch
  let storePath: FilePath

  init() throws {
    scratch = try Scratch()
    storePath = scratch.path("state/store.json")
  }

  /// A second store file, `state/NAME`, in the same scratch folder as `other`.
  init(sharing other: StoreScratch, name: String) {
    scratch = other.scratch
    storePath = other.scratch.path("state/\(name)")
  }

  func store(
    _ policy: StorePolicy = StorePolicy(), follows: Bool = false
  ) -> BookmarkStore<String, NoMetadata> {
    BookmarkStore(file: storePath, policy: policy, followsOtherProcesses: follows)
  }

  /// The store file's bytes.
  func storeBytes() throws -> [UInt8] { Array(try Data(contentsOf: storePath.url)) }

  /// `<store>.journal`: the changes since the store file was last written whole.
  var journalPath: FilePath { FilePath(storePath.description + ".journal") }

  /// The journal's bytes; empty when there is none.
  func journalBytes() -> [UInt8] { (try? Data(contentsOf: journalPath.url)).map(Array.init) ?? [] }

  /// Writes the store file whole, its journal folded in, so that the file alone holds every
  /// record (for tests that read or edit it).
  func compact() throws {
    try StoreCore<String, NoMetadata>(file: storePath, policy: StorePolicy(), service: BookmarkService())
      .compact()
  }

  /// The store file's and its journal's inodes and modification times: what tells whether
  /// anything was written.
  func storeVersion() -> String {
    [storePath, journalPath].map { path in
      var info = stat()
      guard stat(path.description, &info) == 0 else { return "none" }
      return "\(info.st_ino):\(info.st_size):\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
    }.joined(separator: " ")
  }

  /// Runs `body` with a save fault for the whole process (the store saves on its own
  /// threads), limited to this scratch folder, so that other tests' faults do not conflict.
  func withFault(_ fault: SaveFault, _ body: () async throws -> Void) async throws {
    try await withProcessWideSaveFault(fault, in: scratch.path(".")) { try await body() }
  }

  /// The store file's key fingerprint.
  func fingerprint() throws -> KeyFingerprint? {
    try BookmarkService().documents(anchoredOn: storePath).keyFingerprint()
  }
}

/// The docbm code of the store error `body` throws; `nil` when it throws none.
func failureCode(_ body: () async throws(BookmarkStoreError<String>) -> Void) async -> DocbmError.Code? {
  do {
    try await body()
    return nil
  } catch {
    return error.docbmError?.code
  }
}
