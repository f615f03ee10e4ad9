import DocumentBookmarkStore
import DocumentBookmarks
import FoundationEssentials

// A store of remembered files (recent documents, places): open, add, list, resolve, pin,
// forget, and a descriptor that says when the records changed. See docbm.h for the C
// declarations.

/// A store call's outcome: `body`'s value, or `failure` with the store's error reported.
/// The store then follows other processes, should the call have made its folder.
private func storeCall<Value>(
  _ handle: StoreHandle?, reportingTo error: UnsafeMutablePointer<OpaquePointer?>?, failure: Value,
  _ body: () throws(BookmarkStoreError<JSONValue>) -> Value
) -> Value {
  defer { handle?.following() }
  return CallOutcome.run(reportingTo: error, failure: failure, body)
}

/// The key in `argument`, or `nil` with an invalid-argument error when it is NULL, empty
/// or not UTF-8 (a key is text: bytes that are not would be replaced, and two keys could
/// become one).
private func key(
  _ argument: UnsafePointer<CChar>?, of function: String,
  reportingTo error: UnsafeMutablePointer<OpaquePointer?>?
) -> JSONValue? {
  guard let argument, argument.pointee != 0 else {
    ErrorHandle.report(ErrorHandle(invalidArgument: "a key", of: function), to: error)
    return nil
  }
  guard let text = String(validatingCString: argument) else {
    ErrorHandle.report(
      ErrorHandle(invalid: "\(function) needs a key of UTF-8 text, and it was not"), to: error)
    return nil
  }
  return .string(text)
}

