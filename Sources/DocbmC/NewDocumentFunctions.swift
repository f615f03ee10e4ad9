import DocumentBookmarks
import FoundationEssentials

// `docbm_new_document`: bookmarks made before the document exists, and its first save.
// See docbm.h for the C declarations.

/// `docbm_new_document *docbm_new_document_open(const char *path, docbm_escrow_use escrow,
/// docbm_error **error)`
@c public func docbm_new_document_open(
  _ path: UnsafePointer<CChar>?, _ escrow: UInt32, _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> OpaquePointer? {
  let function = "docbm_new_document_open"
  guard let path = CallOutcome.path(path, named: "a path", of: function, reportingTo: error) else {
    return nil
  }
  // DOCBM_USER_ESCROW is 0, DOCBM_NO_ESCROW 1.
  guard escrow <= 1 else {
    ErrorHandle.report(
      ErrorHandle(invalid: "\(function) got escrow \(escrow), not a docbm_escrow_use"), to: error)
    return nil
  }
  return NewDocumentHandle(path: path, escrow: escrow == 0 ? .default : nil).retainedPointer()
}

/// `void docbm_new_document_close(docbm_new_document *draft)`
@c public func docbm_new_document_close(_ draft: OpaquePointer?) {
  NewDocumentHandle.release(draft)
}

/// `char *docbm_new_document_make_bookmark(const docbm_new_document *draft,
/// const char *target, docbm_error **error)`
@c public func docbm_new_document_make_bookmark(
  _ draft: OpaquePointer?, _ target: UnsafePointer<CChar>?, _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> UnsafeMutablePointer<CChar>? {
  let function = "docbm_new_document_make_bookmark"
  guard CallOutcome.present(draft, named: "a new document", of: function, reportingTo: error), let draft,
    let target = CallOutcome.path(target, named: "a target", of: function, reportingTo: error)
  else { return nil }
  let new = NewDocumentHandle.borrow(draft).draft
  return CallOutcome.run(reportingTo: error, failure: nil) { () throws(DocbmError) in
    CStringCopy(try new.makeBookmark(to: target).text).pointer
  }
}

/// `docbm_document *docbm_document_create(const docbm_new_document *draft,
/// const void *bytes, size_t length, docbm_error **error)`
@c public func docbm_document_create(
  _ draft: OpaquePointer?, _ bytes: UnsafeRawPointer?, _ length: UInt,
  _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> OpaquePointer? {
  let function = "docbm_document_create"
  guard CallOutcome.present(draft, named: "a new document", of: function, reportingTo: error),
    length == 0 || CallOutcome.present(bytes, named: "bytes", of: function, reportingTo: error),
    let draft
  else { return nil }
  let data = bytes.map { Data(bytes: $0, count: Int(length)) } ?? Data()
  let new = NewDocumentHandle.borrow(draft).draft
  return CallOutcome.run(reportingTo: error, failure: nil) { () throws(DocbmError) in
    DocumentHandle(try new.createDocument(with: data)).retainedPointer()
  }
}

/// `docbm_document *docbm_document_create_with_writer(const docbm_new_document *draft,
/// docbm_writer writer, void *context, docbm_error **error)`
@c public func docbm_document_create_with_writer(
  _ draft: OpaquePointer?,
  _ writer: (@convention(c) (UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Int32)?,
  _ context: UnsafeMutableRawPointer?, _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> OpaquePointer? {
  let function = "docbm_document_create_with_writer"
  guard CallOutcome.present(draft, named: "a new document", of: function, reportingTo: error),
    CallOutcome.present(writer, named: "a writer", of: function, reportingTo: error),
    let draft, let writer
  else { return nil }
  let new = NewDocumentHandle.borrow(draft).draft
  return CallOutcome.run(reportingTo: error, failure: nil) { () throws(DocbmError) in
    let document = try new.createDocumentByPath { path in
      let status = path.withCString { writer($0, context) }
      if status != 0 { throw CallbackFailure(callback: "the writer", status: status) }
    }
    return DocumentHandle(document).retainedPointer()
  }
}
