/// What a ``DocumentWatcher`` watches, and what it has seen so far.
public struct WatchSummary: Hashable, Sendable, Codable {
  /// Folders watched now (one inotify watch each).
  public var folders = 0
  /// Documents followed now.
  public var documents = 0
  /// Folders that could not be watched.
  public var foldersNotWatched = 0
  /// Events delivered, by kind.
  public var events: [DocumentEvent.Kind: Int] = [:]
  /// Times the kernel's queue overflowed and the folders were listed again.
  public var rescans = 0

  /// The number of events of `kind` delivered.
  public func count(_ kind: DocumentEvent.Kind) -> Int { events[kind] ?? 0 }
}
