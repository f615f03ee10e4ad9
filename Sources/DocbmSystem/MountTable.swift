/// The mounts this process sees, parsed from `/proc/self/mountinfo` (proc(5)).
///
/// Each line of the table is
/// `ID parentID major:minor root mountPoint mountOptions [optional fields…] - type source superOptions`,
/// with spaces, tabs, newlines and backslashes in the text fields written as octal escapes
/// (`\040`, `\011`, `\012`, `\134`), which the parser decodes. Parsing is bounded: at most
/// ``Limits/maximumBytes`` of the table are read and at most ``Limits/maximumMounts`` mounts
/// kept, and a field longer than ``Limits/maximumFieldLength`` makes its line skipped, so a
/// huge or hostile table costs bounded time and memory; ``isTruncated`` and
/// ``skippedLineCount`` say when something was left out.
package struct MountTable: Sendable {
  /// One mount: one line of the table.
  package struct Mount: Hashable, Sendable {
    /// The mount's unique ID (the same number as `statx`'s `stx_mnt_id`).
    package let mountID: UInt64
    /// The ID of the parent mount (its own ID for the root of the namespace's tree).
    package let parentID: UInt64
    /// The filesystem's device number as a `dev_t` (glibc's `makedev` encoding, the
    /// `st_dev` of the files on it).
    package let device: UInt64
    /// The folder of the filesystem that is mounted here (`/` unless a bind mount).
    package let root: FilePath
    /// Where the mount is, relative to the process's root folder.
    package let mountPoint: FilePath
    /// The per-mount options (`rw`, `nosuid`, `relatime`, …).
    package let mountOptions: [String]
    /// The optional fields (`shared:N`, `master:N`, `propagate_from:N`, `unbindable`).
    package let optionalFields: [String]
    /// The filesystem type, with its subtype when there is one (`ext4`, `fuse.portal`).
    package let fileSystemType: String
    /// The filesystem-specific source (`/dev/sda1`, `tmpfs`, `portal`), decoded; bytes that
    /// are not UTF-8 are replaced.
    package let source: String
    /// The per-superblock options (`rw`, `user_id=0`, …).
    package let superOptions: [String]

    /// The device's major number.
    package var major: UInt32 { MountTable.major(of: device) }
    /// The device's minor number.
    package var minor: UInt32 { MountTable.minor(of: device) }

    /// Whether the filesystem is the Documents portal's FUSE mount (`fuse.portal`).
    package var isDocumentPortal: Bool { fileSystemType == "fuse.portal" }

    /// Whether `option` is one of the mount's or the superblock's options (`ro`, `nosuid`,
    /// or a `name=value` pair given whole).
    package func hasOption(_ option: String) -> Bool {
      mountOptions.contains(option) || superOptions.contains(option)
    }
  }

  /// How much of a table is read and kept.
  package struct Limits: Hashable, Sendable {
    /// The most bytes of the table read (default 8 MiB, tens of thousands of mounts).
    package var maximumBytes: Int
    /// The most mounts kept (default 65,536).
    package var maximumMounts: Int
    /// The longest field, before decoding, that a line may have (default 16 KiB: a
    /// `PATH_MAX` path with every byte escaped); a line with a longer one is skipped.
    package var maximumFieldLength: Int

    package init(maximumBytes: Int = 8 << 20, maximumMounts: Int = 65_536, maximumFieldLength: Int = 16 << 10)
    {
      self.maximumBytes = max(0, maximumBytes)
      self.maximumMounts = max(0, maximumMounts)
      self.maximumFieldLength = max(1, maximumFieldLength)
    }
  }

  /// The mounts, in the order the table lists them (a mount is listed after its parent).
  package let mounts: [Mount]
  /// Whether the table was longer than ``Limits/maximumBytes`` or held more than
  /// ``Limits/maximumMounts`` mounts, so that some were left out.
  package let isTruncated: Bool
  /// How many lines were not mounts the parser understood (too few fields, no `-`
  /// separator, a number that is not one, a field over the length limit).
  package let skippedLineCount: Int

  /// The mounts of the calling thread's mount namespace (the process's, unless the thread
  /// entered one of its own), read from `/proc/thread-self/mountinfo`, or from
  /// `/proc/self/mountinfo` on a kernel older than 3.17.
  /// - Throws: ``SystemCallError`` when the table cannot be opened or read (no `/proc`).
  package static func current(limits: Limits = Limits()) throws(SystemCallError) -> MountTable {
    // One byte more than the limit, to tell a table of exactly the limit from a longer one.
    let limit = limits.maximumBytes.addingReportingOverflow(1).partialValue
    let bytes: [UInt8]
    do {
      bytes = try readWholeFile(FilePath("/proc/thread-self/mountinfo"), limit: limit)
    } catch  where error.errno == .noSuchFile {
      bytes = try readWholeFile(FilePath("/proc/self/mountinfo"), limit: limit)
    }
    return MountTable(parsing: bytes, limits: limits)
  }

  /// Parses the text of a mountinfo table.
  package init(parsing text: some Collection<UInt8>, limits: Limits = Limits()) {
    let bytes = Array(text.prefix(limits.maximumBytes))
    var truncated = text.count > limits.maximumBytes
    var mounts: [Mount] = []
    var skipped = 0
    var lineStart = 0
    let newline = UInt8(ascii: "\n")
    while lineStart < bytes.count {
      var lineEnd = lineStart
      while lineEnd < bytes.count, bytes[lineEnd] != newline { lineEnd += 1 }
      // A last line cut off by the byte limit is not parsed: it would be a wrong mount.
      if lineEnd == bytes.count, truncated { break }
      if lineEnd > lineStart {
        if mounts.count == limits.maximumMounts {
          truncated = true
          break
        }
        if let mount = MountTable.parseLine(bytes[lineStart..<lineEnd], limits: limits) {
          mounts.append(mount)
        } else {
          skipped += 1
        }
      }
      lineStart = lineEnd + 1
    }
    self.mounts = mounts
    self.isTruncated = truncated
    self.skippedLineCount = skipped
  }

  /// The mount with ID `mountID`, if listed.
  package func mount(withID mountID: UInt64) -> Mount? {
    mounts.last { $0.mountID == mountID }
  }

  /// The mount that holds `path`: the one whose mount point is the longest
  /// component-wise prefix of `path`, made absolute and lexically normalized (symbolic
  /// links are not followed: pass a resolved path). Of several mounts stacked on the same
  /// mount point, the one on top (mounted over the others) wins.
  package func mount(containing path: FilePath) -> Mount? {
    let wanted = path.absolute.lexicallyNormalized
    var best: Mount?
    var bestLength = -1
    for mount in mounts {
      let point = mount.mountPoint.lexicallyNormalized
      guard point == wanted || wanted.isBelow(point) else { continue }
      let length = point.bytes.count
      if length > bestLength {
        best = mount
        bestLength = length
      } else if length == bestLength, let current = best, current.parentID != mount.mountID {
        // Stacked on the same point: the later one, or the child of the one found, is on
        // top, unless it is the parent of the one found.
        best = mount
      }
    }
    return best
  }

  /// The mounts of the filesystem with device number `device` (bind mounts of one
  /// filesystem share it), in table order.
  package func mounts(onDevice device: UInt64) -> [Mount] {
    mounts.filter { $0.device == device }
  }

  /// The mounts of the filesystem on `device`, as `statx` reports it.
  package func mounts(onDevice device: FileStatus.Device) -> [Mount] {
    mounts(onDevice: MountTable.device(major: device.major, minor: device.minor))
  }

  /// Whether the process runs inside a Flatpak sandbox: `/.flatpak-info` exists, which
  /// Flatpak puts in every sandbox it starts.
  package static var isInsideFlatpak: Bool {
    // A probe: `/` is readable to everyone, so a failure means the file is not there.
    (try? FileStatus.of(FilePath("/.flatpak-info"), followSymlinks: false)) != nil
  }

  // MARK: - Device numbers

  /// A `dev_t` from its parts, encoded as glibc's `makedev` does.
  package static func device(major: UInt32, minor: UInt32) -> UInt64 {
    let major = UInt64(major)
    let minor = UInt64(minor)
    let high = ((major & 0xffff_f000) << 32) | ((major & 0x0000_0fff) << 8)
    let low = ((minor & 0xffff_ff00) << 12) | (minor & 0x0000_00ff)
    return high | low
  }

  /// The major number of a `dev_t` (glibc's `major`).
  package static func major(of device: UInt64) -> UInt32 {
    let value = device
    return UInt32(truncatingIfNeeded: ((value >> 32) & 0xffff_f000) | ((value >> 8) & 0x0000_0fff))
  }

  /// The minor number of a `dev_t` (glibc's `minor`).
  package static func minor(of device: UInt64) -> UInt32 {
    let value = device
    return UInt32(truncatingIfNeeded: ((value >> 12) & 0xffff_ff00) | (value & 0x0000_00ff))
  }

  // MARK: - Parsing

  /// One line, or `nil` when it is not a mount line this parser understands.
  private static func parseLine(_ line: ArraySlice<UInt8>, limits: Limits) -> Mount? {
    let fields = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: true)
    // Six fields, the separator, then three more.
    guard fields.count >= 10, fields.allSatisfy({ $0.count <= limits.maximumFieldLength }) else {
      return nil
    }
    guard let separator = fields[6...].firstIndex(where: { $0.elementsEqual([UInt8(ascii: "-")]) }),
      fields.count - separator - 1 >= 3
    else { return nil }
    guard let mountID = decimal(fields[0]), let parentID = decimal(fields[1]),
      let device = deviceNumber(fields[2])
    else { return nil }
    let root = unescape(fields[3])
    let mountPoint = unescape(fields[4])
    guard !root.isEmpty, !mountPoint.isEmpty, !root.contains(0), !mountPoint.contains(0) else { return nil }
    return Mount(
      mountID: mountID,
      parentID: parentID,
      device: device,
      root: FilePath(uncheckedBytes: root),
      mountPoint: FilePath(uncheckedBytes: mountPoint),
      mountOptions: options(fields[5]),
      optionalFields: fields[6..<separator].map { text(unescape($0)) },
      fileSystemType: text(unescape(fields[separator + 1])),
      source: text(unescape(fields[separator + 2])),
      superOptions: options(fields[separator + 3]))
  }

  /// A decimal number without sign, or `nil` (empty, other characters, overflow).
  private static func decimal(_ field: ArraySlice<UInt8>) -> UInt64? {
    guard !field.isEmpty, field.count <= 20 else { return nil }
    var value: UInt64 = 0
    for byte in field {
      guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
      let (times, overflow) = value.multipliedReportingOverflow(by: 10)
      let (sum, overflow2) = times.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
      guard !overflow, !overflow2 else { return nil }
      value = sum
    }
    return value
  }

  /// `major:minor` as a `dev_t`.
  private static func deviceNumber(_ field: ArraySlice<UInt8>) -> UInt64? {
    let parts = field.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
    guard parts.count == 2, let major = decimal(parts[0]), let minor = decimal(parts[1]),
      major <= UInt64(UInt32.max), minor <= UInt64(UInt32.max)
    else { return nil }
    return device(major: UInt32(major), minor: UInt32(minor))
  }

  /// A comma-separated option list, decoded.
  private static func options(_ field: ArraySlice<UInt8>) -> [String] {
    field.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: true).map { text(unescape($0)) }
  }

  private static func text(_ bytes: [UInt8]) -> String {
    String(decoding: bytes, as: UTF8.self)
  }

  /// Undoes the kernel's octal escapes (`\ooo`, three octal digits, as `seq_escape` writes
  /// them); a backslash not followed by three octal digits is kept as it is.
  package static func unescape(_ bytes: some Collection<UInt8>) -> [UInt8] {
    let bytes = Array(bytes)
    var output: [UInt8] = []
    output.reserveCapacity(bytes.count)
    var index = 0
    let backslash = UInt8(ascii: "\\")
    while index < bytes.count {
      if bytes[index] == backslash, index + 3 < bytes.count {
        let digits = bytes[(index + 1)...(index + 3)]
        if digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "7") }) {
          let value = digits.reduce(0) { $0 * 8 + Int($1 - UInt8(ascii: "0")) }
          output.append(UInt8(truncatingIfNeeded: value))
          index += 4
          continue
        }
      }
      output.append(bytes[index])
      index += 1
    }
    return output
  }
}
