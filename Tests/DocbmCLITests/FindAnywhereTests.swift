import DocbmTestSupport
import DocumentBookmarks
import Foundation
import Testing

/// Targets moved the ways users reorganise a home folder, resolved on a filesystem of their
/// own (a tmpfs in a private mount namespace, so that "the whole filesystem" is the test's
/// alone): every target that still exists on its filesystem is found, never by name; only
/// a deleted one is `missing`; a search that stopped sooner says `notFoundNearby`.
@Suite("Finding a moved target anywhere on its filesystem")
struct FindAnywhereTests {
  let docbm = Capabilities.docbmExecutable

  /// Where each target goes, relative to the mount (`$m`): `nil` deletes it.
  static let moves: [(name: String, to: String?)] = [
    ("renamed in place", "home/Documents/Projects/board/img/renamed.png"),
    ("a sibling folder", "home/Documents/Projects/board/thumbs/t.png"),
    ("Pictures", "home/Pictures/2025/07/t.png"),
    ("Downloads", "home/Downloads/t.png"),
    ("Music", "home/Music/Artist/Album/t.png"),
    ("the home itself", "home/t.png"),
    ("a deep archive", "home/Archive/2019/a/b/c/d/e/f/t.png"),
    ("a new folder tree", "home/new/x/y/z/t.png"),
    ("a hidden folder", "home/.cache/stash/t.png"),
    ("renamed, then moved", "home/Archive/renamed-then-moved.png"),
    ("another project", "home/Documents/Projects/other/t.png"),
    ("the Desktop", "home/Desktop/t.png"),
    ("deep in the filler", "home/stuff/s3/d33/t.png"),
    ("another user's shared folder", "srv/shared/t.png"),
    ("behind a planted link", "elsewhere/deep/t.png"),
    ("a folder only root reads", "private/t.png"),
    ("the Trash", "home/.local/share/Trash/files/t.png"),
    ("another filesystem", "other/t.png"),
    ("deleted", nil),
  ]

  /// The shell script that makes the home on a tmpfs at `$m`, bookmarks 22 targets (the
  /// last three inside `img/sub`), makes the moves, then resolves every bookmark together
  /// as root, as `nobody`, and with the narrower searches.
  private func script(mount: String) -> String {
    var lines = [
      "m='\(mount)'", "docbm='\(docbm)'",
      "mount -t tmpfs none \"$m\" || exit 77",
      "set -e",
      "H=\"$m/home\"; P=\"$H/Documents/Projects/board\"",
      "mkdir -p \"$P/img/sub\" \"$m/escrow\" \"$m/escrow-nobody\" \"$H/links\"",
      "chown 65534:65534 \"$m/escrow-nobody\"",
      "export HOME=\"$H\" DOCBM_ESCROW_DIR=\"$m/escrow\" XDG_DATA_HOME=\"$H/.local/share\"",
      // A home of 50,000 filler files in 500 folders.
      "i=0; while [ $i -lt 500 ]; do d=\"$H/stuff/s$((i % 10))/d$i\"; mkdir -p \"$d\"",
      "  f=0; while [ $f -lt 100 ]; do : > \"$d/f$f.jpg\"; f=$((f + 1)); done",
      "  i=$((i + 1)); done",
      "echo board > \"$P/board.txt\"",
    ]
    let count = Self.moves.count
    for index in 0..<count {
      lines.append("echo 't\(index)' > \"$P/img/t\(index).png\"")
      lines.append("\"$docbm\" bookmark \"$P/board.txt\" \"$P/img/t\(index).png\" >> \"$m/bookmarks\"")
    }
    // Three more, moved with their folder.
    for index in count..<(count + 3) {
      lines.append("echo 't\(index)' > \"$P/img/sub/t\(index).png\"")
      lines.append("\"$docbm\" bookmark \"$P/board.txt\" \"$P/img/sub/t\(index).png\" >> \"$m/bookmarks\"")
    }
    lines += [
      // Another filesystem inside, and a folder only root reads.
      "mkdir -p \"$m/other\" \"$m/private\" \"$m/srv/shared\" \"$m/elsewhere\"",
      "mount -t tmpfs none \"$m/other\"",
      "chmod 700 \"$m/private\"",
      // Links planted in the walk: a loop, and a link to the folder the target goes to.
      "ln -s \"$H\" \"$H/links/loop\"", "ln -s \"$m/elsewhere\" \"$H/aaa-link\"",
      "mkdir -p \"$H/Archive\"",
      "mv \"$P/img/sub\" \"$H/Archive/old-img\"",
    ]
    for (index, move) in Self.moves.enumerated() {
      guard let destination = move.to else {
        lines.append("rm \"$P/img/t\(index).png\"")
        continue
      }
      if move.name == "renamed, then moved" {
        lines.append("mv \"$P/img/t\(index).png\" \"$P/img/old-name.png\"")
        lines.append("mkdir -p \"$(dirname \"$m/\(destination)\")\"")
        lines.append("mv \"$P/img/old-name.png\" \"$m/\(destination)\"")
        continue
      }
      lines.append("mkdir -p \"$(dirname \"$m/\(destination)\")\"")
      lines.append("mv \"$P/img/t\(index).png\" \"$m/\(destination)\"")
    }
    lines += [
      "set +e",
      "echo '== root'", "\"$docbm\" resolve --json \"$P/board.txt\" - < \"$m/bookmarks\"",
      "echo '== nobody'",
      "setpriv --reuid=65534 --regid=65534 --clear-groups env DOCBM_ESCROW_DIR=\"$m/escrow-nobody\" \"$docbm\" resolve --json \"$P/board.txt\" - < \"$m/bookmarks\"",
      "echo '== nearby'",
      "\"$docbm\" resolve --json --search nearby \"$P/board.txt\" - < \"$m/bookmarks\"",
      "echo '== no time'",
      "\"$docbm\" resolve --json --search-time 0 \"$P/board.txt\" - < \"$m/bookmarks\"",
      "echo '== end'",
    ]
    return lines.joined(separator: "\n")
  }

