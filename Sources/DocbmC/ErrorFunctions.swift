// The accessors of `docbm_error`. See docbm.h for the C declarations.

/// `docbm_code docbm_error_code(const docbm_error *error)`
@c public func docbm_error_code(_ error: OpaquePointer) -> UInt32 {
  ErrorHandle.borrow(error).code
}

/// `docbm_recommendation docbm_error_recommendation(const docbm_error *error)`
@c public func docbm_error_recommendation(_ error: OpaquePointer) -> UInt32 {
  ErrorHandle.borrow(error).recommendation
}

/// `const char *docbm_error_message(const docbm_error *error)`
@c public func docbm_error_message(_ error: OpaquePointer) -> UnsafePointer<CChar> {
  UnsafePointer(ErrorHandle.borrow(error).message.pointer)
}

/// `const char *docbm_error_description(const docbm_error *error)`
@c public func docbm_error_description(_ error: OpaquePointer) -> UnsafePointer<CChar> {
  UnsafePointer(ErrorHandle.borrow(error).description.pointer)
}

/// `const char *docbm_error_path(const docbm_error *error)`
@c public func docbm_error_path(_ error: OpaquePointer) -> UnsafePointer<CChar>? {
  ErrorHandle.borrow(error).path.map { UnsafePointer($0.pointer) }
}

/// `const char *docbm_error_last_known_path(const docbm_error *error)`
@c public func docbm_error_last_known_path(_ error: OpaquePointer) -> UnsafePointer<CChar>? {
  ErrorHandle.borrow(error).lastKnownPath.map { UnsafePointer($0.pointer) }
}

/// `int docbm_error_errno(const docbm_error *error)`
@c public func docbm_error_errno(_ error: OpaquePointer) -> Int32 {
  ErrorHandle.borrow(error).errno
}

/// `const char *docbm_error_system_call(const docbm_error *error)`
@c public func docbm_error_system_call(_ error: OpaquePointer) -> UnsafePointer<CChar>? {
  ErrorHandle.borrow(error).systemCall.map { UnsafePointer($0.pointer) }
}

/// `const char *docbm_error_step(const docbm_error *error)`
@c public func docbm_error_step(_ error: OpaquePointer) -> UnsafePointer<CChar>? {
  ErrorHandle.borrow(error).step.map { UnsafePointer($0.pointer) }
}

/// `void docbm_error_free(docbm_error *error)`
@c public func docbm_error_free(_ error: OpaquePointer?) {
  ErrorHandle.release(error)
}
