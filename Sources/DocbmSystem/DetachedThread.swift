import CDocbmShims

/// Threads of docbm's own, made with `pthread_create` and detached: the I/O workers, the
/// checker's workers, a store's follower and mount watcher, a document watcher's reader.
///
/// Foundation's `Thread` would do the same, but it is the one part of Foundation docbm
/// needed beyond FoundationEssentials, and linking Foundation costs every `docbm` command
/// several milliseconds at start-up (docs/performance.md, "Start-up").
package enum DetachedThread {
  /// What kind of docbm thread the calling thread is, so that a call can tell it runs on
  /// one (a watcher's `stop()` from its own handler, an `async` call already on a worker).
  package struct Tag: RawRepresentable, Hashable, Sendable {
    package let rawValue: UInt32
    package init(rawValue: UInt32) { self.rawValue = rawValue }

    /// No docbm thread (or one that set no tag).
    package static let none = Tag(rawValue: 0)
    /// One of ``DocbmThreads``'s workers.
    package static let ioWorker = Tag(rawValue: 1)
    /// A document watcher's reader.
    package static let watcher = Tag(rawValue: 2)
  }

  /// The calling thread's tag (``CurrentThread/tag``).
  package static var currentTag: Tag { CurrentThread.tag }

  /// Starts `body` on a new detached thread, named `name` in the kernel (what `ps -T` and
  /// debuggers show; at most 15 bytes are kept) and tagged `tag`, before `body` runs.
  ///
  /// - Returns: `false` when no thread could be made (EAGAIN: the user's or the system's
  ///   thread limit); `body` then never runs.
  /// The corresponding C function is `pthread_create`.
  @discardableResult
  package static func start(named name: String, tag: Tag = .none, _ body: @escaping @Sendable () -> Void)
    -> Bool
  {
    let start = Start(name: name, tag: tag, body: body)
    let context = Unmanaged.passRetained(start).toOpaque()
    let result = cdocbm_start_detached_thread(
      { context in
        guard let context else { return nil }
        let start = Unmanaged<Start>.fromOpaque(context).takeRetainedValue()
        ThreadName.setCurrent(start.name)
        CurrentThread.tag = start.tag
        start.body()
        return nil
      }, context)
    if result != 0 {
      Unmanaged<Start>.fromOpaque(context).release()
      return false
    }
    return true
  }

  /// What a new thread needs, carried across `pthread_create`.
  private final class Start {
    let name: String
    let tag: Tag
    let body: @Sendable () -> Void

    init(name: String, tag: Tag, body: @escaping @Sendable () -> Void) {
      self.name = name
      self.tag = tag
      self.body = body
    }
  }
}
