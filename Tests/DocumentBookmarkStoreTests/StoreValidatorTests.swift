import DocbmSystem
import DocbmTestSupport
import DocumentBookmarks
import Foundation
import Glibc
import Synchronization
import Testing

@testable import DocumentBookmarkStore

/// The refusal an add throws, or `nil` when it adds (or fails otherwise).
private func refusal(_ add: () async throws -> Void) async -> (validator: String, reason: String)? {
  do {
    try await add()
    return nil
  } catch {
    guard case .refused(let validator, _, let reason) = error as? BookmarkStoreError<String> else {
      return nil
    }
    return (validator, reason)
  }
}

@Suite("Store validators")
struct StoreValidatorTests {
  @Test("directoryOnly and fileOnly refuse the other kind, before anything is written")
  func kinds() async throws {
    let files = try StoreScratch()
    let folders = files.store(StorePolicy(validators: [.directoryOnly]))
    let file = try files.scratch.file("notes.txt")
    let refused = await refusal { try await folders.add(target: file, key: "notes") }
    #expect(refused?.validator == "directoryOnly")
    #expect(!FileManager.default.fileExists(atPath: files.storePath.description), "nothing written")
    try await folders.add(target: try files.scratch.folder("project"), key: "project")

    let onlyFiles = StoreScratch(sharing: files, name: "files.json").store(
      StorePolicy(validators: [.fileOnly]))
    #expect(
      await refusal { try await onlyFiles.add(target: files.scratch.path("project"), key: "p") }?.validator
        == "fileOnly")
    try await onlyFiles.add(target: file, key: "notes")
  }

  @Test("notTooBroad refuses the root, top-level folders and the home with what holds it")
  func tooBroad() async throws {
    let files = try StoreScratch()
    let store = files.store(StorePolicy(validators: [.notTooBroad]))
    for path in ["/", "/usr", "/tmp"] {
      #expect(
        await refusal { try await store.add(target: FilePath(path), key: path) }?.validator == "notTooBroad",
        "\(path)")
    }
    if let home = ProcessInfo.processInfo.environment["HOME"], home.count > 1 {
      // Root's home, /root, is a top-level folder too; a user's, /home/ann, is the home.
      let expected =
        FilePath(home).components.count == 1 ? "it is a top-level folder" : "it is the home folder"
      #expect(await refusal { try await store.add(target: FilePath(home), key: "home") }?.reason == expected)
      let parent = FilePath(home).removingLastComponent
      #expect(await refusal { try await store.add(target: parent, key: "above") }?.validator == "notTooBroad")
    }
    // A folder deeper than the top level, outside the home's line, passes: as a disk's
    // mount point under /media would.
    try await store.add(target: try files.scratch.folder("Photos"), key: "photos")

    // A user's home below the top level: it and what holds it are refused, inside it passes.
    let home = try files.scratch.folder("users/ann")
    let homes = StoreScratch(sharing: files, name: "homes.json").store(
      StorePolicy(validators: [.notTooBroad(home: home)]))
    #expect(
      await refusal { try await homes.add(target: home, key: "home") }?.reason == "it is the home folder")
    let above = await refusal { try await homes.add(target: files.scratch.path("users"), key: "users") }
    #expect(above?.reason == "it holds the home folder")
    try await homes.add(target: try files.scratch.folder("users/ann/projects"), key: "projects")
  }

  @Test("noOverlap refuses a folder inside a stored one and one that holds it; a sibling passes")
  func overlap() async throws {
    let files = try StoreScratch()
    let store = files.store(StorePolicy(validators: [.directoryOnly, .noOverlap]))
    let project = try files.scratch.folder("work/project")
    try await store.add(target: project, key: "project")
    let inner = try files.scratch.folder("work/project/src")
    let inside = await refusal { try await store.add(target: inner, key: "src") }
    #expect(inside?.validator == "noOverlap")
    #expect(inside?.reason.contains("is inside") == true)
    let holds = await refusal { try await store.add(target: files.scratch.path("work"), key: "work") }
    #expect(holds?.reason.contains("holds") == true)
    // A sibling whose name starts with the project's is not inside it.
    try await store.add(target: try files.scratch.folder("work/project-notes"), key: "notes")
    // The same folder again is a duplicate, which the policy's duplicates rule decides.
    do {
      try await store.add(target: project, key: "again")
      Issue.record("a duplicate was added")
    } catch {
      guard case .duplicate(of: "project") = error else {
        Issue.record("expected a duplicate, got \(error)")
        return
      }
    }
  }

  @Test("noSymbolicLink refuses a link; an app's own validator refuses by its own rule")
  func linksAndCustom() async throws {
    let files = try StoreScratch()
    let folder = try files.scratch.folder("real")
    let link = files.scratch.path("link")
    #expect(symlink(folder.description, link.description) == 0)
    let store = files.store(StorePolicy(validators: [.noSymbolicLink]))
    let refused = await refusal { try await store.add(target: link, key: "link") }
    #expect(refused?.validator == "noSymbolicLink")
    try await store.add(target: folder, key: "real")

    let noHidden = StoreValidator(name: "noHidden") { candidate in
      candidate.resolvedPath.lastComponent.first == UInt8(ascii: ".") ? "it is hidden" : nil
    }
    let custom = StoreScratch(sharing: files, name: "custom.json").store(StorePolicy(validators: [noHidden]))
    let hidden = await refusal {
      try await custom.add(target: try files.scratch.folder(".cache"), key: "cache")
    }
    #expect(hidden?.validator == "noHidden")
    #expect(hidden?.reason == "it is hidden")
    do {
      try await custom.add(target: try files.scratch.folder(".config"), key: "config")
    } catch {
      #expect("\(error)".contains("noHidden check refuses it, since it is hidden"))
    }
  }

  @Test("a folder flipped to a link to / while it is added: never stored, refused as sameTarget")
  func flippedToRoot() async throws {
    let files = try StoreScratch()
    let project = try files.scratch.folder("project")
    let link = files.scratch.path("project.link")
    #expect(symlink("/", link.description) == 0)
    let store = files.store(StorePolicy(validators: [.notTooBroad, .noSymbolicLink]))
    // A thread swaps the folder with a link to / (renameat2 RENAME_EXCHANGE: the name
    // always holds one of the two), as fast as it can, until the adds are done. A thread,
    // not a process: a child would hold the pipes of the tests running beside it.
    let folder = try FileDescriptor.open(files.scratch.root, [.readOnly, .directory])
    defer { folder.close() }
    let stop = Atomic<Bool>(false)
    let stopped = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
      while !stop.load(ordering: .relaxed) {
        try? folder.exchange(FilePath("project"), with: FilePath("project.link"), in: folder)
      }
      stopped.signal()
    }
    var added = 0
    var changed = 0
    for round in 0..<300 {
      do {
        let record = try await store.add(target: project, key: "p\(round)")
        added += 1
        #expect(record.lastKnownPath == project, "stored \(record.lastKnownPath)")
        _ = try await store.forget(record.key)
      } catch {
        if case .refused(let validator, _, _) = error, validator == StoreValidator.sameTarget { changed += 1 }
      }
    }
    stop.store(true, ordering: .relaxed)
    stopped.wait()
    #expect(!store.records.contains { $0.lastKnownPath.components.count <= 1 })
    #expect(added > 0, "no add went through: the race proved nothing")
    print("flipped while added: \(added) added, \(changed) refused as changed, of 300")
  }

  @Test("a target that does not exist is not judged: the add fails with notFound")
  func missingTarget() async throws {
    let files = try StoreScratch()
    let store = files.store(StorePolicy(validators: [.directoryOnly]))
    do {
      try await store.add(target: files.scratch.path("nowhere"), key: "x")
      Issue.record("added a target that does not exist")
    } catch {
      #expect(error.code == .notFound, "\(error)")
    }
  }
}

