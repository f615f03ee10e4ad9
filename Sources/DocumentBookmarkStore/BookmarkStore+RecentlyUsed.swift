import DocbmSystem
public import DocumentBookmarks

extension BookmarkStore {
  /// Adds the files `application` recently used, from GLib's list of recently used files
  /// (read with ``RecentlyUsedFiles/read(_:)``): an app's first recents, taken over from
  /// what GTK remembered for it. Only files and folders that exist now are added, oldest
  /// use first (so that in a store ordered by use the most recent comes first), in one
  /// save; a path some record already holds is passed over, and the store's
  /// ``StorePolicy/duplicates``, validators and limit apply to the rest.
  ///
  /// - Parameters:
  ///   - files: the list's entries.
  ///   - application: the application's name as GLib records it (``RecentlyUsedFile/Application/name``).
  ///   - key: each record's key, from the file's path.
  ///   - metadata: each record's metadata, from the list's entry.
  /// - Returns: the records added.
  /// - Throws: as ``add(targets:)``: when one file cannot be bookmarked, nothing is added.
  @discardableResult
  public func importRecentlyUsed(
    _ files: [RecentlyUsedFile], application: String, key: (FilePath) -> Key,
    metadata: (RecentlyUsedFile) -> Metadata
  ) async throws(Failure) -> [Record] {
    let held = Set(try await load().map(\.lastKnownPath))
    var seen: Set<FilePath> = []
    let used =
      files
      .compactMap { file in file.application(application).map { (file, $0.lastUsed) } }
      .filter { file, _ in
        // A suggestion only: a file that cannot be looked at is not offered.
        guard !held.contains(file.path), seen.insert(file.path).inserted,
          let status = try? FileStatus.of(file.path, followSymlinks: true)
        else { return false }
        return status.kind == .regular || status.kind == .directory
      }
      .sorted {
        ($0.1 ?? Timestamp(seconds: 0, nanoseconds: 0)) < ($1.1 ?? Timestamp(seconds: 0, nanoseconds: 0))
      }
    guard !used.isEmpty else { return [] }
    return try await add(targets: used.map { file, _ in (file.path, key(file.path), metadata(file)) })
  }
}

extension BookmarkStore where Metadata == NoMetadata {
  /// ``importRecentlyUsed(_:application:key:metadata:)`` for a store without metadata.
  @discardableResult
  public func importRecentlyUsed(
    _ files: [RecentlyUsedFile], application: String, key: (FilePath) -> Key
  ) async throws(Failure) -> [Record] {
    try await importRecentlyUsed(files, application: application, key: key, metadata: { _ in NoMetadata() })
  }
}
