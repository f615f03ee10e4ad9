import DocumentBookmarks

// The user's escrow: its keys listed, exported for another machine, and imported from one.
// See docbm.h for the C declarations.

/// Stores `value` where `out` points, when it is not NULL.
private func store(_ value: Int, in out: UnsafeMutablePointer<UInt>?) {
  out?.pointee = UInt(value)
}

/// `docbm_escrow_entries *docbm_escrow_list(docbm_error **error)`
@c public func docbm_escrow_list(_ error: UnsafeMutablePointer<OpaquePointer?>?) -> OpaquePointer? {
  CallOutcome.run(reportingTo: error, failure: nil) { () throws(DocbmError) in
    EscrowEntriesHandle(try KeyEscrow.default.listedEntries()).retainedPointer()
  }
}

/// `size_t docbm_escrow_entries_count(const docbm_escrow_entries *entries)`
@c public func docbm_escrow_entries_count(_ entries: OpaquePointer) -> UInt {
  UInt(EscrowEntriesHandle.borrow(entries).entries.count)
}

/// `const char *docbm_escrow_entry_key(const docbm_escrow_entries *entries, size_t index)`
@c public func docbm_escrow_entry_key(_ entries: OpaquePointer, _ index: UInt) -> UnsafePointer<CChar>? {
  EscrowEntriesHandle.borrow(entries).entry(index).map { UnsafePointer($0.key.pointer) }
}

/// `long long docbm_escrow_entry_created(const docbm_escrow_entries *entries, size_t index)`
@c public func docbm_escrow_entry_created(_ entries: OpaquePointer, _ index: UInt) -> Int64 {
  EscrowEntriesHandle.borrow(entries).entry(index)?.created ?? -1
}

/// `size_t docbm_escrow_entry_document_count(const docbm_escrow_entries *entries,
/// size_t index)`
@c public func docbm_escrow_entry_document_count(_ entries: OpaquePointer, _ index: UInt) -> UInt {
  UInt(EscrowEntriesHandle.borrow(entries).entry(index)?.documents.count ?? 0)
}

/// `const char *docbm_escrow_entry_document_path(const docbm_escrow_entries *entries,
/// size_t index, size_t document)`
@c public func docbm_escrow_entry_document_path(
  _ entries: OpaquePointer, _ index: UInt, _ document: UInt
) -> UnsafePointer<CChar>? {
  EscrowEntriesHandle.borrow(entries).document(index, document).map { UnsafePointer($0.path.pointer) }
}

/// `const char *docbm_escrow_entry_document_origin(const docbm_escrow_entries *entries,
/// size_t index, size_t document)`
@c public func docbm_escrow_entry_document_origin(
  _ entries: OpaquePointer, _ index: UInt, _ document: UInt
) -> UnsafePointer<CChar>? {
  EscrowEntriesHandle.borrow(entries).document(index, document).map { UnsafePointer($0.origin.pointer) }
}

/// `long long docbm_escrow_entry_document_confirmed(const docbm_escrow_entries *entries,
/// size_t index, size_t document)`
@c public func docbm_escrow_entry_document_confirmed(
  _ entries: OpaquePointer, _ index: UInt, _ document: UInt
)
  -> Int64
{
  EscrowEntriesHandle.borrow(entries).document(index, document)?.confirmed ?? -1
}

/// `void docbm_escrow_entries_free(docbm_escrow_entries *entries)`
@c public func docbm_escrow_entries_free(_ entries: OpaquePointer?) {
  EscrowEntriesHandle.release(entries)
}

/// `int docbm_escrow_export(const char *file, int replacing, size_t *keys,
/// size_t *documents, docbm_error **error)`
@c public func docbm_escrow_export(
  _ file: UnsafePointer<CChar>?, _ replacing: Int32, _ keys: UnsafeMutablePointer<UInt>?,
  _ documents: UnsafeMutablePointer<UInt>?, _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
  guard let file = CallOutcome.path(file, named: "a file", of: "docbm_escrow_export", reportingTo: error)
  else {
    return -1
  }
  return CallOutcome.run(reportingTo: error, failure: -1) { () throws(DocbmError) in
    let transfer = try KeyEscrow.default.exportKeys(to: file, replacing: replacing != 0)
    store(transfer.keys, in: keys)
    store(transfer.documents, in: documents)
    return 0
  }
}

/// `int docbm_escrow_import(const char *file, size_t *keys, size_t *documents,
/// size_t *keys_already_held, docbm_error **error)`
@c public func docbm_escrow_import(
  _ file: UnsafePointer<CChar>?, _ keys: UnsafeMutablePointer<UInt>?,
  _ documents: UnsafeMutablePointer<UInt>?,
  _ alreadyHeld: UnsafeMutablePointer<UInt>?, _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
  guard let file = CallOutcome.path(file, named: "a file", of: "docbm_escrow_import", reportingTo: error)
  else {
    return -1
  }
  return CallOutcome.run(reportingTo: error, failure: -1) { () throws(DocbmError) in
    let transfer = try KeyEscrow.default.importKeys(from: file)
    store(transfer.keys, in: keys)
    store(transfer.documents, in: documents)
    store(transfer.keysAlreadyHeld, in: alreadyHeld)
    return 0
  }
}
