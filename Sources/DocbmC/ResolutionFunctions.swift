// The accessors of `docbm_resolution`. See docbm.h for the C declarations.

/// `const char *docbm_resolution_path(const docbm_resolution *resolution)`
@c public func docbm_resolution_path(_ resolution: OpaquePointer) -> UnsafePointer<CChar> {
  UnsafePointer(ResolutionHandle.borrow(resolution).path.pointer)
}

/// `int docbm_resolution_is_stale(const docbm_resolution *resolution)`
@c public func docbm_resolution_is_stale(_ resolution: OpaquePointer) -> Int32 {
  ResolutionHandle.borrow(resolution).staleReasons == 0 ? 0 : 1
}

/// `const char *docbm_resolution_refreshed(const docbm_resolution *resolution)`
@c public func docbm_resolution_refreshed(_ resolution: OpaquePointer) -> UnsafePointer<CChar>? {
  ResolutionHandle.borrow(resolution).refreshed.map { UnsafePointer($0.pointer) }
}

/// `unsigned docbm_resolution_stale_reasons(const docbm_resolution *resolution)`
@c public func docbm_resolution_stale_reasons(_ resolution: OpaquePointer) -> UInt32 {
  ResolutionHandle.borrow(resolution).staleReasons
}

/// `int docbm_resolution_is_folder(const docbm_resolution *resolution)`
@c public func docbm_resolution_is_folder(_ resolution: OpaquePointer) -> Int32 {
  ResolutionHandle.borrow(resolution).isFolder ? 1 : 0
}

/// `int docbm_resolution_is_in_trash(const docbm_resolution *resolution)`
@c public func docbm_resolution_is_in_trash(_ resolution: OpaquePointer) -> Int32 {
  ResolutionHandle.borrow(resolution).isInTrash ? 1 : 0
}

/// `void docbm_resolution_free(docbm_resolution *resolution)`
@c public func docbm_resolution_free(_ resolution: OpaquePointer?) {
  ResolutionHandle.release(resolution)
}
