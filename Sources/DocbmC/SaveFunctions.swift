import DocumentBookmarks
import FoundationEssentials

// Saving a `docbm_document` safely. See docbm.h for the C declarations.

/// `int docbm_replace_document(const docbm_document *document, const void *bytes,
/// size_t length, docbm_error **error)`
@c public func docbm_replace_document(
  _ document: OpaquePointer?, _ bytes: UnsafeRawPointer?, _ length: UInt,
  _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
  replace(document, bytes, length, options: ReplaceOptions(), function: "docbm_replace_document", error)
}

/// `int docbm_replace_document_allowing(const docbm_document *document, const void *bytes,
/// size_t length, unsigned allowances, docbm_error **error)`
@c public func docbm_replace_document_allowing(
  _ document: OpaquePointer?, _ bytes: UnsafeRawPointer?, _ length: UInt, _ allowances: UInt32,
  _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
  let function = "docbm_replace_document_allowing"
  guard let options = ReplaceOptions(cAllowances: allowances) else {
    ErrorHandle.report(
      ErrorHandle(
        invalid: "\(function) was given allowances \(allowances), which name a value docbm.h does not list"),
      to: error)
    return -1
  }
  return replace(document, bytes, length, options: options, function: function, error)
}

/// Saves `length` bytes at `bytes` over `document` with `options`, for the C entry points.
private func replace(
  _ document: OpaquePointer?, _ bytes: UnsafeRawPointer?, _ length: UInt, options: ReplaceOptions,
  function: String, _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
  guard CallOutcome.present(document, named: "a document", of: function, reportingTo: error),
    length == 0 || CallOutcome.present(bytes, named: "bytes", of: function, reportingTo: error),
    let document
  else { return -1 }
  let data = bytes.map { Data(bytes: $0, count: Int(length)) } ?? Data()
  let anchored = DocumentHandle.borrow(document).document
  return CallOutcome.run(reportingTo: error, failure: -1) { () throws(DocbmError) in
    try anchored.replaceDocument(with: data, options: options)
    return 0
  }
}

/// `int docbm_replace_document_with_writer(const docbm_document *document,
/// docbm_writer writer, void *context, docbm_error **error)`
@c public func docbm_replace_document_with_writer(
  _ document: OpaquePointer?,
  _ writer: (@convention(c) (UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Int32)?,
  _ context: UnsafeMutableRawPointer?, _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
  let function = "docbm_replace_document_with_writer"
  guard CallOutcome.present(document, named: "a document", of: function, reportingTo: error),
    CallOutcome.present(writer, named: "a writer", of: function, reportingTo: error),
    let document, let writer
  else { return -1 }
  let anchored = DocumentHandle.borrow(document).document
  return CallOutcome.run(reportingTo: error, failure: -1) { () throws(DocbmError) in
    try anchored.replaceDocumentByPath { path in
      let status = path.withCString { writer($0, context) }
      if status != 0 { throw CallbackFailure(callback: "the writer", status: status) }
    }
    return 0
  }
}
