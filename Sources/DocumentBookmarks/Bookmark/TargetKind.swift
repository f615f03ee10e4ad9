import DocbmSystem

/// What a bookmark refers to.
public enum TargetKind: String, Hashable, Sendable, Codable {
  /// A regular file.
  case file
  /// A folder.
  case folder

  var code: UInt8 {
    switch self {
    case .file: 1
    case .folder: 2
    }
  }

  /// The kind of what `status` describes.
  ///
  /// - Throws: ``DocbmError`` `unsupportedFileType`, naming `path`, for anything that is
  ///   neither a regular file nor a folder (a FIFO, a device, a socket, a link).
  init(of status: FileStatus, at path: FilePath) throws(DocbmError) {
    switch status.kind {
    case .regular: self = .file
    case .directory: self = .folder
    default:
      throw DocbmError(
        .unsupportedFileType, path: path,
        message: "\(path) is neither a regular file nor a folder, so it cannot be bookmarked")
    }
  }

  init?(code: UInt8) {
    switch code {
    case 1: self = .file
    case 2: self = .folder
    default: return nil
    }
  }
}
