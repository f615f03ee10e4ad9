import DocbmCLI
import DocbmTestSupport
import DocumentBookmarks
import Foundation
import Glibc
import Testing

/// `docbm save` on real files: crashes, full and read-only filesystems, other users.
@Suite("docbm save end to end")
struct SaveEndToEndTests {
  let docbm = Capabilities.docbmExecutable

  private func contents(_ path: FilePath) -> String {
    (try? String(contentsOfFile: path.description, encoding: .utf8)) ?? "<unreadable>"
  }

  @Test("saves standard input or --from, keeping the key; refuses hard links unless told")
  func saves() throws {
    let scratch = try Scratch()
    let document = try scratch.file("doc.txt", "old")
    #expect(run(docbm, ["bookmark", document.description, try scratch.file("t").description]).status == 0)
    let fingerprint = try BookmarkService(escrow: nil).documents(anchoredOn: document).keyFingerprint()

    let fromInput = run(docbm, ["save", document.description], input: "from standard input")
    #expect(fromInput.status == 0, "\(fromInput.error)")
    #expect(contents(document) == "from standard input")
    let source = try scratch.file("source.txt", "from a file")
    let fromFile = run(docbm, ["save", "--from", source.description, document.description])
    #expect(fromFile.status == 0)
    #expect(contents(document) == "from a file")
    #expect(try BookmarkService(escrow: nil).documents(anchoredOn: document).keyFingerprint() == fingerprint)

    #expect(link(document.description, scratch.path("other-name").description) == 0)
    let refused = run(docbm, ["save", "--json", document.description], input: "x")
    #expect(refused.status == 1)
    #expect(refused.output.contains("\"code\" : \"hardLinked\""))
    #expect(contents(document) == "from a file")
    #expect(run(docbm, ["save", "--split-hard-links", document.description], input: "x").status == 0)
    #expect(contents(document) == "x")
  }