@Suite("updateLastKnownPath")
struct UpdateLastKnownPathTests {
  @Test("a hint for a bookmarked record until it resolves; a path-only record is bookmarked there")
  func hintAndPathOnly() async throws {
    let files = try StoreScratch()
    let store = files.store()
    let plan = try files.scratch.file("plan.txt")
    try await store.add(target: plan, key: "plan")
    let hinted = try await store.updateLastKnownPath("plan", to: files.scratch.path("elsewhere/plan.txt"))
    #expect(hinted.lastKnownPath == files.scratch.path("elsewhere/plan.txt"))
    // Resolving the bookmark puts the real path back.
    #expect(try await store.resolve("plan").path == plan)
    #expect(store.records.first { $0.key == "plan" }?.lastKnownPath == plan)

    // A path-only record whose file the app saved somewhere else: bookmarked there.
    try await store.add(pathOnly: files.scratch.path("draft.txt"), key: "draft")
    let saved = try files.scratch.file("final/draft.txt")
    try await store.updateLastKnownPath("draft", to: saved)
    #expect(try await store.resolve("draft").path == saved)
    #expect(store.records.first { $0.key == "draft" }?.hasBookmark == true)

    do {
      try await store.updateLastKnownPath("nothing", to: saved)
      Issue.record("updated a record that is not there")
    } catch {
      #expect("\(error)".contains("no record with the key nothing"))
    }
  }
}
