import DocumentBookmarks
import DocumentWatching

// Watching documents: a watcher started on folders or documents, whose events the caller
// reads when its descriptor is readable. See docbm.h for the C declarations.

/// `docbm_watch_flags` values.
private let repairsFlag: UInt32 = 1
private let notRecursiveFlag: UInt32 = 2

/// Starts a watcher on the `count` paths in `paths`, made by `make` with the options
/// `flags` name.
private func startWatcher(
  _ paths: UnsafePointer<UnsafePointer<CChar>?>?, _ count: UInt, _ flags: UInt32, of function: String,
  reportingTo error: UnsafeMutablePointer<OpaquePointer?>?,
  _ make: ([FilePath], WatchOptions) throws(DocbmError) -> DocumentWatcher
) -> OpaquePointer? {
  guard count > 0, let paths else {
    ErrorHandle.report(ErrorHandle(invalidArgument: "at least one path", of: function), to: error)
    return nil
  }
  guard flags & ~(repairsFlag | notRecursiveFlag) == 0 else {
    ErrorHandle.report(
      ErrorHandle(invalid: "\(function) got flags \(flags), which docbm.h does not list"), to: error)
    return nil
  }
  var list: [FilePath] = []
  for index in 0..<Int(count) {
    guard let path = CallOutcome.path(paths[index], named: "a path", of: function, reportingTo: error) else {
      return nil
    }
    list.append(path)
  }
  let options = WatchOptions(repairs: flags & repairsFlag != 0, recursive: flags & notRecursiveFlag == 0)
  return CallOutcome.run(reportingTo: error, failure: nil) { () throws(DocbmError) in
    try WatcherHandle(make(list, options)).retainedPointer()
  }
}

/// `docbm_watcher *docbm_watcher_watch_folders(const char *const *folders, size_t count,
/// unsigned flags, docbm_error **error)`
@c public func docbm_watcher_watch_folders(
  _ folders: UnsafePointer<UnsafePointer<CChar>?>?, _ count: UInt, _ flags: UInt32,
  _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> OpaquePointer? {
  startWatcher(folders, count, flags, of: "docbm_watcher_watch_folders", reportingTo: error) {
    (paths, options) throws(DocbmError) in try DocumentWatcher(watching: paths, options: options)
  }
}

/// `docbm_watcher *docbm_watcher_follow_documents(const char *const *documents,
/// size_t count, unsigned flags, docbm_error **error)`
@c public func docbm_watcher_follow_documents(
  _ documents: UnsafePointer<UnsafePointer<CChar>?>?, _ count: UInt, _ flags: UInt32,
  _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> OpaquePointer? {
  startWatcher(documents, count, flags, of: "docbm_watcher_follow_documents", reportingTo: error) {
    (paths, options) throws(DocbmError) in try DocumentWatcher(following: paths, options: options)
  }
}

/// `int docbm_watcher_descriptor(const docbm_watcher *watcher)`
@c public func docbm_watcher_descriptor(_ watcher: OpaquePointer) -> Int32 {
  WatcherHandle.borrow(watcher).queue.notifier.descriptor
}

/// `docbm_watch_event *docbm_watcher_next_event(docbm_watcher *watcher)`
@c public func docbm_watcher_next_event(_ watcher: OpaquePointer) -> OpaquePointer? {
  WatcherHandle.borrow(watcher).queue.next().map { WatchEventHandle($0).retainedPointer() }
}

/// `int docbm_watcher_has_nothing_left(const docbm_watcher *watcher)`
@c public func docbm_watcher_has_nothing_left(_ watcher: OpaquePointer) -> Int32 {
  WatcherHandle.borrow(watcher).watcher.hasNothingLeftToWatch ? 1 : 0
}

/// `void docbm_watcher_close(docbm_watcher *watcher)`
@c public func docbm_watcher_close(_ watcher: OpaquePointer?) {
  WatcherHandle.release(watcher)
}

/// `docbm_event_kind docbm_watch_event_kind(const docbm_watch_event *event)`
@c public func docbm_watch_event_kind(_ event: OpaquePointer) -> UInt32 {
  WatchEventHandle.borrow(event).event.kind.cValue
}

/// `const char *docbm_event_kind_name(docbm_event_kind kind)`
@c public func docbm_event_kind_name(_ kind: UInt32) -> UnsafePointer<CChar>? {
  CNames.eventKinds[kind]
}

/// `const char *docbm_watch_event_path(const docbm_watch_event *event)`
@c public func docbm_watch_event_path(_ event: OpaquePointer) -> UnsafePointer<CChar>? {
  WatchEventHandle.borrow(event).path.map { UnsafePointer($0.pointer) }
}

/// `const char *docbm_watch_event_old_path(const docbm_watch_event *event)`
@c public func docbm_watch_event_old_path(_ event: OpaquePointer) -> UnsafePointer<CChar>? {
  WatchEventHandle.borrow(event).oldPath.map { UnsafePointer($0.pointer) }
}

/// `const char *docbm_watch_event_key(const docbm_watch_event *event)`
@c public func docbm_watch_event_key(_ event: OpaquePointer) -> UnsafePointer<CChar>? {
  WatchEventHandle.borrow(event).key.map { UnsafePointer($0.pointer) }
}

/// `int docbm_watch_event_is_own_save(const docbm_watch_event *event)`
@c public func docbm_watch_event_is_own_save(_ event: OpaquePointer) -> Int32 {
  WatchEventHandle.borrow(event).event.isOwnSave ? 1 : 0
}

/// `const char *docbm_watch_event_message(const docbm_watch_event *event)`
@c public func docbm_watch_event_message(_ event: OpaquePointer) -> UnsafePointer<CChar> {
  UnsafePointer(WatchEventHandle.borrow(event).message.pointer)
}

/// `void docbm_watch_event_free(docbm_watch_event *event)`
@c public func docbm_watch_event_free(_ event: OpaquePointer?) {
  WatchEventHandle.release(event)
}
