/// What a tree walk knows of the path of a document it listed, so that the check does not
/// ask the system for it again.
package struct ListedPaths: Sendable {
  /// The document's path made absolute and normalized, from the walk's root's (a listed
  /// name has no slash, `.` or `..`).
  package let absolute: FilePath
  /// The canonical path (`realpath`) of the folder the document was listed in, from the
  /// root's: the walk enters no symbolic link. `nil` when the root's could not be found.
  package let realFolder: FilePath?

  package init(absolute: FilePath, realFolder: FilePath?) {
    self.absolute = absolute
    self.realFolder = realFolder
  }
}
