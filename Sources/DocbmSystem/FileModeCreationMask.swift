/// The process's file mode creation mask (umask), read without changing it.
package enum FileModeCreationMask {
  /// The current umask, from the `Umask:` line of `/proc/self/status` (Linux 4.7 and
  /// later); `022` when it cannot be read. Calling `umask(2)` to read it would change it
  /// for every thread for a moment.
  package static var current: UInt32 {
    // Unreadable (no /proc): the usual umask, as documented; it only narrows modes.
    guard let status = try? readWholeFile(FilePath("/proc/self/status")) else { return 0o022 }
    for line in status.split(separator: UInt8(ascii: "\n")) where line.starts(with: Array("Umask:".utf8)) {
      let digits = line.dropFirst(6).filter { $0 >= 0x30 && $0 <= 0x37 }
      return digits.reduce(0) { $0 * 8 + UInt32($1 - 0x30) }
    }
    return 0o022
  }
}