  /// The JSON objects printed after `== section`, one per bookmark.
  private func section(_ name: String, of output: String) -> [[String: Any]] {
    guard let start = output.range(of: "== \(name)\n") else { return [] }
    let rest = output[start.upperBound...]
    let end = rest.range(of: "\n== ")?.lowerBound ?? rest.endIndex
    return rest[..<end].split(separator: "\n").compactMap { line in
      (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }
  }

  private func code(_ object: [String: Any]) -> String? {
    (object["error"] as? [String: Any])?["code"] as? String
  }

  @Test("22 targets moved across a home: all that exist are found, the deleted one is missing, no other")
  func reorganisedHome() throws {
    guard Capabilities.canMountPrivately, Capabilities.canDropPrivileges else {
      print("skipped: mounting test filesystems needs root and unshare -m")
      return
    }
    let scratch = try Scratch()
    let mount = try scratch.folder("disk")
    chmod(scratch.root.description, 0o755)
    let result = run(
      "/usr/bin/unshare",
      ["-m", "--propagation", "private", "/bin/sh", "-c", script(mount: mount.description)])
    if result.status == 77 {
      print("skipped: tmpfs cannot be mounted here (\(result.error))")
      return
    }
    let root = section("root", of: result.output)
    let count = Self.moves.count
    try #require(root.count == count + 3, "\(result.output)\n\(result.error)")
    for (index, move) in Self.moves.enumerated() {
      let object = root[index]
      switch move.name {
      case "deleted":
        #expect(code(object) == "missing", "\(move.name): \(object)")
        #expect((object["error"] as? [String: Any])?["recommendation"] as? String == "forget")
      case "another filesystem":
        // A move to another filesystem is a copy: a new file there, never taken.
        #expect(code(object) == "missing", "\(move.name): \(object)")
      default:
        let expected = "\(mount)/\(move.to!)"
        #expect(object["path"] as? String == expected, "\(move.name): \(object)")
      }
    }
    for index in count..<(count + 3) {
      #expect(
        root[index]["path"] as? String == "\(mount)/home/Archive/old-img/t\(index).png", "\(root[index])")
    }
    #expect(root.contains { ($0["staleReasons"] as? [String])?.contains("inTrash") == true })

    // As another user: the folders only root reads (the private one, root's escrow) are
    // passed over, and said so; a target that may be in them is not called missing, nor is
    // the deleted one, since it too may be there.
    let nobody = section("nobody", of: result.output)
    try #require(nobody.count == count + 3, "\(result.output)\n\(result.error)")
    let privateIndex = try #require(Self.moves.firstIndex { $0.name == "a folder only root reads" })
    let deletedIndex = try #require(Self.moves.firstIndex { $0.name == "deleted" })
    for index in [privateIndex, deletedIndex] {
      let error = nobody[index]["error"] as? [String: Any]
      #expect(code(nobody[index]) == "notFoundNearby", "\(nobody[index])")
      #expect(error?["recommendation"] as? String == "pickAgain", "\(nobody[index])")
      let message = error?["message"] as? String ?? ""
      #expect(message.contains("folders you cannot read, which the walk passed over"), "\(message)")
    }
    #expect(!nobody.contains { code($0) == "missing" }, "\(nobody)")
    let sharedIndex = try #require(Self.moves.firstIndex { $0.name == "another user's shared folder" })
    #expect(nobody[sharedIndex]["path"] as? String == "\(mount)/srv/shared/t.png")

    // The narrower searches never say missing of a file that exists.
    for name in ["nearby", "no time"] {
      let narrow = section(name, of: result.output)
      try #require(narrow.count == count + 3, "\(name): \(result.output)")
      let picturesIndex = try #require(Self.moves.firstIndex { $0.name == "Pictures" })
      #expect(code(narrow[picturesIndex]) == "notFoundNearby", "\(name): \(narrow[picturesIndex])")
      #expect(
        (narrow[picturesIndex]["error"] as? [String: Any])?["recommendation"] as? String == "searchWider")
      #expect(!narrow.contains { code($0) == "missing" }, "\(name)")
    }
  }

  @Test("docbm relink takes a tree copied to another filesystem when kinds, sizes and times match, and saves")
  func relinkAcrossFilesystems() throws {
    guard Capabilities.canMountPrivately else {
      print("skipped: mounting test filesystems needs root and unshare -m")
      return
    }
    let scratch = try Scratch()
    let project = try scratch.folder("project")
    let disk = try scratch.folder("disk")
    let script = """
      set -e
      p='\(project)'; d='\(disk)'; docbm='\(docbm)'
      export DOCBM_ESCROW_DIR="$p/../escrow"
      mount -t tmpfs none "$d" || exit 77
      mkdir -p "$p/img/sub"
      echo a > "$p/img/a.png"; echo bb > "$p/img/sub/b.png"; echo c > "$p/img/c.png"
      echo board > "$p/board.txt"
      "$docbm" bookmark "$p/board.txt" "$p/img/a.png" "$p/img/sub/b.png" "$p/img/c.png" > "$p/../bookmarks"
      { echo board; cat "$p/../bookmarks"; } | "$docbm" save --from - "$p/board.txt"
      cp -a "$p/img" "$d/img"
      echo edited > "$d/img/c.png"
      rm -rf "$p/img"
      set +e
      echo '== relink'
      "$docbm" relink --json "$p/board.txt" "$p/img" "$d/img"
      echo "status $?"
      echo '== resolve'
      tail -n +2 "$p/board.txt" | "$docbm" resolve --search nearby "$p/board.txt" -
      echo '== end'
      """
    let result = run("/usr/bin/unshare", ["-m", "--propagation", "private", "/bin/sh", "-c", script])
    if result.status == 77 {
      print("skipped: tmpfs cannot be mounted here (\(result.error))")
      return
    }
    let output = result.output
    #expect(output.contains("status 1\n"), "\(output)\n\(result.error)")
    let start = try #require(output.range(of: "== relink\n")?.upperBound)
    let end = try #require(output.range(of: "status ")?.lowerBound)
    let report = try #require(
      try JSONSerialization.jsonObject(with: Data(output[start..<end].utf8)) as? [String: Any])
    #expect(report["saved"] as? Bool == true)
    let items = try #require(report["bookmarks"] as? [[String: Any]])
    #expect(items.map { $0["outcome"] as? String } == ["relinked", "relinked", "notTheTarget"])
    #expect(items.map { $0["rewritten"] as? Bool } == [true, true, false])
    // The saved document's bookmarks lead to the copies; the edited one is not taken.
    #expect(output.contains("== resolve\n\(disk)/img/a.png\n\(disk)/img/sub/b.png\n\n== end"), "\(output)")
  }
}
