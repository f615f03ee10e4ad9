import DocbmSystem
import DocumentBookmarks

extension WatchEngine {
  /// Lists every watched folder again after the kernel dropped events, and reports what
  /// became of each document: moved, replaced, deleted, key lost (and repaired).
  func rescan(_ events: inout [DocumentEvent]) {
    summary.rescans += 1
    events.append(
      DocumentEvent(
        .rescanned, path: nil,
        message:
          "the kernel dropped events (its queue overflowed, fs.inotify.max_queued_events): the watched folders were listed again"
      ))
    vacancies.removeAll()
    documentMoves.removeAll()
    folderMoves.removeAll()
    // Where each followed file is now, and which new files stand at followed names.
    var foundAt: [DocumentIdentity: Entry] = [:]
    var standing: [Entry: DocumentIdentity] = [:]
    var fresh: [(Entry, FilePath)] = []
    var stack: [(FilePath, Int32?, [UInt8], Bool)] = []
    if mode == .folders {
      stack = rootPaths.map { ($0, nil, $0.lastComponent, true) }
    } else {
      stack = folders.compactMap { watch, folder in folder.root.map { ($0, nil, folder.name, true) } }
    }
    var listed: Set<Int32> = []
    while let (folderPath, parent, name, isRoot) = stack.popLast() {
      guard let watch = try? inotify.watch(folderPath, for: Self.folderEvents) else { continue }
      listed.insert(watch)
      if let old = folders[watch], let oldParent = old.parent, oldParent != parent || old.name != name {
        folderByEntry[Entry(folder: oldParent, name: old.name)] = nil
      }
      folders[watch] = Folder(parent: parent, name: name, root: isRoot ? folderPath : nil)
      if let parent { folderByEntry[Entry(folder: parent, name: name)] = watch }
      guard let listing = try? DirectoryStream(folderPath) else { continue }
      while let item = listing.next() {
        let childPath = folderPath.appending(item.name)
        let entry = Entry(folder: watch, name: item.name)
        if item.type == .directory {
          if mode == .folders && options.recursive { stack.append((childPath, watch, item.name, false)) }
          continue
        }
        guard item.type == .regular || item.type == .unknown,
          let status = try? FileStatus.of(childPath, followSymlinks: false), status.kind == .regular
        else { continue }
        let identity = DocumentIdentity(status)
        if documents[identity] != nil {
          foundAt[identity] = entry
        } else if documentByEntry[entry] != nil {
          standing[entry] = identity
        } else if mode == .folders {
          fresh.append((entry, childPath))
        }
      }
    }
    for (watch, folder) in folders where !listed.contains(watch) {
      if let root = folder.root { rootGone(root, watch: watch, &events) }
      inotify.unwatch(watch)
      forgetFolder(watch, &events)
    }
    for (identity, document) in documents {
      if let entry = foundAt[identity] {
        if entry != document.entry, let old = path(of: document.entry), let now = path(of: entry) {
          documentByEntry[document.entry] = nil
          moveDocument(identity, from: old, to: entry, path: now, &events)
        }
        if let now = path(of: entry) { checkKey(identity, at: now, retryRepair: true, &events) }
      } else if let replacement = standing[document.entry], let now = path(of: document.entry) {
        replace(identity, with: replacement, at: document.entry, path: now, oldPath: now, &events)
      } else {
        let old = path(of: document.entry)
        documents[identity] = nil
        if documentByEntry[document.entry] == identity { documentByEntry[document.entry] = nil }
        events.append(
          DocumentEvent(
            .deleted, oldPath: old, path: nil, oldIdentity: identity, fingerprint: document.fingerprint,
            message:
              "\(old.map(String.init(describing:)) ?? "a document") is no longer in the watched folders (deleted or moved out while events were dropped)"
          ))
      }
    }
    for (entry, path) in fresh where documentByEntry[entry] == nil {
      consider(entry, at: path, announce: true, &events)
    }
  }
}
