/// A NUL-terminated copy of some bytes, in memory of its own, for a C caller to read.
///
/// The memory comes from the Swift allocator (the C library's `malloc` on Linux) and is
/// released by ``release()``, or by `docbm_free` once handed to the caller.
struct CStringCopy {
  /// The copy, NUL-terminated.
  let pointer: UnsafeMutablePointer<CChar>

  /// Copies `bytes` and a terminating NUL. A NUL inside `bytes` ends the string there for C.
  init(_ bytes: some Collection<UInt8>) {
    pointer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
    for (index, byte) in bytes.enumerated() { pointer[index] = CChar(bitPattern: byte) }
    pointer[bytes.count] = 0
  }

  /// Copies the UTF-8 bytes of `string`.
  init(_ string: String) { self.init(string.utf8) }

  /// Releases the copy; `pointer` is not to be used after.
  func release() { pointer.deallocate() }
}
