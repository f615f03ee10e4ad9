import DocumentBookmarks

// Adoption: a copy's bookmarks that no longer verify, listed, then made anew for the
// candidates the user confirmed. See docbm.h for the C declarations.

/// `docbm_adoption *docbm_adoption_list(const docbm_document *document,
/// docbm_error **error)`
@c public func docbm_adoption_list(
  _ document: OpaquePointer?, _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> OpaquePointer? {
  guard CallOutcome.present(document, named: "a document", of: "docbm_adoption_list", reportingTo: error),
    let document
  else { return nil }
  let anchored = DocumentHandle.borrow(document).document
  return CallOutcome.run(reportingTo: error, failure: nil) { () throws(DocbmError) in
    AdoptionHandle(try anchored.adoptionCandidates()).retainedPointer()
  }
}

/// `long docbm_adopt(const docbm_document *document, const docbm_adoption *adoption,
/// const size_t *indexes, size_t count, char **bookmarks, docbm_error **error)`
@c public func docbm_adopt(
  _ document: OpaquePointer?, _ adoption: OpaquePointer?, _ indexes: UnsafePointer<UInt>?, _ count: UInt,
  _ bookmarks: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
  _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> Int {
  let function = "docbm_adopt"
  guard CallOutcome.present(document, named: "a document", of: function, reportingTo: error),
    CallOutcome.present(adoption, named: "an adoption list", of: function, reportingTo: error),
    CallOutcome.arrays(
      indexes, named: "indexes", bookmarks, named: "bookmarks", count: count, of: function, reportingTo: error
    ),
    let document, let adoption
  else { return -1 }
  guard count > 0, let indexes, let bookmarks else { return 0 }
  let listed = AdoptionHandle.borrow(adoption).candidates
  let chosen = UnsafeBufferPointer(start: indexes, count: Int(count))
  if let wrong = chosen.first(where: { $0 >= listed.count }) {
    ErrorHandle.report(
      ErrorHandle(invalid: "\(function) got index \(wrong), but the list holds \(listed.count) candidates"),
      to: error)
    return -1
  }
  let anchored = DocumentHandle.borrow(document).document
  return CallOutcome.run(reportingTo: error, failure: -1) { () throws(DocbmError) in
    let adopted = try anchored.adopt(chosen.map { listed[Int($0)].candidate })
    for (index, bookmark) in adopted.enumerated() {
      bookmarks[index] = bookmark.map { CStringCopy($0.text).pointer }
    }
    return adopted.count { $0 != nil }
  }
}

/// The candidate at `index`, or `nil` past the end.
private func candidate(_ adoption: OpaquePointer, _ index: UInt) -> AdoptionHandle.Candidate? {
  let candidates = AdoptionHandle.borrow(adoption).candidates
  return index < candidates.count ? candidates[Int(index)] : nil
}

/// `size_t docbm_adoption_count(const docbm_adoption *adoption)`
@c public func docbm_adoption_count(_ adoption: OpaquePointer) -> UInt {
  UInt(AdoptionHandle.borrow(adoption).candidates.count)
}

/// `const char *docbm_adoption_bookmark(const docbm_adoption *adoption, size_t index)`
@c public func docbm_adoption_bookmark(_ adoption: OpaquePointer, _ index: UInt) -> UnsafePointer<CChar>? {
  candidate(adoption, index).map { UnsafePointer($0.bookmark.pointer) }
}

/// `const char *docbm_adoption_key(const docbm_adoption *adoption, size_t index)`
@c public func docbm_adoption_key(_ adoption: OpaquePointer, _ index: UInt) -> UnsafePointer<CChar>? {
  candidate(adoption, index).map { UnsafePointer($0.key.pointer) }
}

/// `const char *docbm_adoption_recorded_path(const docbm_adoption *adoption, size_t index)`
@c public func docbm_adoption_recorded_path(_ adoption: OpaquePointer, _ index: UInt) -> UnsafePointer<CChar>?
{
  candidate(adoption, index).map { UnsafePointer($0.recordedPath.pointer) }
}

/// `const char *docbm_adoption_recorded_document(const docbm_adoption *adoption,
/// size_t index)`
@c public func docbm_adoption_recorded_document(_ adoption: OpaquePointer, _ index: UInt) -> UnsafePointer<
  CChar
>? {
  candidate(adoption, index)?.recordedDocument.map { UnsafePointer($0.pointer) }
}

/// `const char *docbm_adoption_target(const docbm_adoption *adoption, size_t index)`
@c public func docbm_adoption_target(_ adoption: OpaquePointer, _ index: UInt) -> UnsafePointer<CChar>? {
  candidate(adoption, index)?.target.map { UnsafePointer($0.pointer) }
}

/// `int docbm_adoption_target_is_folder(const docbm_adoption *adoption, size_t index)`
@c public func docbm_adoption_target_is_folder(_ adoption: OpaquePointer, _ index: UInt) -> Int32 {
  candidate(adoption, index)?.candidate.targetKind == .folder ? 1 : 0
}

/// `int docbm_adoption_needs_own_confirmation(const docbm_adoption *adoption,
/// size_t index)`
@c public func docbm_adoption_needs_own_confirmation(_ adoption: OpaquePointer, _ index: UInt) -> Int32 {
  candidate(adoption, index)?.candidate.needsItsOwnConfirmation == true ? 1 : 0
}

/// `void docbm_adoption_free(docbm_adoption *adoption)`
@c public func docbm_adoption_free(_ adoption: OpaquePointer?) {
  AdoptionHandle.release(adoption)
}
