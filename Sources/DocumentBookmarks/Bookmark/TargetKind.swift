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

  init?(code: UInt8) {
    switch code {
    case 1: self = .file
    case 2: self = .folder
    default: return nil
    }
  }
}
