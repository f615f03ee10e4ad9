import Glibc

/// An inotify instance (inotify(7)): the kernel queues events for the files and folders
/// watched, in the order they happened, until they are read.
///
/// Typed over the C interface: ``Events`` for the masks, ``Event`` for what is read, errors
/// as ``SystemCallError``. The descriptor is non-blocking; ``read(timeout:)`` waits with
/// `poll(2)`. Watches may be added from any thread while another reads (the kernel
/// serializes the calls); read from one thread at a time. Closed when released.
package final class Inotify: @unchecked Sendable {
  /// What to watch for, and what happened (`IN_*`).
  package struct Events: OptionSet, Hashable, Sendable {
    package let rawValue: UInt32
    package init(rawValue: UInt32) { self.rawValue = rawValue }

    package static let modified = Events(rawValue: UInt32(IN_MODIFY))
    /// Metadata changed: mode, owner, times, extended attributes, link count.
    package static let attributesChanged = Events(rawValue: UInt32(IN_ATTRIB))
    package static let closedAfterWriting = Events(rawValue: UInt32(IN_CLOSE_WRITE))
    package static let movedFrom = Events(rawValue: UInt32(IN_MOVED_FROM))
    package static let movedTo = Events(rawValue: UInt32(IN_MOVED_TO))
    package static let created = Events(rawValue: UInt32(IN_CREATE))
    package static let deleted = Events(rawValue: UInt32(IN_DELETE))
    package static let watchedDeleted = Events(rawValue: UInt32(IN_DELETE_SELF))
    package static let watchedMoved = Events(rawValue: UInt32(IN_MOVE_SELF))
    /// Only watch `path` when it is a folder.
    package static let onlyFolder = Events(rawValue: UInt32(IN_ONLYDIR))
    /// Do not follow `path` when it is a symbolic link.
    package static let dontFollow = Events(rawValue: UInt32(IN_DONT_FOLLOW))
    /// No events for entries after they were unlinked from the watched folder.
    package static let excludeUnlinked = Events(rawValue: UInt32(IN_EXCL_UNLINK))
    /// Events were dropped: the queue overflowed.
    package static let overflowed = Events(rawValue: UInt32(IN_Q_OVERFLOW))
    /// The filesystem of the watched file was unmounted (the watch is removed next).
    package static let unmounted = Events(rawValue: UInt32(IN_UNMOUNT))
    /// The watch was removed (its file is gone, or it was removed explicitly).
    package static let watchRemoved = Events(rawValue: UInt32(IN_IGNORED))
    /// The event is about a folder inside the watched folder.
    package static let isFolder = Events(rawValue: UInt32(IN_ISDIR))
  }

  /// One queued event.
  package struct Event: Hashable, Sendable {
    /// The watch it belongs to (`-1` for an overflow).
    package let watch: Int32
    package let events: Events
    /// Pairs a ``Events/movedFrom`` with its ``Events/movedTo``.
    package let cookie: UInt32
    /// The entry's name, for events about an entry of a watched folder; empty otherwise.
    package let name: [UInt8]
  }

  private let descriptor: Int32

  /// Makes an instance (`inotify_init1`, close-on-exec, non-blocking).
  ///
  /// - Throws: ``SystemCallError`` EMFILE when the user's instance limit is reached.
  package init() throws(SystemCallError) {
    let fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
    guard fd >= 0 else { throw SystemCallError("inotify_init1", .current) }
    descriptor = fd
  }

  deinit { _ = Glibc.close(descriptor) }

  /// Watches `path` for `events`; returns the watch descriptor (the same one when `path`
  /// is already watched, the mask then replaced).
  ///
  /// - Throws: ``SystemCallError``: ENOENT, EACCES, ENOTDIR with ``Events/onlyFolder``,
  ///   ENOSPC when the user's watch limit is reached.
  package func watch(_ path: FilePath, for events: Events) throws(SystemCallError) -> Int32 {
    let watch = path.withCString { inotify_add_watch(descriptor, $0, events.rawValue) }
    guard watch >= 0 else { throw SystemCallError("inotify_add_watch", .current, path: path) }
    return watch
  }

  /// Stops watching: the kernel queues a last ``Events/watchRemoved`` for `watch`.
  /// A watch already gone (its folder deleted) is not an error.
  package func unwatch(_ watch: Int32) {
    _ = inotify_rm_watch(descriptor, watch)
  }

  /// Reads the queued events, waiting up to `timeout` milliseconds (-1: without limit) for
  /// the first; an empty array when none came.
  package func read(timeout: Int32) throws(SystemCallError) -> [Event] {
    try read(timeout: timeout, wakingOn: nil).events
  }

  /// Reads the queued events as ``read(timeout:)`` does, also waking when `wake` is
  /// signalled (it is then reset); `woken` says whether it was. One `poll(2)` on both
  /// descriptors: a reader with nothing to do sleeps in the kernel, with no timer.
  package func read(
    timeout: Int32, wakingOn wake: EventNotifier?
  ) throws(SystemCallError) -> (events: [Event], woken: Bool) {
    let ready = try Poller.wait(
      [.readable(descriptor)] + (wake.map { [$0.interest] } ?? []), timeout: timeout)
    let woken = ready.count > 1 && ready[1]
    if woken { wake?.reset() }
    guard ready[0] else { return ([], woken) }
    var events: [Event] = []
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
      let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
      if count < 0 {
        if errno == EINTR { continue }
        if errno == EAGAIN { break }
        throw SystemCallError("read", .current)
      }
      guard count > 0 else { break }
      events += Self.parse(buffer[0..<count])
    }
    return (events, woken)
  }

  /// Parses `struct inotify_event` records: wd, mask, cookie, len, then `len` bytes of name
  /// padded with NULs.
  static func parse(_ bytes: ArraySlice<UInt8>) -> [Event] {
    var events: [Event] = []
    var offset = bytes.startIndex
    let header = MemoryLayout<inotify_event>.size
    while offset + header <= bytes.endIndex {
      let (watch, mask, cookie, length) = bytes.withUnsafeBytes { raw in
        let base = raw.baseAddress! + (offset - bytes.startIndex)
        return (
          base.loadUnaligned(as: Int32.self), base.loadUnaligned(fromByteOffset: 4, as: UInt32.self),
          base.loadUnaligned(fromByteOffset: 8, as: UInt32.self),
          Int(base.loadUnaligned(fromByteOffset: 12, as: UInt32.self))
        )
      }
      let nameStart = offset + header
      guard nameStart + length <= bytes.endIndex else { break }
      let name = Array(bytes[nameStart..<(nameStart + length)].prefix { $0 != 0 })
      events.append(Event(watch: watch, events: Events(rawValue: mask), cookie: cookie, name: name))
      offset = nameStart + length
    }
    return events
  }
}
