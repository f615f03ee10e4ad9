import DocbmSystem
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
    prefix = folder.isRoot || !folder.isAbsolute ? nil : folder.description + "/"
  }

  /// `text` with each absolute path below the working folder made relative to it. A path
  /// starts the text or follows a space, a bracket, a quote or `=`; the same characters
  /// inside a longer path are left alone. Paths are compared as bytes, as the filesystem
  /// compares names.
  func shown(_ text: String) -> String {
    guard let prefix else { return text }
    let bytes = Array(text.utf8)
    let pattern = Array(prefix.utf8)
    var result: [UInt8] = []
    var copied = 0
    bytes.withUnsafeBytes { haystack in
      pattern.withUnsafeBytes { needle in
        var from = 0
        while let found = ByteSearch.firstIndex(of: needle, keyIndex: 0, in: haystack, from: from) {
          guard found == 0 || Self.pathStarts.contains(bytes[found - 1]) else {
            from = found + 1
            continue
          }
          result += bytes[copied..<found]
          copied = found + pattern.count
          from = copied
        }
      }
    }
    guard copied > 0 else { return text }
    result += bytes[copied...]
    return String(decoding: result, as: UTF8.self)
  }

  /// The bytes after which a path may start: space, brackets, quotes and `=`.
  private static let pathStarts: [UInt8] = Array(" ([{'\"=".utf8)
}