  @Test("killed with SIGKILL at random instants, a save leaves the old or the new version, with its key")
  func crashSafety() throws {
    let scratch = try Scratch()
    let versions = [
      String(repeating: "A", count: 256 * 1024), String(repeating: "B", count: 256 * 1024),
    ]
    let sources = try versions.enumerated().map { try scratch.file("version\($0.offset)", $0.element) }
    let document = try scratch.file("doc.txt", versions[0])
    let anchored = BookmarkService(escrow: nil).documents(anchoredOn: document)
    _ = try anchored.makeBookmark(to: try scratch.file("target"))
    let fingerprint = try anchored.keyFingerprint()

    // How long one save takes here, to spread the kills over it.
    let start = DispatchTime.now().uptimeNanoseconds
    for source in sources { run(docbm, ["save", "--from", source.description, document.description]) }
    let saveMicroseconds = Int((DispatchTime.now().uptimeNanoseconds - start) / 2_000)

    var generator = SystemRandomNumberGenerator()
    var kills = 0
    var attempts = 0
    // The kills land within this many microseconds of the start; it follows the saves'
    // speed, which a loaded machine changes as the test runs: narrower after a save that
    // ended before its kill, wider after one that was killed.
    var window = max(saveMicroseconds, 100)
    while kills < 200 && attempts < 2_000 {
      attempts += 1
      let process = Process()
      process.executableURL = URL(fileURLWithPath: docbm)
      process.arguments = ["save", "--from", sources[attempts % 2].description, document.description]
      process.environment = childEnvironment()
      process.standardOutput = FileHandle.nullDevice
      process.standardError = FileHandle.nullDevice
      try process.run()
      usleep(UInt32(Int.random(in: 0...window, using: &generator)))
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
      if process.terminationReason == .uncaughtSignal {
        kills += 1
        window = min(window * 11 / 10 + 1, max(saveMicroseconds, 100) * 4)
      } else {
        window = max(window / 2, 100)
      }
      let now = contents(document)
      #expect(
        versions.contains(now),
        "after attempt \(attempts) the document holds \(now.count) bytes of neither version")
      #expect(try anchored.keyFingerprint() == fingerprint, "after attempt \(attempts) the key is gone")
    }
    #expect(kills >= 200, "only \(kills) of \(attempts) saves were killed before they ended")
    // The next save sweeps what the killed ones left, once it is old enough to be safe
    // (ten minutes unmodified): age the leftovers instead of waiting.
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: scratch.root.description)
      .filter { $0.contains(".docbm-save-") }
    for name in leftovers {
      var times = [
        timespec(tv_sec: time(nil) - 3600, tv_nsec: 0), timespec(tv_sec: time(nil) - 3600, tv_nsec: 0),
      ]
      utimensat(AT_FDCWD, scratch.root.description + "/" + name, &times, AT_SYMLINK_NOFOLLOW)
    }
    #expect(run(docbm, ["save", "--from", sources[0].description, document.description]).status == 0)
    let left = try FileManager.default.contentsOfDirectory(atPath: scratch.root.description)
      .filter { $0.contains(".docbm-save-") }
    #expect(left.isEmpty, "\(left)")
    print(
      "crash safety: \(kills) saves killed in \(attempts) attempts; every one left a whole version with its key"
    )
  }

  @Test("two processes saving at once: one whole version, and the key")
  func concurrentProcesses() async throws {
    let scratch = try Scratch()
    let versions = [String(repeating: "first ", count: 50_000), String(repeating: "second ", count: 50_000)]
    let sources = try versions.enumerated().map { try scratch.file("v\($0.offset)", $0.element) }
    let document = try scratch.file("doc", "start")
    let anchored = BookmarkService(escrow: nil).documents(anchoredOn: document)
    _ = try anchored.makeBookmark(to: try scratch.file("t"))
    let fingerprint = try anchored.keyFingerprint()
    for _ in 0..<10 {
      let results = await withTaskGroup(of: ProcessResult.self) { group in
        for source in sources {
          group.addTask { run(docbm, ["save", "--from", source.description, document.description]) }
        }
        return await group.reduce(into: []) { $0.append($1) }
      }
      #expect(results.allSatisfy { $0.status == 0 }, "\(results.map(\.error))")
      #expect(versions.contains(contents(document)))
      #expect(try anchored.keyFingerprint() == fingerprint)
    }
  }

  @Test("a full disk, a filesystem without attributes, a read-only remount")
  func realFilesystemFaults() throws {
    guard Capabilities.canMountPrivately else {
      print("skipped: mounting test filesystems needs root and unshare -m")
      return
    }
    let scratch = try Scratch()
    let big = try scratch.file("big", String(repeating: "x", count: 4 * 1024 * 1024))
    let mountPoint = try scratch.folder("mnt")
    // Each case prints what it saw; the test reads the lines back.
    let script = """
      set -u
      m='\(mountPoint)'; d="$m/doc"; docbm='\(docbm)'
      check() { printf '%s exit=%s content=%s key=%s leftovers=%s\\n' "$1" "$2" "$(cat "$d" 2>/dev/null | head -c 20)" \
        "$("$docbm" inspect "$d" 2>/dev/null | grep -c 'key:.*present')" "$(ls -A "$m" | grep -c docbm-save)"; }

      mount -t tmpfs -o size=1m none "$m" || exit 77
      printf 'original' > "$d" && echo t > "$m/t" && "$docbm" bookmark "$d" "$m/t" > /dev/null
      "$docbm" save --from '\(big)' "$d" 2> "$m.err"; check full $?; cat "$m.err"
      umount "$m"

      mount -t ramfs none "$m"
      printf 'original' > "$d"
      printf 'replaced' | "$docbm" save "$d" 2> "$m.err"; check ramfs $?; cat "$m.err"
      umount "$m"

      mount -t tmpfs -o size=1m none "$m"
      printf 'original' > "$d" && echo t > "$m/t" && "$docbm" bookmark "$d" "$m/t" > /dev/null
      mount -o remount,ro "$m"
      printf 'replaced' | "$docbm" save "$d" 2> "$m.err"; check readonly $?; cat "$m.err"
      umount "$m"
      """
    let result = run("/usr/bin/unshare", ["-m", "--propagation", "private", "/bin/sh", "-c", script])
    if result.status == 77 {
      print("skipped: tmpfs cannot be mounted here: \(result.error)")
      return
    }
    let lines = result.output.split(separator: "\n").map(String.init)
    #expect(lines.contains("full exit=1 content=original key=1 leftovers=0"), "\(result.output)")
    #expect(lines.contains { $0.hasPrefix("Error: noSpace:") && !$0.contains("step") })
    #expect(lines.contains("ramfs exit=0 content=replaced key=0 leftovers=0"), "\(result.output)")
    #expect(lines.contains("readonly exit=1 content=original key=1 leftovers=0"), "\(result.output)")
    #expect(lines.contains { $0.hasPrefix("Error: readOnlyFilesystem:") })
  }

  @Test("as another user: refused in a folder it cannot write; its own document keeps its owner")
  func droppedPrivileges() throws {
    guard Capabilities.canDropPrivileges else {
      print(Capabilities.cannotDropPrivileges)
      return
    }
    let scratch = try Scratch()
    chmod(scratch.root.description, 0o755)
    func asNobody(_ arguments: [String], input: String) -> ProcessResult {
      runAsNobody(docbm, arguments, input: input)
    }
    // A folder owned by root: nobody may write the document but not make files beside it.
    let locked = try scratch.folder("locked")
    let lockedDocument = try scratch.file("locked/doc", "original")
    chown(lockedDocument.description, 65534, 65534)
    let refused = asNobody(["save", lockedDocument.description], input: "new")
    #expect(refused.status == 1)
    #expect(refused.error.contains("permissionDenied"), "\(refused.error)")
    #expect(!refused.error.contains("step"), "the save step is the library's word, not the user's")
    #expect(contents(lockedDocument) == "original")
    _ = locked

    // nobody's own folder and document: saved, still nobody's, key kept.
    let own = try scratch.folder("own")
    chown(own.description, 65534, 65534)
    let ownDocument = try scratch.file("own/doc", "original")
    chown(ownDocument.description, 65534, 65534)
    chmod(ownDocument.description, 0o600)
    #expect(asNobody(["bookmark", ownDocument.description, ownDocument.description], input: "").status == 0)
    let saved = asNobody(["save", ownDocument.description], input: "new")
    #expect(saved.status == 0, "\(saved.error)")
    let status = try FileManager.default.attributesOfItem(atPath: ownDocument.description)
    #expect((status[.ownerAccountID] as? NSNumber)?.intValue == 65534)
    #expect((status[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    #expect(contents(ownDocument) == "new")
    #expect(try BookmarkService(escrow: nil).documents(anchoredOn: ownDocument).keyFingerprint() != nil)
  }

  /// Runs docbm as nobody (65534) with `groups` as its supplementary groups.
  /// A scratch folder others may enter, with `shared/` inside it that everyone may write.
  private func sharedFolder() throws -> (scratch: Scratch, shared: FilePath) {
    let scratch = try Scratch()
    chmod(scratch.root.description, 0o755)
    let shared = try scratch.folder("shared")
    chmod(shared.description, 0o777)
    return (scratch, shared)
  }

  private func asNobody(_ arguments: [String], input: String, groups: [Int] = []) -> ProcessResult {
    runAsNobody(docbm, arguments, groups: groups, input: input)
  }

  private func owner(_ path: FilePath) throws -> (user: Int, group: Int) {
    let status = try FileManager.default.attributesOfItem(atPath: path.description)
    return (
      (status[.ownerAccountID] as? NSNumber)?.intValue ?? -1,
      (status[.groupOwnerAccountID] as? NSNumber)?.intValue ?? -1
    )
  }

  @Test(
    "another user's document in a shared folder: refused before writing, unless the owner change is allowed")
  func ownerChange() throws {
    guard Capabilities.canDropPrivileges else {
      print(Capabilities.cannotDropPrivileges)
      return
    }
    let (scratch, shared) = try sharedFolder()
    let document = try scratch.file("shared/doc", "original")
    chmod(document.description, 0o666)
    #expect(run(docbm, ["bookmark", document.description, try scratch.file("t").description]).status == 0)

    let refused = asNobody(["save", "--json", document.description], input: "new")
    #expect(refused.status == 1, "\(refused.output)")
    #expect(refused.output.contains("\"code\" : \"ownerChanged\""), "\(refused.output)")
    #expect(refused.output.contains("\"recommendation\" : \"confirmSave\""))
    #expect(refused.output.contains("\"step\" : \"inspectDocument\""))
    #expect(contents(document) == "original")
    #expect(try owner(document) == (0, 0))
    let left = try FileManager.default.contentsOfDirectory(atPath: shared.description)
    #expect(left == ["doc"], "\(left)")

    let allowed = asNobody(["save", "--allow-owner-change", document.description], input: "new")
    #expect(allowed.status == 0, "\(allowed.error)")
    #expect(contents(document) == "new")
    #expect(try owner(document) == (65534, 65534))
    #expect(try BookmarkService(escrow: nil).documents(anchoredOn: document).keyFingerprint() != nil)
  }

  @Test("a read-only document is refused before writing, unless allowed; the save keeps its mode")
  func readOnlyDocument() throws {
    let scratch = try Scratch()
    let document = try scratch.file("ro.json", "original")
    #expect(run(docbm, ["bookmark", document.description, try scratch.file("t").description]).status == 0)
    chmod(document.description, 0o444)

    let refused = run(docbm, ["save", document.description], input: "new")
    #expect(refused.status == 1)
    #expect(refused.error.hasPrefix("Error: readOnlyDocument:"), "\(refused.error)")
    #expect(refused.error.contains("lets no one write it"), "\(refused.error)")
    #expect(refused.error.contains("docbm save --allow-read-only"), "\(refused.error)")
    // In the user's terms: no step or Swift names (the JSON keeps the step, as data).
    #expect(!refused.error.contains("step") && !refused.error.contains("ReplaceOptions"), "\(refused.error)")
    #expect(contents(document) == "original")
    let json = run(docbm, ["save", "--json", document.description], input: "new")
    #expect(json.output.contains("\"recommendation\" : \"confirmSave\""), "\(json.output)")
    #expect(json.output.contains("\"step\" : \"inspectDocument\""), "\(json.output)")

    let allowed = run(docbm, ["save", "--allow-read-only", document.description], input: "new")
    #expect(allowed.status == 0, "\(allowed.error)")
    #expect(contents(document) == "new")
    let status = try FileManager.default.attributesOfItem(atPath: document.description)
    #expect((status[.posixPermissions] as? NSNumber)?.intValue == 0o444)
    #expect(try BookmarkService(escrow: nil).documents(anchoredOn: document).keyFingerprint() != nil)

    // Another user's document that only its owner may write, in a folder anyone may write:
    // read-only to the saver, which is said before the owner change.
    guard Capabilities.canDropPrivileges else {
      print(Capabilities.cannotDropPrivileges)
      return
    }
    let (shared, _) = try sharedFolder()
    let owned = try shared.file("shared/doc", "original")
    chmod(owned.description, 0o644)
    let other = asNobody(["save", owned.description], input: "new")
    #expect(other.status == 1)
    #expect(other.error.hasPrefix("Error: readOnlyDocument:"), "\(other.error)")
    #expect(other.error.contains("does not let user 65534 write it"), "\(other.error)")
    #expect(contents(owned) == "original")
  }

  @Test("the group is kept only by a member of it, or through a set-group-ID folder")
  func groupChange() throws {
    guard Capabilities.canDropPrivileges else {
      print(Capabilities.cannotDropPrivileges)
      return
    }
    let (scratch, _) = try sharedFolder()
    // nobody's own document, in a group it does not belong to.
    let document = try scratch.file("shared/doc", "original")
    chown(document.description, 65534, 100)
    chmod(document.description, 0o664)

    let refused = asNobody(["save", document.description], input: "new")
    #expect(refused.status == 1)
    #expect(refused.error.hasPrefix("Error: ownerChanged:"), "\(refused.error)")
    #expect(refused.error.contains("group 100"))
    #expect(contents(document) == "original")

    // A member of the group (a supplementary group) keeps it.
    let member = asNobody(["save", document.description], input: "by a member", groups: [100])
    #expect(member.status == 0, "\(member.error)")
    #expect(contents(document) == "by a member")
    #expect(try owner(document) == (65534, 100))

    // In a set-group-ID folder of that group the new version gets the group anyway.
    let project = try scratch.folder("project")
    chown(project.description, 0, 100)
    chmod(project.description, 0o2777)
    let inherited = try scratch.file("project/doc", "original")
    chown(inherited.description, 65534, 100)
    let saved = asNobody(["save", inherited.description], input: "new")
    #expect(saved.status == 0, "\(saved.error)")
    #expect(try owner(inherited) == (65534, 100))
  }
}
