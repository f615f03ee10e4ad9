import DocbmSystem
public import DocumentBookmarks
import FoundationEssentials

/// A file that GTK applications list as recently used, from GLib's `recently-used.xbel`
/// (the list behind "Recent" in GTK file choosers and GNOME's editors).
public struct RecentlyUsedFile: Hashable, Sendable {
  /// One application that used the file.
  public struct Application: Hashable, Sendable {
    /// The application's name as GLib records it (`gnome-text-editor`, `gedit`, `org.gnome.Evince`).
    public let name: String
    /// When it last used the file.
    public let lastUsed: Timestamp?
    /// How many times it registered the file.
    public let count: Int
  }

  /// The file's path (decoded from its `file://` URI).
  public let path: FilePath
  /// Its MIME type, when the list records one.
  public let mimeType: String?
  /// When the list's entry last changed.
  public let modified: Timestamp?
  /// The applications that used it.
  public let applications: [Application]

  /// The application named `name`, when it used the file.
  public func application(_ name: String) -> Application? { applications.first { $0.name == name } }
}

/// Why GLib's list of recently used files could not be read.
public enum RecentlyUsedFilesError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The file could not be read (it does not exist, it is not a regular file, or the
  /// system refused); the message says which.
  case unreadable(path: FilePath, message: String)
  /// The file is not the XML GLib writes, or not an XBEL list; nothing is taken from it.
  case malformed(path: FilePath, line: Int, reason: String)
  /// The file is another user's, or others may write it: its entries could be anyone's
  /// choice of files, so nothing is taken from it.
  case untrusted(path: FilePath, reason: String)

  public var description: String {
    switch self {
    case .unreadable(let path, let message): "\(path) cannot be read: \(message)"
    case .malformed(let path, let line, let reason):
      "\(path), line \(line): not a recently used list: \(reason)"
    case .untrusted(let path, let reason): "\(path) is not taken as your recently used list: \(reason)"
    }
  }
}

