import DocbmSystem
import DocbmTestSupport
import Foundation
import Glibc
import Testing

@testable import DocumentBookmarks

@Suite("Mount table")
struct MountTableTests {
  /// Lines as the kernel writes them (the first is proc(5)'s example; the portal's is the
  /// one `xdg-document-portal` 1.16.0 makes).
  static let sample = """
    36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue
    27 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw,discard
    61 27 0:52 / /run/user/0/doc rw,nosuid,nodev,relatime - fuse.portal portal rw,user_id=0,group_id=0
    70 27 259:65538 / /media/My\\040Disk\\011x\\134y\\377 rw - vfat /dev/sd\\040b1 rw,fmask=0022

    """

  @Test("every field of a line is parsed, escapes decoded, the device as a dev_t")
  func fields() throws {
    let table = MountTable(parsing: Array(Self.sample.utf8))
    #expect(table.mounts.count == 4)
    #expect(table.skippedLineCount == 0)
    #expect(!table.isTruncated)
    let first = table.mounts[0]
    #expect(first.mountID == 36)
    #expect(first.parentID == 35)
    #expect(first.major == 98)
    #expect(first.minor == 0)
    #expect(first.root == "/mnt1")
    #expect(first.mountPoint == "/mnt2")
    #expect(first.mountOptions == ["rw", "noatime"])
    #expect(first.optionalFields == ["master:1"])
    #expect(first.fileSystemType == "ext3")
    #expect(first.source == "/dev/root")
    #expect(first.superOptions == ["rw", "errors=continue"])
    #expect(first.hasOption("noatime"))
    #expect(first.hasOption("errors=continue"))
    #expect(!first.hasOption("ro"))
    #expect(!first.isDocumentPortal)

    let portal = table.mounts[2]
    #expect(portal.isDocumentPortal)
    #expect(portal.optionalFields.isEmpty)
    #expect(portal.source == "portal")

    let escaped = table.mounts[3]
    #expect(escaped.mountPoint.bytes == Array("/media/My Disk\tx\\y".utf8) + [0xFF])
    #expect(escaped.source == "/dev/sd b1")
    // A minor number above 255 uses the high bits of the dev_t.
    #expect(escaped.major == 259)
    #expect(escaped.minor == 65538)
    #expect(escaped.device == MountTable.device(major: 259, minor: 65538))
  }

  @Test("device numbers encode as the kernel's st_dev does")
  func deviceNumbers() throws {
    let scratch = try Scratch()
    let file = try scratch.file("f")
    let status = try FileStatus.of(file, followSymlinks: false)
    var raw = stat()
    #expect(stat(file.description, &raw) == 0)
    #expect(MountTable.device(major: status.device.major, minor: status.device.minor) == raw.st_dev)
    for (major, minor) in [(0, 0), (8, 1), (259, 65538), (4095, 255), (4096, 256), (UInt32.max, UInt32.max)] {
      let device = MountTable.device(major: UInt32(major), minor: UInt32(minor))
      #expect(MountTable.major(of: device) == UInt32(major))
      #expect(MountTable.minor(of: device) == UInt32(minor))
    }
  }

  @Test("malformed lines are skipped and counted, never guessed")
  func malformed() {
    let text = """
      1 0 8:1 / / rw - ext4 /dev/sda1 rw
      x 0 8:1 / /a rw - ext4 /dev/sda1 rw
      2 1 8:1 / /b rw ext4 /dev/sda1 rw
      3 1 81 / /c rw - ext4 /dev/sda1 rw
      4 1 8:1 / /d rw -
      99999999999999999999999 1 8:1 / /e rw - ext4 /dev/sda1 rw
      5 1 8:1 / /f rw - ext4 /dev/sda1 rw
      """
    let table = MountTable(parsing: Array(text.utf8))
    #expect(table.mounts.map(\.mountID) == [1, 5])
    #expect(table.skippedLineCount == 5)
  }

