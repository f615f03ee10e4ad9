public import FoundationEssentials
import Glibc

/// A path on a Linux filesystem, held as the bytes the kernel sees.
///
/// Linux paths are bytes, not text: a file name need not be valid UTF-8. `FilePath` keeps
/// the exact bytes so that such names can be bookmarked, resolved and saved, and prints
/// them escaped (`\xNN`) in ``description`` so that output stays readable and unambiguous.
public struct FilePath: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
  /// The path's bytes, without a terminating NUL. Never contains a NUL byte.
  public let bytes: [UInt8]

  /// Makes a path from its bytes; `nil` when the bytes contain a NUL, which no Linux path can.
  public init?(bytes: some Sequence<UInt8>) {
    let bytes = Array(bytes)
    guard !bytes.contains(0) else { return nil }
    self.bytes = bytes
  }

  /// Hashes the bytes as one block (an array of bytes hashes them one at a time), which
  /// matters for the escrow's and the checker's tables of paths.
  public func hash(into hasher: inout Hasher) {
    bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
  }

  public static func == (lhs: FilePath, rhs: FilePath) -> Bool {
    lhs.bytes == rhs.bytes
  }

  /// Makes a path from a NUL-terminated C string, keeping its bytes as they are (a name
  /// that is not UTF-8 stays exact).
  public init(platformString: UnsafePointer<CChar>) {
    self.bytes = Array(UnsafeRawBufferPointer(start: platformString, count: strlen(platformString)))
  }

  /// Makes a path from text. NUL characters, which no Linux path can hold, are dropped.
  public init(_ string: String) {
    self.bytes = Array(string.utf8).filter { $0 != 0 }
  }

  public init(stringLiteral value: String) {
    self.init(value)
  }

  /// Makes a path from a file URL, keeping the bytes the URL stands for.
  public init(_ url: URL) {
    let bytes = url.withUnsafeFileSystemRepresentation { pointer -> [UInt8] in
      guard let pointer else { return Array(url.path.utf8) }
      return Array(UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)))
    }
    self.bytes = bytes
  }

  /// A file URL for this path. Bytes that are not UTF-8 cannot always survive the trip
  /// through `URL` on Linux; keep the `FilePath` where exactness matters.
  public var url: URL {
    bytes.withUnsafeBufferPointer { buffer in
      var terminated = Array(buffer)
      terminated.append(0)
      return terminated.withUnsafeBufferPointer { pointer in
        pointer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: pointer.count) {
          URL(fileURLWithFileSystemRepresentation: $0, isDirectory: false, relativeTo: nil)
        }
      }
    }
  }

  /// The path as text, or `nil` when its bytes are not valid UTF-8.
  public var string: String? {
    String(validating: bytes, as: UTF8.self)
  }

  /// The path as readable text: bytes that are not UTF-8, control characters and
  /// backslashes are escaped as `\xNN` (a backslash as `\\`), so no two paths print alike.
  public var description: String {
    FilePath.escape(bytes)
  }

  /// Whether the path starts at the root folder.
  public var isAbsolute: Bool { bytes.first == UInt8(ascii: "/") }

  /// The root folder, `/`.
  package static let root = FilePath(uncheckedBytes: [UInt8(ascii: "/")])

  /// Whether the path is the root folder written as one slash (the normal form; `//` is
  /// not normal and is not the root here).
  package var isRoot: Bool { bytes.count == 1 && bytes[0] == UInt8(ascii: "/") }

  /// Whether `component` is `.` or `..`: the names every folder has for itself and its
  /// parent, which name no entry of their own.
  package static func isSelfOrParent(_ component: some Collection<UInt8>) -> Bool {
    let dot = UInt8(ascii: ".")
    var index = component.startIndex
    guard index != component.endIndex, component[index] == dot else { return false }
    component.formIndex(after: &index)
    if index == component.endIndex { return true }
    guard component[index] == dot else { return false }
    component.formIndex(after: &index)
    return index == component.endIndex
  }

  /// The last component when it names an entry of its folder, `nil` when it names none:
  /// the path is `/` (or empty), or ends in `.` or `..`.
  package var lastEntryName: [UInt8]? {
    let name = lastComponent
    return name.isEmpty || FilePath.isSelfOrParent(name) ? nil : name
  }

  /// The most bytes one name (a path component) may have on Linux: `NAME_MAX`.
  package static let maximumNameLength = Int(NAME_MAX)

  /// The most bytes a path given to the kernel may have, its final NUL not counted:
  /// `PATH_MAX` - 1.
  package static let maximumLength = Int(PATH_MAX) - 1

  /// The components between slashes; empty components are dropped.
  public var components: [[UInt8]] {
    bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true).map(Array.init)
  }

  /// The last component's bytes (empty for `/`).
  public var lastComponent: [UInt8] {
    let slash = UInt8(ascii: "/")
    var end = bytes.count
    while end > 0, bytes[end - 1] == slash { end -= 1 }  // trailing slashes
    var start = end
    while start > 0, bytes[start - 1] != slash { start -= 1 }
    return Array(bytes[start..<end])
  }

  /// The path without its last component: `/a/b` gives `/a`, `/a` gives `/`, `a` gives `.`.
  public var removingLastComponent: FilePath {
    let slash = UInt8(ascii: "/")
    var end = bytes.count
    while end > 0, bytes[end - 1] == slash { end -= 1 }  // trailing slashes
    while end > 0, bytes[end - 1] != slash { end -= 1 }  // the last component
    while end > 0, bytes[end - 1] == slash { end -= 1 }  // the slashes before it
    if end == 0 { return isAbsolute ? .root : FilePath(".") }
    return FilePath(uncheckedBytes: Array(bytes[..<end]))
  }

  /// This path with one more component.
  public func appending(_ component: [UInt8]) -> FilePath {
    if bytes.isEmpty { return FilePath(uncheckedBytes: component) }
    return component.withUnsafeBytes { appending($0) }
  }

  /// ``appending(_:)-([UInt8])`` of a component where it lies (a name in a
  /// ``DirectoryListing``).
  package func appending(_ component: UnsafeRawBufferPointer) -> FilePath {
    // Made at its final size: one allocation (a tree walk makes a path per entry).
    var result: [UInt8] = []
    result.reserveCapacity(bytes.count + 1 + component.count)
    result.append(contentsOf: bytes)
    if !bytes.isEmpty, result.last != UInt8(ascii: "/") { result.append(UInt8(ascii: "/")) }
    result.append(contentsOf: component)
    return FilePath(uncheckedBytes: result)
  }

  /// This path with `suffix` added to its last component (`store.json` → `store.json.lock`):
  /// a file's siblings that belong to it. A suffix with a NUL leaves the path as it is.
  package func addingSuffix(_ suffix: String) -> FilePath {
    FilePath(bytes: bytes + Array(suffix.utf8)) ?? self
  }

  /// This path with one more component given as text.
  public func appending(_ component: String) -> FilePath {
    appending(Array(component.utf8))
  }

  /// Whether ``lexicallyNormalized`` would give the same bytes: no empty, `.` or `..`
  /// component (other than the root's leading slash), checked without allocating, since
  /// most paths a walk makes are already normal.
  private var isLexicallyNormal: Bool {
    bytes.withUnsafeBytes { FilePath.isNormalForm($0, absolute: isAbsolute) }
  }

  /// The path with `.` components removed and each `..` taking away the component before
  /// it, without asking the filesystem. Symbolic links are not followed, so the result can
  /// differ from what the kernel would resolve when a `..` follows a link.
  public var lexicallyNormalized: FilePath {
    if isLexicallyNormal { return self }
    let slash = UInt8(ascii: "/")
    let dot = UInt8(ascii: ".")
    var kept: [Range<Int>] = []
    var leadingParents = 0
    var start = 0
    while start <= bytes.count {
      var end = start
      while end < bytes.count, bytes[end] != slash { end += 1 }
      let length = end - start
      if length == 0 || (length == 1 && bytes[start] == dot) {
        // An empty component (doubled, leading or trailing slash) or `.`: dropped.
      } else if length == 2 && bytes[start] == dot && bytes[start + 1] == dot {
        if kept.popLast() == nil && !isAbsolute { leadingParents += 1 }
      } else {
        kept.append(start..<end)
      }
      start = end + 1
    }
    var result: [UInt8] = isAbsolute ? [slash] : []
    result.reserveCapacity(bytes.count)
    for _ in 0..<leadingParents {
      if result.count > (isAbsolute ? 1 : 0) { result.append(slash) }
      result += [dot, dot]
    }
    for range in kept {
      if result.count > (isAbsolute ? 1 : 0) { result.append(slash) }
      result += bytes[range]
    }
    if result.isEmpty { result = [dot] }
    return FilePath(uncheckedBytes: result)
  }

  /// Whether this path (absolute and normal, as a document's folder is) joined with
  /// `relative` names `target` once lexically normalized: what
  /// `appending(relative).lexicallyNormalized.bytes == target` says, worked out without new
  /// arrays, since the unmoved resolve asks it every time.
  ///
  /// When `relative` is in normal form too (``isNormalForm(_:absolute:)``, true of nearly
  /// every record), the join is this path, a slash and `relative`, compared with `target`
  /// where they lie; otherwise it is normalized in temporary storage (on the stack for
  /// usual lengths). That this path is normal is checked in debug builds only: a
  /// document's folder is made normal (``AnchoredDocument``), and the resolve should not
  /// scan it again each time.
  package func joined(_ relative: ArraySlice<UInt8>, normalizesTo target: ArraySlice<UInt8>) -> Bool {
    precondition(isAbsolute, "joined(_:normalizesTo:) starts from an absolute folder")
    let direct = bytes.withUnsafeBytes { folder in
      relative.withUnsafeBytes { relative in
        target.withUnsafeBytes { target -> Bool? in
          assert(
            FilePath.isNormalForm(folder, absolute: true), "joined(_:normalizesTo:) starts from a normal path"
          )
          guard FilePath.isNormalForm(relative, absolute: false) else { return nil }
          guard let rest = FilePath.restStart(of: target, below: folder),
            target.count - rest == relative.count
          else { return false }
          return memcmp(target.baseAddress! + rest, relative.baseAddress!, relative.count) == 0
        }
      }
    }
    if let direct { return direct }
    return joinedByNormalizing(relative, normalizesTo: target)
  }

  /// Where the rest of `path` starts when `path` is `folder`, a slash and at least one more
  /// byte (for the root folder, `/` and at least one byte): byte for byte, no
  /// normalization; `nil` otherwise. What the unmoved resolve and the tree check ask of a
  /// path inside a document's folder.
  package static func restStart(of path: UnsafeRawBufferPointer, below folder: UnsafeRawBufferPointer) -> Int?
  {
    // The root is followed by no second slash.
    let prefix = folder.count == 1 ? 0 : folder.count
    guard path.count > prefix + 1, path[prefix] == UInt8(ascii: "/"),
      prefix == 0 || memcmp(path.baseAddress!, folder.baseAddress!, prefix) == 0
    else { return nil }
    return prefix + 1
  }

  /// Whether this path is below `folder`: `folder`, a slash and at least one more byte,
  /// compared byte for byte as ``restStart(of:below:)`` does (both paths in normal form).
  package func isBelow(_ folder: FilePath) -> Bool {
    bytes.withUnsafeBytes { path in
      folder.bytes.withUnsafeBytes { folder in FilePath.restStart(of: path, below: folder) != nil }
    }
  }

  /// Whether `path` is in lexically normal form: not empty, components separated by one
  /// slash, none empty, `.` or `..`, no slash at the end; starting with the one slash of
  /// the root when `absolute` (the root alone is normal), with none when not.
  package static func isNormalForm(_ path: UnsafeRawBufferPointer, absolute: Bool) -> Bool {
    let slash = UInt8(ascii: "/")
    let dot = UInt8(ascii: ".")
    guard !path.isEmpty, (path[0] == slash) == absolute else { return false }
    if absolute && path.count == 1 { return true }
    var index = absolute ? 1 : 0
    while true {
      let start = index
      while index < path.count, path[index] != slash { index += 1 }
      let length = index - start
      if length == 0 { return false }
      if path[start] == dot, length == 1 || (length == 2 && path[start + 1] == dot) { return false }
      if index == path.count { return true }
      index += 1
    }
  }

  /// ``joined(_:normalizesTo:)`` for any folder and relative path: the join normalized in
  /// a buffer, then compared.
  private func joinedByNormalizing(_ relative: ArraySlice<UInt8>, normalizesTo target: ArraySlice<UInt8>)
    -> Bool
  {
    let slash = UInt8(ascii: "/")
    let dot = UInt8(ascii: ".")
    return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bytes.count + 1 + relative.count) {
      buffer in
      var count = 0
      for byte in bytes {
        buffer[count] = byte
        count += 1
      }
      if bytes.last != slash {
        buffer[count] = slash
        count += 1
      }
      for byte in relative {
        buffer[count] = byte
        count += 1
      }
      // Normalized in place: what is written never overtakes what is read. The result is
      // `/`, then the kept components with one slash between each.
      var written = 1
      var start = 1
      while start <= count {
        var end = start
        while end < count, buffer[end] != slash { end += 1 }
        let length = end - start
        if length == 0 || (length == 1 && buffer[start] == dot) {
          // An empty component or `.`: dropped.
        } else if length == 2 && buffer[start] == dot && buffer[start + 1] == dot {
          // `..` takes away the last kept component (none above the root).
          while written > 1 && buffer[written - 1] != slash { written -= 1 }
          if written > 1 { written -= 1 }
        } else {
          if written > 1 {
            buffer[written] = slash
            written += 1
          }
          for index in start..<end {
            buffer[written] = buffer[index]
            written += 1
          }
        }
        start = end + 1
      }
      return target.withUnsafeBytes { target in
        target.count == written && memcmp(buffer.baseAddress!, target.baseAddress!, written) == 0
      }
    }
  }

  /// The path made absolute against the current working folder, then lexically normalized.
  public var absolute: FilePath {
    if isAbsolute { return lexicallyNormalized }
    return (FilePath.currentDirectory.appending(bytes)).lexicallyNormalized
  }

  /// The relative path that leads from `base` (a folder) to this path; both are made absolute
  /// and normalized first. `/a/b/c` from `/a/d` is `../b/c`.
  public func relative(from base: FilePath) -> FilePath {
    let slash = UInt8(ascii: "/")
    let dot = UInt8(ascii: ".")
    // Both normalized: `/`, or `/` and components with one slash between each.
    let target = absolute.bytes
    let origin = base.absolute.bytes
    var shared = 0
    while shared < target.count, shared < origin.count, target[shared] == origin[shared] { shared += 1 }
    // The common folders end at a slash (or an end) in both; otherwise at the last slash
    // before the bytes part.
    let atBoundary =
      (shared == target.count || target[shared] == slash)
      && (shared == origin.count || origin[shared] == slash)
    if !atBoundary {
      while shared > 0, target[shared - 1] != slash { shared -= 1 }
      shared -= 1
    }
    // `..` for each component of the origin past the common folders, then the target's rest.
    var result: [UInt8] = []
    result.reserveCapacity(target.count - shared + 3 * 8)
    var index = shared
    while index < origin.count {
      if origin[index] != slash, index == 0 || origin[index - 1] == slash {
        if !result.isEmpty { result.append(slash) }
        result += [dot, dot]
      }
      index += 1
    }
    let rest = target[min(shared + 1, target.count)...]
    if !rest.isEmpty {
      if !result.isEmpty { result.append(slash) }
      result += rest
    }
    return result.isEmpty ? FilePath(".") : FilePath(uncheckedBytes: result)
  }

  /// Calls `body` with the path as a NUL-terminated C string.
  ///
  /// The string is built in temporary storage (on the stack for usual lengths), not in a
  /// new array: every system call on a path goes through here.
  @inlinable public func withCString<Result>(
    _ body: (UnsafePointer<CChar>) throws -> Result
  ) rethrows -> Result {
    try withUnsafeTemporaryAllocation(of: CChar.self, capacity: bytes.count + 1) { buffer in
      bytes.withUnsafeBytes { source in
        UnsafeMutableRawBufferPointer(buffer).copyMemory(from: source)
      }
      buffer[bytes.count] = 0
      return try body(buffer.baseAddress!)
    }
  }

  /// Bytes as they came from the system (a name from a folder's listing, an argument), for display;
  /// a NUL, which no path holds, ends the name.
  package init(displayBytes bytes: some Sequence<UInt8>) {
    self.bytes = Array(bytes.prefix { $0 != 0 })
  }

  package init(uncheckedBytes: [UInt8]) {
    self.bytes = uncheckedBytes
  }

  init(components: some Collection<[UInt8]>, absolute: Bool) {
    var result: [UInt8] = absolute ? [UInt8(ascii: "/")] : []
    for (index, part) in components.enumerated() {
      if index > 0 { result.append(UInt8(ascii: "/")) }
      result.append(contentsOf: part)
    }
    self.bytes = result
  }

  /// The process's current working folder.
  package static var currentDirectory: FilePath {
    guard let pointer = getcwd(nil, 0) else { return .root }
    defer { free(pointer) }
    return FilePath(uncheckedBytes: Array(UnsafeRawBufferPointer(start: pointer, count: strlen(pointer))))
  }

  /// Escapes bytes for display: valid UTF-8 stays as it is, except backslashes and control
  /// characters; every other byte becomes `\xNN`.
  package static func escape(_ bytes: [UInt8]) -> String {
    // Most paths are printable ASCII without backslashes: nothing to escape.
    if bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\\") }) {
      return String(decoding: bytes, as: UTF8.self)
    }
    var output = ""
    var index = 0
    while index < bytes.count {
      let length = FilePath.utf8ScalarLength(bytes, at: index)
      if length == 0 {
        output += "\\x" + Hex.encode([bytes[index]])
        index += 1
        continue
      }
      let slice = bytes[index..<(index + length)]
      let scalarText = String(decoding: slice, as: UTF8.self)
      if length == 1 {
        let byte = bytes[index]
        if byte == UInt8(ascii: "\\") {
          output += "\\\\"
        } else if byte < 0x20 || byte == 0x7F {
          output += "\\x" + Hex.encode([byte])
        } else {
          output += scalarText
        }
      } else {
        output += scalarText
      }
      index += length
    }
    return output
  }

  /// The length of the valid UTF-8 scalar starting at `index`, or 0 when there is none.
  private static func utf8ScalarLength(_ bytes: [UInt8], at index: Int) -> Int {
    let lead = bytes[index]
    let length: Int
    switch lead {
    case 0x00...0x7F: return 1
    case 0xC2...0xDF: length = 2
    case 0xE0...0xEF: length = 3
    case 0xF0...0xF4: length = 4
    default: return 0
    }
    guard index + length <= bytes.count else { return 0 }
    guard String(validating: bytes[index..<(index + length)], as: UTF8.self) != nil else {
      return 0
    }
    return length
  }
}