/// GLib's list of recently used files (`$XDG_DATA_HOME/recently-used.xbel`), read as an
/// app's first recent files: ``BookmarkStore/importRecentlyUsed(_:application:key:metadata:)``
/// adds those one application used.
public enum RecentlyUsedFiles {
  /// The list's usual place: `$XDG_DATA_HOME/recently-used.xbel`, with `XDG_DATA_HOME`
  /// defaulting to `~/.local/share`; `nil` when neither is set to an absolute path.
  public static var defaultPath: FilePath? {
    let environment = ProcessInfo.processInfo.environment
    if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
      return FilePath(data).appending("recently-used.xbel")
    }
    if let home = environment["HOME"], home.hasPrefix("/") {
      return FilePath(home).appending(".local/share/recently-used.xbel")
    }
    return nil
  }

  /// The most bytes of a list that are read; GLib keeps the list far smaller.
  static let sizeLimit = 16 << 20

  /// Reads the list at `path`: its local files (`file://` URIs; other URIs are passed
  /// over, as are paths that cannot be decoded), in the list's order. Nothing is checked
  /// on disk: a file may since have moved or gone.
  ///
  /// - Throws: ``RecentlyUsedFilesError/unreadable(path:message:)`` when the file cannot be
  ///   read, is not a regular file or is larger than 16 MiB;
  ///   ``RecentlyUsedFilesError/untrusted(path:reason:)`` when it is not yours or others may
  ///   write it; ``RecentlyUsedFilesError/malformed(path:line:reason:)`` when it is not
  ///   well-formed XML or its root is not `<xbel>`.
  public static func read(_ path: FilePath) throws(RecentlyUsedFilesError) -> [RecentlyUsedFile] {
    let read: (bytes: [UInt8], status: FileStatus)?
    do {
      read = try readRegularFile(path, limit: sizeLimit, followSymlinks: true)
    } catch {
      throw .unreadable(path: path, message: "\(error)")
    }
    guard let (bytes, status) = read else {
      throw .unreadable(
        path: path, message: "it is not a regular file (a FIFO, a device, a socket or a folder)")
    }
    // Its entries become an app's remembered files: only the user may have written them.
    let user = ProcessCredentials.effectiveUser
    guard status.owner == user else {
      throw .untrusted(path: path, reason: "it belongs to user \(status.owner), not to you (\(user))")
    }
    guard status.permissions & 0o022 == 0 else {
      throw .untrusted(
        path: path, reason: "other users may write it (mode \(String(status.permissions & 0o777, radix: 8)))")
    }
    guard bytes.count < sizeLimit else {
      throw .unreadable(path: path, message: "it is larger than \(sizeLimit >> 20) MiB")
    }
    // The entries are taken as the markup is read: no element is kept once it is used.
    var collector = EntryCollector()
    var root: String?
    do {
      try MarkupReader.read(bytes) { event in
        if root == nil, case .start(let name, _) = event { root = name }
        if root == "xbel" { collector.take(event) }
      }
    } catch {
      throw .malformed(path: path, line: error.line, reason: error.reason)
    }
    guard root == "xbel" else {
      throw .malformed(path: path, line: 1, reason: "the root element is not <xbel>")
    }
    return collector.files
  }

  /// The list's `<bookmark>` elements with a `file://` URI, each with its MIME type and
  /// applications, gathered from the markup's events as they come.
  struct EntryCollector {
    private(set) var files: [RecentlyUsedFile] = []
    private var current: (path: FilePath, modified: Timestamp?)?
    private var mimeType: String?
    private var applications: [RecentlyUsedFile.Application] = []

    /// Takes the next event of the list.
    mutating func take(_ event: MarkupReader.Event) {
      switch event {
      case .start("bookmark", let attributes):
        current = attributes["href"].flatMap(RecentlyUsedFiles.localPath).map {
          ($0, attributes["modified"].flatMap(RecentlyUsedFiles.timestamp))
        }
        mimeType = nil
        applications = []
      case .start("mime:mime-type", let attributes) where current != nil:
        mimeType = attributes["type"]
      case .start("bookmark:application", let attributes) where current != nil:
        guard let name = attributes["name"] else { return }
        // GLib writes `modified` (ISO 8601); before 2.66, `timestamp` (seconds).
        let lastUsed =
          attributes["modified"].flatMap(RecentlyUsedFiles.timestamp)
          ?? attributes["timestamp"].flatMap { Int64($0) }.map { Timestamp(seconds: $0, nanoseconds: 0) }
        applications.append(
          .init(name: name, lastUsed: lastUsed, count: attributes["count"].flatMap { Int($0) } ?? 1))
      case .end("bookmark"):
        if let entry = current {
          files.append(
            RecentlyUsedFile(
              path: entry.path, mimeType: mimeType, modified: entry.modified, applications: applications))
        }
        current = nil
      default:
        return
      }
    }
  }

  /// The path of a `file://` URI on this host (`file:///p` or `file://localhost/p`).
  static func localPath(_ uri: String) -> FilePath? {
    var rest = Substring(uri)
    guard rest.hasPrefix("file://") else { return nil }
    rest = rest.dropFirst("file://".count)
    if rest.hasPrefix("localhost/") { rest = rest.dropFirst("localhost".count) }
    guard rest.hasPrefix("/"), let bytes = PercentEncoding.decode(Array(rest.utf8)) else { return nil }
    return FilePath(bytes: bytes)
  }

  /// An ISO 8601 time as GLib writes it: `2026-12-05T04:41:39.275792Z` (UTC, the fraction
  /// optional, the year of four digits: years 1 to 9999; others are not times GLib writes,
  /// and are refused before any arithmetic on them).
  static func timestamp(_ text: String) -> Timestamp? {
    let parts = text.utf8.split(whereSeparator: { "-T:.Z".utf8.contains($0) }).map {
      Int64(String(decoding: $0, as: UTF8.self))
    }
    guard text.hasSuffix("Z"), parts.count >= 6, parts.count <= 7, !parts.contains(nil) else { return nil }
    let (year, month, day, hour, minute, second) = (
      parts[0]!, parts[1]!, parts[2]!, parts[3]!, parts[4]!, parts[5]!
    )
    guard (1...9999).contains(year), (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60,
      second < 61
    else {
      return nil
    }
    // Days since 1970-01-01 of a date in the proleptic Gregorian calendar.
    let shifted = month <= 2 ? year - 1 : year
    let era = (shifted >= 0 ? shifted : shifted - 399) / 400
    let yearOfEra = shifted - era * 400
    let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    let days = era * 146_097 + dayOfEra - 719_468
    var nanoseconds: UInt32 = 0
    if parts.count == 7, let dot = text.firstIndex(of: ".") {
      let digits = text[text.index(after: dot)...].prefix { $0.isNumber }.prefix(9)
      nanoseconds = UInt32(digits + String(repeating: "0", count: 9 - digits.count)) ?? 0
    }
    return Timestamp(seconds: days * 86_400 + hour * 3_600 + minute * 60 + second, nanoseconds: nanoseconds)
  }
}
