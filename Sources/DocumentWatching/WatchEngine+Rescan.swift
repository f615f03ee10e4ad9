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
    // Folders that could not be listed again, and those inside them: what was known of them
    // stands, rather than be taken for gone.
    var unlisted: Set<Int32> = []
    func keepAsKnown(_ watch: Int32?, _ path: FilePath, _ error: SystemCallError) {
      events.append(
        DocumentEvent(
          .notWatched, path: path,
          message: "\(path) could not be listed again (\(error)): what was known of it stands"))
      guard let watch else { return }
      for inside in folders.keys where isInside(inside, watch) {
        listed.insert(inside)
        unlisted.insert(inside)
      }
    }
    while let (folderPath, parent, name, isRoot) = stack.popLast() {
      let watch: Int32
      do {
        watch = try inotify.watch(folderPath, for: Self.folderEvents)
      } catch {
        // A folder gone since is forgotten below; one still there is kept as it was known.
        if error.errno != .noSuchFile && error.errno != .notDirectory {
          let known =
            parent.flatMap { folderByEntry[Entry(folder: $0, name: name)] }
            ?? folders.first { $0.value.root == folderPath }?.key
          keepAsKnown(known, folderPath, error)
        }
        continue
      }
      listed.insert(watch)
      if let old = folders[watch], let oldParent = old.parent, oldParent != parent || old.name != name {
        folderByEntry[Entry(folder: oldParent, name: old.name)] = nil
      }
      folders[watch] = Folder(parent: parent, name: name, root: isRoot ? folderPath : nil)
      if let parent { folderByEntry[Entry(folder: parent, name: name)] = watch }
      let listing: DirectoryStream
      do {
        listing = try DirectoryStream(folderPath)
      } catch {
        keepAsKnown(watch, folderPath, error)
        continue
      }
      defer {
        if let failure = listing.failure {
          keepAsKnown(watch, folderPath, failure)
        }
      }
      while let item = listing.next() {
        let childPath = folderPath.appending(item.name)
        let entry = Entry(folder: watch, name: item.name)
        if item.type == .directory {
          if mode == .folders && options.recursive { stack.append((childPath, watch, item.name, false)) }
          continue
        }
        // A file gone again since it was listed is not there to follow.
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
      } else if unlisted.contains(document.entry.folder) {
        // In a folder that could not be listed again: not seen, so not shown gone either.
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
