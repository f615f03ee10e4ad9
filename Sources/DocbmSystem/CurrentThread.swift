import CDocbmShims

/// What docbm keeps about the calling thread, in one word of thread-local storage (docbm's
/// one per-thread value): which kind of docbm thread it is, and whether it entered a mount
/// namespace of its own.
package enum CurrentThread {
  /// The bit of the word that says the thread has a mount namespace of its own.
  private static let ownMountNamespace: UInt32 = 1 << 31

  /// What kind of docbm thread the calling thread is (``DetachedThread/Tag/none`` for any
  /// other).
  package static var tag: DetachedThread.Tag {
    get { DetachedThread.Tag(rawValue: cdocbm_current_thread_tag() & ~ownMountNamespace) }
    set {
      cdocbm_set_current_thread_tag(newValue.rawValue | (cdocbm_current_thread_tag() & ownMountNamespace))
    }
  }

  /// Whether the calling thread entered a mount namespace of its own
  /// (``PrivateMountNamespace/enterOnThisThread()``).
  package static var hasOwnMountNamespace: Bool {
    get { cdocbm_current_thread_tag() & ownMountNamespace != 0 }
    set {
      let word = cdocbm_current_thread_tag() & ~ownMountNamespace
      cdocbm_set_current_thread_tag(newValue ? word | ownMountNamespace : word)
    }
  }
}
