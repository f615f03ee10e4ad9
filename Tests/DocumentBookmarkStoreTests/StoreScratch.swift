import DocbmSystem
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
    BookmarkStore(
      file: storePath, policy: policy, service: BookmarkService(escrow: nil), followsOtherProcesses: follows)
  }

  /// The store file's bytes.
  func storeBytes() throws -> [UInt8] { Array(try Data(contentsOf: storePath.url)) }

  /// `<store>.journal`: a 0.1 store's changes since its JSON file was last written whole.
  var journalPath: FilePath { FilePath(storePath.description + ".journal") }

  /// The store as JSON (what `docbm store export` prints), parsed.
  func exported() throws -> [String: Any] {
    let bytes = try StoreCore<String, NoMetadata>(
      file: storePath, policy: StorePolicy(), service: BookmarkService(escrow: nil)
    ).exportJSON()
    return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
  }

  /// Writes `object` over the store file in place, as a copy of a 0.1 store written over it
  /// would (the key stays on the file).
  func writeJSON(_ object: [String: Any]) throws {
    try scratch.makeParents(of: storePath)
    let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    if !FileManager.default.fileExists(atPath: storePath.description) {
      _ = FileManager.default.createFile(atPath: storePath.description, contents: nil)
    }
    let handle = try FileHandle(forWritingTo: storePath.url)
    try handle.truncate(atOffset: 0)
    try handle.write(contentsOf: data)
    try handle.close()
  }

  /// The store's database, opened for a test to look into or alter.
  func database() throws -> SQLiteDatabase { try SQLiteDatabase(storePath) }

  /// The store file's inode, size and modification time: what tells whether anything was
  /// written.
  func storeVersion() -> String {
    var info = stat()
    guard stat(storePath.description, &info) == 0 else { return "none" }
    return "\(info.st_ino):\(info.st_size):\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
  }

  /// Runs `body` with a save fault for the whole process (the store saves on its own
  /// threads), limited to this scratch folder, so that other tests' faults do not conflict.
  func withFault(_ fault: SaveFault, _ body: () async throws -> Void) async throws {
    try await withProcessWideSaveFault(fault, in: scratch.path(".")) { try await body() }
  }

  /// The store file's key fingerprint.
  func fingerprint() throws -> KeyFingerprint? {
    try BookmarkService(escrow: nil).documents(anchoredOn: storePath).keyFingerprint()
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