/// `docbm_store *docbm_store_open(const char *path, size_t recents_limit,
/// docbm_error **error)`
@c public func docbm_store_open(
  _ path: UnsafePointer<CChar>?, _ recentsLimit: UInt, _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> OpaquePointer? {
  guard let file = CallOutcome.path(path, named: "a path", of: "docbm_store_open", reportingTo: error) else {
    return nil
  }
  let policy =
    recentsLimit == 0
    ? StorePolicy(duplicates: .returnExisting)
    : StorePolicy.recents(limit: Int(clamping: recentsLimit))
  return storeCall(nil, reportingTo: error, failure: nil) { () throws(BookmarkStoreError<JSONValue>) in
    try StoreHandle(file: file, policy: policy).retainedPointer()
  }
}

/// `void docbm_store_close(docbm_store *store)`
@c public func docbm_store_close(_ store: OpaquePointer?) {
  StoreHandle.release(store)
}

/// `const char *docbm_store_path(const docbm_store *store)`
@c public func docbm_store_path(_ store: OpaquePointer) -> UnsafePointer<CChar> {
  UnsafePointer(StoreHandle.borrow(store).path.pointer)
}

/// Runs a change of one record: checks the store and the key (when `key` is NULL, the
/// key is `path` as text, if one is given), then `body`, returning the record it gives as
/// a new `docbm_store_record`.
private func recordCall(
  _ store: OpaquePointer?, _ key: UnsafePointer<CChar>?, orPath path: FilePath? = nil, of function: String,
  reportingTo error: UnsafeMutablePointer<OpaquePointer?>?,
  _ body: (StoreHandle.Store, JSONValue) throws(BookmarkStoreError<JSONValue>) -> StoreRecord<
    JSONValue, JSONValue
  >
) -> OpaquePointer? {
  guard CallOutcome.present(store, named: "a store", of: function, reportingTo: error), let store else {
    return nil
  }
  let chosen: JSONValue
  if key == nil, let path {
    // Escaped as FilePath prints it (no two paths alike), as `docbm store add` keys it.
    chosen = .string(path.description)
  } else {
    guard let given = DocbmC.key(key, of: function, reportingTo: error) else { return nil }
    chosen = given
  }
  let handle = StoreHandle.borrow(store)
  return storeCall(handle, reportingTo: error, failure: nil) { () throws(BookmarkStoreError<JSONValue>) in
    StoreRecordHandle(try body(handle.store, chosen)).retainedPointer()
  }
}

/// Adds `target` under `key` (its path when NULL), with or without a bookmark.
private func add(
  _ store: OpaquePointer?, _ target: UnsafePointer<CChar>?, _ key: UnsafePointer<CChar>?, pathOnly: Bool,
  of function: String, reportingTo error: UnsafeMutablePointer<OpaquePointer?>?
) -> OpaquePointer? {
  guard CallOutcome.present(store, named: "a store", of: function, reportingTo: error),
    let path = CallOutcome.path(target, named: "a target", of: function, reportingTo: error)
  else { return nil }
  return recordCall(store, key, orPath: path, of: function, reportingTo: error) {
    store, key throws(BookmarkStoreError<JSONValue>) in
    pathOnly
      ? try store.core.add(pathOnly: path, key: key, metadata: .object([:]))
      : try store.core.add(target: path, key: key, metadata: .object([:]))
  }
}

/// `docbm_store_record *docbm_store_add(docbm_store *store, const char *target,
/// const char *key, docbm_error **error)`
@c public func docbm_store_add(
  _ store: OpaquePointer?, _ target: UnsafePointer<CChar>?, _ key: UnsafePointer<CChar>?,
  _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> OpaquePointer? {
  add(store, target, key, pathOnly: false, of: "docbm_store_add", reportingTo: error)
}

/// `docbm_store_record *docbm_store_add_path_only(docbm_store *store, const char *path,
/// const char *key, docbm_error **error)`
@c public func docbm_store_add_path_only(
  _ store: OpaquePointer?, _ path: UnsafePointer<CChar>?, _ key: UnsafePointer<CChar>?,
  _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> OpaquePointer? {
  add(store, path, key, pathOnly: true, of: "docbm_store_add_path_only", reportingTo: error)
}

/// `docbm_store_record *docbm_store_resolve(docbm_store *store, const char *key,
/// docbm_error **error)`
@c public func docbm_store_resolve(
  _ store: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> OpaquePointer? {
  recordCall(store, key, of: "docbm_store_resolve", reportingTo: error) {
    store, key throws(BookmarkStoreError<JSONValue>) in
    try store.core.resolve(key).record
  }
}

/// `docbm_store_record *docbm_store_set_pinned(docbm_store *store, const char *key,
/// int pinned, docbm_error **error)`
@c public func docbm_store_set_pinned(
  _ store: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ pinned: Int32,
  _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> OpaquePointer? {
  recordCall(store, key, of: "docbm_store_set_pinned", reportingTo: error) {
    store, key throws(BookmarkStoreError<JSONValue>) in
    try store.core.setPinned(key, pinned != 0)
  }
}

/// `docbm_store_record *docbm_store_set_metadata(docbm_store *store, const char *key,
/// const char *json, docbm_error **error)`
@c public func docbm_store_set_metadata(
  _ store: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ json: UnsafePointer<CChar>?,
  _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> OpaquePointer? {
  let function = "docbm_store_set_metadata"
  guard let json, json.pointee != 0 else {
    ErrorHandle.report(ErrorHandle(invalidArgument: "metadata as JSON text", of: function), to: error)
    return nil
  }
  // Why it does not parse is JSONDecoder's wording, not the caller's concern: the text is
  // refused whole, with the error below.
  guard let text = String(validatingCString: json),
    let metadata = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
  else {
    ErrorHandle.report(
      ErrorHandle(invalid: "\(function) needs metadata as JSON text (UTF-8), and it did not parse"), to: error
    )
    return nil
  }
  return recordCall(store, key, of: function, reportingTo: error) {
    store, key throws(BookmarkStoreError<JSONValue>) in
    try store.core.updateMetadata(key, metadata)
  }
}

/// `docbm_store_record *docbm_store_mark_used(docbm_store *store, const char *key,
/// docbm_error **error)`
@c public func docbm_store_mark_used(
  _ store: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> OpaquePointer? {
  recordCall(store, key, of: "docbm_store_mark_used", reportingTo: error) {
    store, key throws(BookmarkStoreError<JSONValue>) in
    try store.core.markUsed(key)
  }
}

/// `int docbm_store_forget(docbm_store *store, const char *key, docbm_error **error)`
@c public func docbm_store_forget(
  _ store: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
  let function = "docbm_store_forget"
  guard CallOutcome.present(store, named: "a store", of: function, reportingTo: error), let store,
    let key = DocbmC.key(key, of: function, reportingTo: error)
  else { return -1 }
  let handle = StoreHandle.borrow(store)
  return storeCall(handle, reportingTo: error, failure: -1) { () throws(BookmarkStoreError<JSONValue>) in
    try handle.store.core.forget([key]).isEmpty ? 0 : 1
  }
}

/// `docbm_store_records *docbm_store_list(docbm_store *store, docbm_error **error)`
@c public func docbm_store_list(
  _ store: OpaquePointer?, _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> OpaquePointer? {
  guard CallOutcome.present(store, named: "a store", of: "docbm_store_list", reportingTo: error), let store
  else {
    return nil
  }
  let handle = StoreHandle.borrow(store)
  return storeCall(handle, reportingTo: error, failure: nil) { () throws(BookmarkStoreError<JSONValue>) in
    StoreRecordsHandle(try handle.store.core.load()).retainedPointer()
  }
}

/// `long docbm_store_refresh(docbm_store *store, docbm_error **error)`
@c public func docbm_store_refresh(
  _ store: OpaquePointer?, _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> Int {
  guard CallOutcome.present(store, named: "a store", of: "docbm_store_refresh", reportingTo: error), let store
  else { return -1 }
  let handle = StoreHandle.borrow(store)
  return storeCall(handle, reportingTo: error, failure: -1) { () throws(BookmarkStoreError<JSONValue>) in
    try handle.store.core.refreshStatuses().count
  }
}

/// `int docbm_store_change_descriptor(const docbm_store *store)`
@c public func docbm_store_change_descriptor(_ store: OpaquePointer) -> Int32 {
  StoreHandle.borrow(store).changes.notifier.descriptor
}

/// `unsigned long docbm_store_take_changes(docbm_store *store)`
@c public func docbm_store_take_changes(_ store: OpaquePointer) -> UInt {
  UInt(StoreHandle.borrow(store).changes.take())
}

// MARK: Records

/// `size_t docbm_store_records_count(const docbm_store_records *records)`
@c public func docbm_store_records_count(_ records: OpaquePointer) -> UInt {
  UInt(StoreRecordsHandle.borrow(records).records.count)
}

/// `const docbm_store_record *docbm_store_records_at(const docbm_store_records *records,
/// size_t index)`
@c public func docbm_store_records_at(_ records: OpaquePointer, _ index: UInt) -> OpaquePointer? {
  let list = StoreRecordsHandle.borrow(records).records
  guard index < list.count else { return nil }
  return OpaquePointer(Unmanaged.passUnretained(list[Int(index)]).toOpaque())
}

/// `void docbm_store_records_free(docbm_store_records *records)`
@c public func docbm_store_records_free(_ records: OpaquePointer?) {
  StoreRecordsHandle.release(records)
}

/// `const char *docbm_store_record_key(const docbm_store_record *record)`
@c public func docbm_store_record_key(_ record: OpaquePointer) -> UnsafePointer<CChar> {
  UnsafePointer(StoreRecordHandle.borrow(record).key.pointer)
}

/// `const char *docbm_store_record_path(const docbm_store_record *record)`
@c public func docbm_store_record_path(_ record: OpaquePointer) -> UnsafePointer<CChar> {
  UnsafePointer(StoreRecordHandle.borrow(record).path.pointer)
}

/// `const char *docbm_store_record_metadata(const docbm_store_record *record)`
@c public func docbm_store_record_metadata(_ record: OpaquePointer) -> UnsafePointer<CChar> {
  UnsafePointer(StoreRecordHandle.borrow(record).metadata.pointer)
}

/// `docbm_record_state docbm_store_record_state(const docbm_store_record *record)`
@c public func docbm_store_record_state(_ record: OpaquePointer) -> UInt32 {
  StoreRecordHandle.borrow(record).stateCValue
}

/// `docbm_code docbm_store_record_failure(const docbm_store_record *record)`
@c public func docbm_store_record_failure(_ record: OpaquePointer) -> UInt32 {
  StoreRecordHandle.borrow(record).record.status.failure?.cValue ?? 0
}

/// `int docbm_store_record_is_pinned(const docbm_store_record *record)`
@c public func docbm_store_record_is_pinned(_ record: OpaquePointer) -> Int32 {
  StoreRecordHandle.borrow(record).record.isPinned ? 1 : 0
}

/// `int docbm_store_record_has_bookmark(const docbm_store_record *record)`
@c public func docbm_store_record_has_bookmark(_ record: OpaquePointer) -> Int32 {
  StoreRecordHandle.borrow(record).record.hasBookmark ? 1 : 0
}

/// `int docbm_store_record_is_gone(const docbm_store_record *record)`
@c public func docbm_store_record_is_gone(_ record: OpaquePointer) -> Int32 {
  StoreRecordHandle.borrow(record).isGone ? 1 : 0
}

/// `int docbm_store_record_is_in_trash(const docbm_store_record *record)`
@c public func docbm_store_record_is_in_trash(_ record: OpaquePointer) -> Int32 {
  StoreRecordHandle.borrow(record).isInTrash ? 1 : 0
}

/// `long long docbm_store_record_created(const docbm_store_record *record)`
@c public func docbm_store_record_created(_ record: OpaquePointer) -> Int64 {
  StoreRecordHandle.borrow(record).record.createdAt.cNanoseconds
}

/// `long long docbm_store_record_last_used(const docbm_store_record *record)`
@c public func docbm_store_record_last_used(_ record: OpaquePointer) -> Int64 {
  StoreRecordHandle.borrow(record).record.lastUsedAt?.cNanoseconds ?? -1
}

/// `void docbm_store_record_free(docbm_store_record *record)`
@c public func docbm_store_record_free(_ record: OpaquePointer?) {
  StoreRecordHandle.release(record)
}

/// `const char *docbm_record_state_name(docbm_record_state state)`
@c public func docbm_record_state_name(_ state: UInt32) -> UnsafePointer<CChar>? {
  CNames.recordStates[state]
}

extension BookmarkStoreError: CReportableError where Key == JSONValue {
  var errorHandle: ErrorHandle { ErrorHandle(self) }
}

extension ErrorHandle {
  /// A store's failure: a docbm call's as it is; the store's own under its
  /// ``StoreFailureCode``.
  convenience init(_ error: BookmarkStoreError<JSONValue>) {
    if case .docbm(let failure) = error {
      self.init(failure)
    } else if let (code, path) = error.storeFailure {
      self.init(store: code.cValue, name: code.rawValue, message: error.keyedDescription, path: path)
    } else {
      // libdocbm's stores return the existing record for a duplicate and have no
      // validators, so neither failure reaches a C caller.
      self.init(DocbmError(.systemFailure, message: error.description))
    }
  }
}
