public import DocumentBookmarks

/// What the store last learned about a record's target.
///
/// Statuses are written to the store file, so every process using the store sees them. A
/// status this version cannot read (a newer version's state, an unknown error code) reads
/// as ``unknown``.
public enum RecordStatus: Hashable, Sendable, Codable, CustomStringConvertible {
  /// Not resolved yet (a new path-only record, or a status this version cannot read).
  case unknown
  /// The last resolution found the target.
  case available
  /// The last resolution failed with `code`, first at `since` (a failure that repeats
  /// keeps its first date).
  case unavailable(DocbmError.Code, since: Timestamp)

  /// The failure, when ``unavailable(_:since:)``.
  public var failure: DocbmError.Code? {
    if case .unavailable(let code, _) = self { code } else { nil }
  }

  public var description: String {
    switch self {
    case .unknown: "unknown"
    case .available: "available"
    case .unavailable(let code, let since): "unavailable (\(code.rawValue) since \(since))"
    }
  }

  private enum CodingKeys: String, CodingKey { case state, code, since }

  /// Never fails: anything unreadable is ``unknown``.
  public init(from decoder: any Decoder) throws {
    // Anything unreadable is `unknown`, as documented: resolving tells the status again.
    guard let container = try? decoder.container(keyedBy: CodingKeys.self),
      let state = try? container.decode(String.self, forKey: .state)
    else {
      self = .unknown
      return
    }
    switch state {
    case "available":
      self = .available
    case "unavailable":
      // As above: an unreadable code or date is `unknown`.
      if let raw = try? container.decode(String.self, forKey: .code),
        let code = DocbmError.Code(rawValue: raw),
        let since = try? container.decode(Timestamp.self, forKey: .since)
      {
        self = .unavailable(code, since: since)
      } else {
        self = .unknown
      }
    default:
      self = .unknown
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    switch self {
    case .unknown: try container.encode("unknown", forKey: .state)
    case .available: try container.encode("available", forKey: .state)
    case .unavailable(let code, let since):
      try container.encode("unavailable", forKey: .state)
      try container.encode(code.rawValue, forKey: .code)
      try container.encode(since, forKey: .since)
    }
  }
}
