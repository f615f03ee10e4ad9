import DocbmSystem
import DocumentBookmarks

/// How the engine settles what it has not yet decided (moves and removals that a later
/// event may explain), keeps its folders' watches, and reads keys.
extension WatchEngine {
  // MARK: - Settling

  func settle(now: ContinuousClock.Instant, _ events: inout [DocumentEvent]) {
    let overfull = vacancies.count + documentMoves.count + folderMoves.count > Self.pendingLimit
    let due = { (deadline: ContinuousClock.Instant) in overfull || deadline <= now }
    for (cookie, move) in folderMoves where due(move.deadline) {
      folderMoves[cookie] = nil
      guard let child = move.folder, folders[child] != nil else { continue }
      let inside = documents.values.filter { isInside($0.entry.folder, child) }
      for document in inside {
        let old = path(of: document.entry)
        documents[document.identity] = nil
        documentByEntry[document.entry] = nil
        events.append(
          DocumentEvent(
            .movedOut, oldPath: old, path: nil, oldIdentity: document.identity,
            fingerprint: document.fingerprint,
            message:
              "\(old.map(String.init(describing:)) ?? "a document") left the watched folders with \(move.oldPath)"
          ))
      }
      removeFolderTree(child)
    }
    for (cookie, move) in documentMoves where due(move.deadline) {
      documentMoves[cookie] = nil
      guard let identity = move.identity, let document = documents[identity],
        documentByEntry[document.entry] != identity
      else { continue }
      documents[identity] = nil
      events.append(
        DocumentEvent(
          .movedOut, oldPath: move.oldPath, path: nil, oldIdentity: identity,
          fingerprint: document.fingerprint,
          message: "\(move.oldPath) moved out of the watched folders"))
    }
    for (entry, vacancy) in vacancies where due(vacancy.deadline) {
      vacancies[entry] = nil
      // A document renamed away whose name nothing took: its move in the escrow stands.
      escrowMovesToUndo[vacancy.identity] = nil
      guard vacancy.deleted, let document = documents[vacancy.identity],
        documentByEntry[document.entry] != vacancy.identity
      else { continue }
      documents[vacancy.identity] = nil
      let old = path(of: entry)
      events.append(
        DocumentEvent(
          .deleted, oldPath: old, path: nil, oldIdentity: vacancy.identity, fingerprint: document.fingerprint,
          message: "\(old.map(String.init(describing:)) ?? "a document") was deleted"))
    }
  }

  // MARK: - Folders

  /// A watch the kernel removed (its folder deleted) or that was removed here.
  /// Reports that the folder `root`, given to the watcher, is gone; when it was the last,
  /// says that nothing is left to watch (``nothingLeftToWatch``).
  func rootGone(_ root: FilePath, watch: Int32, _ events: inout [DocumentEvent]) {
    rootPaths.removeAll { $0 == root }
    if rootPaths.isEmpty { nothingLeftToWatch = true }
    let how = unmountedFolders.contains(watch) ? "its filesystem was unmounted" : "it was removed"
    let rest =
      nothingLeftToWatch
      ? "nothing is left to watch, and the watcher has stopped"
      : "nothing in it is watched any more"
    events.append(DocumentEvent(.folderGone, path: root, message: "\(root) is gone (\(how)): \(rest)"))
  }

  func forgetFolder(_ watch: Int32, _ events: inout [DocumentEvent]) {
    guard let folder = folders.removeValue(forKey: watch) else { return }
    if let parent = folder.parent, folderByEntry[Entry(folder: parent, name: folder.name)] == watch {
      folderByEntry[Entry(folder: parent, name: folder.name)] = nil
    }
    for (identity, document) in documents where document.entry.folder == watch {
      documents[identity] = nil
      documentByEntry[document.entry] = nil
    }
  }

  /// Stops watching `watch` and every folder under it.
  func removeFolderTree(_ watch: Int32) {
    let inside = folders.keys.filter { isInside($0, watch) }
    for folder in inside {
      inotify.unwatch(folder)
      if let removed = folders.removeValue(forKey: folder), let parent = removed.parent {
        folderByEntry[Entry(folder: parent, name: removed.name)] = nil
      }
      for (identity, document) in documents where document.entry.folder == folder {
        documents[identity] = nil
        documentByEntry[document.entry] = nil
      }
    }
  }

  /// Whether folder `watch` is `ancestor` or inside it.
  func isInside(_ watch: Int32, _ ancestor: Int32) -> Bool {
    var current: Int32? = watch
    var steps = 0
    while let folder = current, steps < 4096 {
      if folder == ancestor { return true }
      current = folders[folder]?.parent
      steps += 1
    }
    return false
  }

  /// The path of a watched folder, from its root.
  func path(ofFolder watch: Int32) -> FilePath? {
    var names: [[UInt8]] = []
    var current = watch
    for _ in 0..<4096 {
      guard let folder = folders[current] else { return nil }
      if let root = folder.root {
        return names.reversed().reduce(root) { $0.appending($1) }
      }
      names.append(folder.name)
      guard let parent = folder.parent else { return nil }
      current = parent
    }
    return nil
  }

  func path(of entry: Entry) -> FilePath? {
    path(ofFolder: entry.folder)?.appending(entry.name)
  }

  func refreshCounts() {
    summary.folders = folders.count
    summary.documents = documents.count
  }

  // MARK: - Keys

  /// The fingerprint of the key the file at `path` carries, if it carries one that can be
  /// read.
  static func key(at path: FilePath) -> KeyFingerprint? {
    // A key that cannot be read is none to follow the file by; callers that must tell
    // "absent" from "unreadable" read the key themselves.
    guard case .key(let key)? = try? readKey(at: path) else { return nil }
    return key.fingerprint
  }

  /// The file's key attribute, read without following a final symbolic link.
  static func readKey(at path: FilePath) throws(SystemCallError) -> KeyAttribute.Found {
    guard
      let value = try ExtendedAttributes.value(
        KeyAttribute.name, of: .path(path, followSymlinks: false), sizeHint: 64)
    else { return .absent }
    return KeyAttribute.decode(value)
  }
}
