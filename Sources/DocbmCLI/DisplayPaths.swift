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
  /// inside a longer path are left alone.
  func shown(_ text: String) -> String {
    guard let prefix, text.contains(prefix) else { return text }
    var result = ""
    var rest = text[...]
    while let found = rest.firstRange(of: prefix) {
      result += rest[..<found.lowerBound]
      if found.lowerBound != text.startIndex,
        !Self.pathStarts.contains(text[text.index(before: found.lowerBound)])
      {
        result += rest[found]
      }
      rest = rest[found.upperBound...]
    }
    return result + rest
  }

  /// The characters after which a path may start.
  private static let pathStarts: Set<Character> = [" ", "(", "[", "{", "'", "\"", "="]
}
