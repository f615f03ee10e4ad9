import DocbmSystem

/// One extended attribute of a document, as inspection shows it: its name and size, never
/// its value.
public struct AttributeSummary: Hashable, Sendable, Codable {
  /// The attribute's name (`user.docbm.key`, `security.selinux`, …), escaped like a path
  /// when it is not UTF-8.
  public let name: String
  /// The value's size in bytes.
  public let size: Int
}

extension AnchoredDocument {
  /// The names and sizes of the document's extended attributes that the caller may see,
  /// sorted by name (following a symbolic link to the document).
  ///
  /// - Throws: ``DocbmError`` (`notFound`, `permissionDenied`, …). A filesystem without
  ///   extended attributes gives an empty list.
  public func attributes() throws(DocbmError) -> [AttributeSummary] {
    let fd = try mappingSystemErrors(.readKey, path: path) { () throws(SystemCallError) in
      try FileDescriptor.open(path, [.readOnly, .nonBlocking])
    }
    defer { fd.close() }
    return try AttributeSummary.of(fd, path: path)
  }
}

extension AttributeSummary {
  /// The attributes of the document at `path`, open as `fd`, sorted by name.
  ///
  /// - Throws: ``DocbmError`` (`permissionDenied`, `ioError`, …) naming `path`.
  static func of(_ fd: FileDescriptor, path: FilePath) throws(DocbmError) -> [AttributeSummary] {
    try mappingSystemErrors(.readKey, path: path) { () throws(SystemCallError) in
      var summaries: [AttributeSummary] = []
      for name in try ExtendedAttributes.names(of: .descriptor(fd)) {
        // An attribute removed between the listing and the read is skipped.
        guard let value = try ExtendedAttributes.value(named: name, of: .descriptor(fd)) else { continue }
        summaries.append(AttributeSummary(name: FilePath.escape(name), size: value.count))
      }
      return summaries.sorted { $0.name < $1.name }
    }
  }
}
