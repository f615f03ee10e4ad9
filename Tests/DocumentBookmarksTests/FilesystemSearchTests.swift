import DocbmTestSupport
import Foundation
import Glibc
import Testing

@testable import DocumentBookmarks

/// The walk of a whole filesystem, run here over a scratch folder standing for a mount's
/// root (the library starts it at the real mount's root; the end-to-end tests do that on
/// a private tmpfs).
@Suite("Walking a whole filesystem")
struct FilesystemSearchTests {
  let scratch: Scratch

  init() throws {
    scratch = try Scratch()
  }

  private func matcher(_ path: FilePath) throws -> IdentityMatcher {
    let snapshot = try TargetSnapshot.read(path)
    return IdentityMatcher(kind: snapshot.kind, identity: snapshot.identity)
  }

  /// A home of `folders` folders of five files each, beside the walk's other root.
  private func fill(_ base: String, folders: Int) throws {
    for folder in 0..<folders {
      for file in 0..<5 { _ = try scratch.file("\(base)/f\(folder % 7)/d\(folder)/file\(file)") }
    }
  }

  @Test(
    "a target anywhere below the roots is found by identity, hidden folders too; another file of its name is not"
  )
  func findsAnywhere() throws {
    try fill("home/stuff", folders: 60)
    let target = try scratch.file("home/Documents/Projects/board/img/cat.png", "cat")
    let identity = try matcher(target)
    let moved = scratch.path("home/.hidden/a/b/c/d/e/f/g/kitten.png")
    try scratch.move(target, moved)
    _ = try scratch.file("home/Documents/Projects/board/img/cat.png", "another cat")
    let search = FilesystemSearch(timeLimit: nil, cancellation: nil)
    let outcome = try #require(
      search.find(identity, mountRoot: scratch.root, home: scratch.path("home")))
    #expect(outcome.found == moved)
    #expect(outcome.extent.roots == [scratch.path("home")])
  }

  @Test("a target that is gone is looked for in every folder once, and the walk says it is complete")
  func goneIsComplete() throws {
    try fill("home/stuff", folders: 40)
    try fill("srv", folders: 10)
    let target = try scratch.file("home/cat.png", "cat")
    let identity = try matcher(target)
    try scratch.remove(target)
    let search = FilesystemSearch(timeLimit: nil, cancellation: nil)
    let outcome = try #require(search.find(identity, mountRoot: scratch.root, home: scratch.path("home")))
    #expect(outcome.found == nil)
    #expect(outcome.extent.ending == .complete)
    #expect(outcome.extent.roots == [scratch.path("home"), scratch.root])
    // Every folder once: the home's folders are not listed again from the root.
    let folders = try FileManager.default.subpathsOfDirectory(atPath: scratch.root.description)
      .filter { path in
        var isFolder: ObjCBool = false
        _ = FileManager.default.fileExists(
          atPath: scratch.root.appending(path).description, isDirectory: &isFolder)
        return isFolder.boolValue
      }
    #expect(outcome.extent.foldersListed == folders.count + 1)
  }

  @Test("the targets of one call share the walk: a target passed already costs one listing, not a walk")
  func sharedWalk() throws {
    try fill("home/stuff", folders: 80)
    var targets: [(IdentityMatcher, FilePath)] = []
    for index in 0..<20 {
      let target = try scratch.file("home/Documents/t\(index).png", "t\(index)")
      let identity = try matcher(target)
      let moved = scratch.path("home/stuff/f\(index % 7)/d\(index)/moved\(index).png")
      try scratch.move(target, moved)
      targets.append((identity, moved))
    }
    let gone = try matcher(try scratch.file("gone.png"))
    try scratch.remove(scratch.path("gone.png"))
    let search = FilesystemSearch(timeLimit: nil, cancellation: nil)
    // The gone target first: the walk reads everything once.
    let first = try #require(search.find(gone, mountRoot: scratch.root, home: nil))
    #expect(first.extent.ending == .complete)
    for (identity, moved) in targets {
      let outcome = try #require(search.find(identity, mountRoot: scratch.root, home: nil))
      #expect(outcome.found == moved)
      #expect(outcome.extent.foldersListed == first.extent.foldersListed)
    }
  }

  @Test(
    "links planted in the walk are never followed: a loop ends, and a linked folder is reached by its own path"
  )
  func linksNotFollowed() throws {
    try fill("home/stuff", folders: 10)
    try scratch.symlink(scratch.path("home").description, at: scratch.path("home/stuff/loop"))
    let target = try scratch.file("home/cat.png", "cat")
    let identity = try matcher(target)
    let moved = scratch.path("elsewhere/deep/cat.png")
    try scratch.move(target, moved)
    try scratch.symlink(scratch.path("elsewhere").description, at: scratch.path("home/aaa-link"))
    let search = FilesystemSearch(timeLimit: nil, cancellation: nil)
    let outcome = try #require(search.find(identity, mountRoot: scratch.root, home: scratch.path("home")))
    #expect(outcome.found == moved)
    try scratch.remove(moved)
    let again = FilesystemSearch(timeLimit: nil, cancellation: nil)
    let gone = try #require(again.find(identity, mountRoot: scratch.root, home: scratch.path("home")))
    #expect(gone.found == nil)
    #expect(gone.extent.ending == .complete)
  }

  @Test("a cancelled call or a spent time limit stops the walk, and says which")
  func stops() throws {
    try fill("home/stuff", folders: 10)
    let target = try scratch.file("home/cat.png", "cat")
    let identity = try matcher(target)
    try scratch.move(target, scratch.path("home/stuff/f1/d1/cat.png"))
    let cancellation = SearchCancellation()
    cancellation.cancel()
    let cancelled = FilesystemSearch(timeLimit: nil, cancellation: cancellation)
    let outcome = try #require(cancelled.find(identity, mountRoot: scratch.root, home: nil))
    #expect(outcome.found == nil)
    #expect(outcome.extent.ending == .cancelled)
    #expect(outcome.extent.foldersListed == 0)
    let hurried = FilesystemSearch(timeLimit: .zero, cancellation: nil)
    let late = try #require(hurried.find(identity, mountRoot: scratch.root, home: nil))
    #expect(late.found == nil)
    #expect(late.extent.ending == .timeLimit)
  }
}
