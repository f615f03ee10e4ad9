import DocbmSystem

/// What `docbm inspect` shows of a document, read through one descriptor: its key, its
/// extended attributes and, for a file, the check of its bookmarks, for which the escrow
/// is opened only when its record can change the verdict.
package struct DocumentInspection: Sendable {
  /// The state of the document's key attribute.
  package enum Key: Sendable {
    case present(KeyFingerprint)
    case absent
    /// A value that is not a key this version can use, and why.
    case malformed(String)
  }

  package let key: Key
  /// The document's extended attributes, sorted by name.
  package let attributes: [AttributeSummary]
  /// The check of a file's bookmarks; `nil` for a folder document, whose bookmarks are in
  /// the files inside it.
  package let check: DocumentCheck?
  /// The Documents portal export the document is reached through, when it is.
  package let portal: PortalDocument?
  /// The checker that made ``check``: what opening its escrow imported, and where to
  /// record a move it found.
  package let checker: DocumentChecker

  /// Opens the document at `path` (following a symbolic link) once, and reads through that
  /// descriptor its key, its attributes and, when it is a file, its bytes.
  ///
  /// - Throws: ``DocbmError`` when the document cannot be opened or its attributes read
  ///   (`notFound`, `permissionDenied`, `unsupportedFilesystem`, …). A key that cannot be
  ///   used is reported as ``Key/malformed(_:)``, not thrown.
  package static func inspect(_ path: FilePath, escrow: KeyEscrow?) throws(DocbmError) -> DocumentInspection {
    let fd = try mappingSystemErrors(.readKey, path: path) { () throws(SystemCallError) in
      do throws(SystemCallError) {
        return try FileDescriptor.open(path, [.readOnly, .nonBlocking, .noAccessTime])
      } catch  where error.errno == .notPermitted {
        // O_NOATIME on a file the caller does not own.
        return try FileDescriptor.open(path, [.readOnly, .nonBlocking])
      }
    }
    defer { fd.close() }
    let key: Key
    do {
      key = try KeyAttribute.cachedKey(from: fd, path: path).map { .present($0.key.fingerprint) } ?? .absent
    } catch {
      guard error.code == .keyMalformed || error.code == .unsupportedVersion else { throw error }
      key = .malformed(error.message)
    }
    let attributes = try AttributeSummary.of(fd, path: path)
    let status = try mappingSystemErrors(.readKey, path: path) { () throws(SystemCallError) in
      try FileStatus.of(fd)
    }
    let checker = DocumentChecker(deferringEscrow: escrow)
    guard status.kind != .directory else {
      return DocumentInspection(
        key: key, attributes: attributes, check: nil, portal: PortalDocument.of(path, descriptor: fd),
        checker: checker)
    }
    let check = checker.check(path, descriptor: fd)
    return DocumentInspection(
      key: key, attributes: attributes, check: check, portal: check.portalDocument, checker: checker)
  }
}
