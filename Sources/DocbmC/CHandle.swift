/// How an object made for a C caller crosses the boundary: as an opaque pointer that holds
/// one retain, given back with the matching `_free` or `_close` call.
protocol CHandle: AnyObject {}

extension CHandle {
  /// A new opaque pointer to `self`, holding a retain the C caller owns.
  func retainedPointer() -> OpaquePointer {
    OpaquePointer(Unmanaged.passRetained(self).toOpaque())
  }

  /// The object behind `pointer`, without taking the caller's retain.
  static func borrow(_ pointer: OpaquePointer) -> Self {
    Unmanaged<Self>.fromOpaque(UnsafeRawPointer(pointer)).takeUnretainedValue()
  }

  /// Drops the caller's retain on the object behind `pointer`; `nil` does nothing.
  static func release(_ pointer: OpaquePointer?) {
    guard let pointer else { return }
    Unmanaged<Self>.fromOpaque(UnsafeRawPointer(pointer)).release()
  }
}