  @Test("the mount containing a path is the longest whole-component prefix; stacked mounts: the top one")
  func containing() {
    let text = """
      1 0 8:1 / / rw - ext4 /dev/sda1 rw
      2 1 8:2 / /mnt rw - ext4 /dev/sda2 rw
      3 1 0:40 / /mnt2 rw - tmpfs none rw
      4 2 0:41 / /mnt/deep rw - tmpfs none rw
      5 4 0:42 / /mnt/deep rw - tmpfs none rw
      6 1 8:2 /sub /bound rw - ext4 /dev/sda2 rw
      """
    let table = MountTable(parsing: Array(text.utf8))
    #expect(table.mount(containing: "/")?.mountID == 1)
    #expect(table.mount(containing: "/etc/passwd")?.mountID == 1)
    #expect(table.mount(containing: "/mnt")?.mountID == 2)
    #expect(table.mount(containing: "/mnt/")?.mountID == 2)
    #expect(table.mount(containing: "/mnt/a/b")?.mountID == 2)
    #expect(table.mount(containing: "/mnt2/a")?.mountID == 3)
    #expect(table.mount(containing: "/mnt2/../mnt/x")?.mountID == 2)
    #expect(table.mount(containing: "/mnt/deep/x")?.mountID == 5)
    #expect(table.mount(withID: 6)?.root == "/sub")
    #expect(table.mounts(onDevice: MountTable.device(major: 8, minor: 2)).map(\.mountID) == [2, 6])
    #expect(table.mounts(onDevice: MountTable.device(major: 9, minor: 9)).isEmpty)
  }

  @Test("a huge or hostile table costs bounded memory: limits on bytes, mounts and field length")
  func bounded() {
    var text = ""
    for index in 0..<5000 { text += "\(index + 2) 1 0:\(index) / /m/\(index) rw - tmpfs none rw\n" }
    let byMounts = MountTable(parsing: Array(text.utf8), limits: .init(maximumMounts: 100))
    #expect(byMounts.mounts.count == 100)
    #expect(byMounts.isTruncated)

    let byBytes = MountTable(parsing: Array(text.utf8), limits: .init(maximumBytes: 1000))
    #expect(byBytes.isTruncated)
    #expect(!byBytes.mounts.isEmpty)
    // The line cut by the limit is left out, not parsed as a shorter mount point.
    let kept = byBytes.mounts.map { "\($0.mountID) 1 0:\($0.minor) / \($0.mountPoint) rw - tmpfs none rw\n" }
    #expect(kept.joined().utf8.count <= 1000)
    #expect(text.hasPrefix(kept.joined()))

    let long = String(repeating: "a", count: 40_000)
    let hostile = "1 0 8:1 / /\(long) rw - ext4 /dev/sda1 rw\n2 0 8:1 / / rw - ext4 /dev/sda1 rw\n"
    let table = MountTable(parsing: Array(hostile.utf8), limits: .init(maximumFieldLength: 4096))
    #expect(table.mounts.map(\.mountID) == [2])
    #expect(table.skippedLineCount == 1)
  }

  @Test("this process's own table agrees with statx: mount IDs, devices, mount points")
  func current() throws {
    let table = try MountTable.current()
    #expect(!table.isTruncated)
    #expect(table.mounts.count > 1)
    let scratch = try Scratch()
    for path in [try scratch.file("a/b"), FilePath("/"), FilePath("/proc/self/status")] {
      let real = try TargetSnapshot.canonicalPath(path)
      let status = try FileStatus.of(real, followSymlinks: false)
      let mount = try #require(table.mount(containing: real), "\(real)")
      #expect(mount.mountID == status.mountID, "\(real)")
      #expect(mount.major == status.device.major && mount.minor == status.device.minor, "\(real)")
      #expect(table.mounts(onDevice: status.device).contains(mount))
      #expect(mount.mountPoint == FileSystemIdentity.mountPoint(of: real, status: status))
    }
    #expect(table.mount(containing: "/proc")?.fileSystemType == "proc")
  }

  @Test("a real mount whose name needs escapes (space, tab, backslash, non-UTF-8) is read back exactly")
  func realEscapedMount() throws {
    guard Capabilities.canMountPrivately else {
      print("skipped: mounting a test filesystem needs root and unshare -m")
      return
    }
    let scratch = try Scratch()
    let root = try TargetSnapshot.canonicalPath(scratch.root)
    let listing = scratch.path("mountinfo")
    // The shell makes the name from octal escapes, so its bytes need not be UTF-8.
    let result = run(
      "/usr/bin/unshare",
      [
        "-m", "--propagation", "private", "/bin/sh", "-c",
        """
        m="$1/$(printf 'a b\\tc\\\\d\\376')" && mkdir "$m" &&
        mount -t tmpfs -o size=64k,mode=0700 'docbm test' "$m" && cat /proc/self/mountinfo > "$2"
        """,
        "sh", root.description, listing.description,
      ])
    #expect(result.status == 0, "\(result.error)")
    let text = try readWholeFile(listing)
    let table = MountTable(parsing: text)
    let mount = try #require(table.mounts.last { $0.source == "docbm test" })
    #expect(mount.fileSystemType == "tmpfs")
    #expect(mount.mountPoint == root.appending(Array("a b\tc\\d".utf8) + [0xFE]))
    #expect(mount.hasOption("size=64k"))
    #expect(table.mount(containing: mount.mountPoint.appending("x"))?.mountID == mount.mountID)
  }
}
