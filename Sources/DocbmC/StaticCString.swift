/// A NUL-terminated copy of a string that lives as long as the process, for functions whose
/// header promises a static string. It never changes and is never released, so it may be
/// read from any thread.
struct StaticCString: @unchecked Sendable {
  let pointer: UnsafePointer<CChar>

  init(_ string: String) {
    pointer = UnsafePointer(CStringCopy(string).pointer)
  }
}
