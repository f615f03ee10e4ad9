import DocumentBookmarks

/// Paths in messages as a person in the working folder reads them: a path below it is
/// shown relative to it (`notes/board.json`, not `/home/ana/notes/board.json`), as the
/// person would type it. Data (a resolved path, JSON) is never shortened.
struct DisplayPaths: Sendable {
  /// The working folder followed by a slash; `nil` when paths are shown as they are.
  private let prefix: String?

  /// Paths shown as they are.
  static let asGiven = DisplayPaths(prefix: nil)

  private init(prefix: String?) { self.prefix = prefix }

  /// Paths below `folder` shown relative to it; at `/`, paths are shown as they are.
  init(workingFolder folder: FilePath) {
    let description = folder.description
    prefix = description == "/" || !folder.isAbsolute ? nil : description + "/"
  }

  /// `text` with each absolute path below the working folder made relative to it. A path
  /// starts the text or follows a space, a bracket, a quote or `=`; the same characters
  /// inside a longer path are left alone. Paths are compared as bytes, as the filesystem
  /// compares names.
  func shown(_ text: String) -> String {
    guard let prefix else { return text }
    let bytes = Array(text.utf8)
    let pattern = Array(prefix.utf8)
    guard bytes.count >= pattern.count else { return text }
    var result: [UInt8] = []
    var copied = 0
    var index = 0
    while index <= bytes.count - pattern.count {
      if bytes[index] == pattern[0], index == 0 || Self.pathStarts.contains(bytes[index - 1]),
        bytes[index..<index + pattern.count].elementsEqual(pattern)
      {
        result += bytes[copied..<index]
        index += pattern.count
        copied = index
      } else {
        index += 1
      }
    }
    guard copied > 0 else { return text }
    result += bytes[copied...]
    return String(decoding: result, as: UTF8.self)
  }

  /// The bytes after which a path may start: space, brackets, quotes and `=`.
  private static let pathStarts: [UInt8] = Array(" ([{'\"=".utf8)
}
