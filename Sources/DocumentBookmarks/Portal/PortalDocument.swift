import DocbmSystem

/// A file or folder reached through the Documents portal (`xdg-document-portal`), as a
/// sandboxed (Flatpak) app sees the files a user gave it: a FUSE mount (type
/// `fuse.portal`) at `$XDG_RUNTIME_DIR/doc`, where each exported file or folder is
/// `doc/<id>/<name>` (and `doc/by-app/<app>/<id>/<name>` in one app's view).
///
/// What works through the portal (docs/portal.md has the measurements):
/// - A **folder** export (``Kind/folder``) takes extended attributes: documents inside it
///   get keys, and safe saves keep them, as anywhere else.
/// - A **file** export (``Kind/file``) passes the key through for reading, but refuses to
///   set any attribute: a document without a key cannot get one there
///   (`portalRefusesAttributes`), and a save by a new version would lose the key; a save in
///   place (``ReplaceOptions/portalFileDocuments``) keeps it.
/// - Inode numbers and paths seen through the portal mean nothing outside it: bookmarks
///   record the ``hostPath`` instead, and no identity.
public struct PortalDocument: Hashable, Sendable, Codable, CustomReflectable {
  /// What the user exported.
  public enum Kind: String, Hashable, Sendable, Codable {
    /// A single file (the portal's `Add`): attributes readable, never settable.
    case file
    /// A whole folder (`AddFull` with the directory flag): attributes work inside it.
    case folder
  }

  /// Where ``PortalDocument/hostPath`` came from. Names are frozen: they appear in JSON output.
  public enum HostPathSource: String, Hashable, Sendable, Codable {
    /// The portal's `user.document-portal.host-path` attribute, read through the mount
    /// (newer portals than Debian 12's 1.16 offer it).
    case attribute
    /// The portal does not say (no attribute; Debian 12's portal, 1.16, is one): the host
    /// path is unknown. docbm does not call the portal's D-Bus `GetHostPaths` (Documents
    /// interface version 5) yet.
    case unknown
  }

  /// The fields, behind one reference: almost no document is on the portal, and every
  /// check and resolution carries an optional `PortalDocument`, which is then one pointer to
  /// copy and test (seven fields inline made each copy of a check's result a call that
  /// tested the optional's tag through the fields' spare bits, and one per field to copy).
  private let storage: Storage

  private final class Storage: Sendable {
    let fields: Fields
    init(_ fields: Fields) { self.fields = fields }
  }

  /// The stored fields, encoded and compared as `PortalDocument` is.
  private struct Fields: Hashable, Sendable, Codable {
    let path: FilePath
    let documentID: String
    let appID: String?
    let kind: Kind
    let exportedPath: FilePath
    let hostPath: FilePath?
    let hostPathSource: HostPathSource
  }

  /// The path as reached through the portal, with symbolic links resolved.
  public var path: FilePath { storage.fields.path }
  /// The portal's ID of the exported file or folder (the `<id>` in `doc/<id>/<name>`).
  public var documentID: String { storage.fields.documentID }
  /// The app whose view of the portal the path goes through (`doc/by-app/<app>/…`, or the
  /// view a Flatpak sandbox gets); `nil` for the portal's full view.
  public var appID: String? { storage.fields.appID }
  /// Whether a single file or a folder was exported.
  public var kind: Kind { storage.fields.kind }
  /// The exported file or folder itself, as reached through the portal (`…/doc/<id>/<name>`).
  public var exportedPath: FilePath { storage.fields.exportedPath }
  /// Where ``path`` really is (outside the portal), when the portal says.
  public var hostPath: FilePath? { storage.fields.hostPath }
  /// Where ``hostPath`` came from.
  public var hostPathSource: HostPathSource { storage.fields.hostPathSource }

  public static func == (lhs: PortalDocument, rhs: PortalDocument) -> Bool {
    lhs.storage === rhs.storage || lhs.storage.fields == rhs.storage.fields
  }

  public func hash(into hasher: inout Hasher) { storage.fields.hash(into: &hasher) }

  public init(from decoder: any Decoder) throws { storage = Storage(try Fields(from: decoder)) }

  public func encode(to encoder: any Encoder) throws { try storage.fields.encode(to: encoder) }

  /// Its fields, as `print`, `dump` and test failures show a structure (not its storage).
  public var customMirror: Mirror {
    Mirror(
      self,
      children: [
        "path": path, "documentID": documentID, "appID": appID as Any, "kind": kind,
        "exportedPath": exportedPath,
        "hostPath": hostPath as Any, "hostPathSource": hostPathSource,
      ], displayStyle: .struct)
  }

  /// The name of the portal's attribute that holds an entry's host path.
  public static let hostPathAttribute = "user.document-portal.host-path"

  /// Whether the path is inside a single-file export, where the portal refuses to set
  /// extended attributes (so no key can be added there, and a new version loses it).
  public var refusesAttributes: Bool { kind == .file }

  /// Whether the path goes through an app's own view of the portal, or this process runs
  /// inside a Flatpak sandbox: files outside what the portal exports may be invisible.
  public var isSandboxView: Bool { appID != nil || PortalDocument.isInsideFlatpak }

  /// Whether this process runs inside a Flatpak sandbox (`/.flatpak-info` exists).
  public static var isInsideFlatpak: Bool { MountTable.isInsideFlatpak }

  /// The portal document `path` is reached through, or `nil` when it is not on the
  /// Documents portal's mount (or is the mount's own folder, or an ID's folder).
  ///
  /// Costs one `poll` of the mount table when no portal is mounted (once a
  /// process has asked a few times); else one `statfs` for a path elsewhere (two for a path
  /// where nothing is yet: its folder's); through FUSE, the mount table is read too.
  public static func of(_ path: FilePath) -> PortalDocument? {
    if PortalMounts.noneMounted() { return nil }
    switch FileSystemIdentity.fuseAnswer(path: path) {
    case .notFUSE: return nil
    case .missing:
      // A document not made yet: on the portal when its folder is.
      guard FileSystemIdentity.fuseAnswer(path: path.absolute.removingLastComponent) == .mayBeFUSE else {
        return nil
      }
    case .mayBeFUSE: break
    }
    return onFUSE(path)
  }

  /// ``of(_:)`` for a path that `statfs` (or `fstatfs`) says is on FUSE: which mount holds
  /// it, and whether that is the portal's.
  private static func onFUSE(_ path: FilePath) -> PortalDocument? {
    guard let real = realPath(path) else { return nil }
    // No mount table (no /proc): no portal can be told, and none is claimed.
    guard let table = try? MountTable.current(), let mount = table.mount(containing: real),
      mount.isDocumentPortal
    else { return nil }
    return PortalDocument(real: real, mount: mount)
  }

  /// ``of(_:)`` for a document open as `descriptor`, as `docbm check` asks for every
  /// document: nothing when no portal was mounted a millisecond ago (``PortalMounts``, a
  /// `poll` at most once a millisecond); else one `fstatfs`, without a walk of the path,
  /// tells a document elsewhere.
  package static func of(_ path: FilePath, descriptor: FileDescriptor) -> PortalDocument? {
    if PortalMounts.noneMounted(maximumAge: PortalMounts.hotPathAnswerAge) { return nil }
    guard let filesystem = try? FileSystemIdentity.of(descriptor) else { return of(path) }  // asked by path
    return filesystem.isFUSE ? onFUSE(path) : nil
  }

  /// Parses the portal's layout below its mount.
  package init?(real: FilePath, mount: MountTable.Mount) {
    var components = Array(real.components.dropFirst(mount.mountPoint.components.count))
    var view = mount.mountPoint
    var appID: String?
    let rootComponents = mount.root.components
    let byApp = Array("by-app".utf8)
    if rootComponents.count == 2, rootComponents[0] == byApp {
      // A sandbox's view: the app's folder of the portal is mounted as the whole portal.
      appID = String(decoding: rootComponents[1], as: UTF8.self)
    } else if rootComponents.isEmpty, components.count >= 2, components[0] == byApp {
      appID = String(decoding: components[1], as: UTF8.self)
      view = view.appending(components[0]).appending(components[1])
      components.removeFirst(2)
    }
    guard components.count >= 2 else { return nil }
    let exported = view.appending(components[0]).appending(components[1])
    let rest = components.dropFirst(2)
    let kind: Kind
    if !rest.isEmpty {
      kind = .folder
    } else {
      // An entry that cannot be looked at is taken for a file, the portal's usual export.
      let status = try? FileStatus.of(exported, followSymlinks: false)
      kind = status?.kind == .directory ? .folder : .file
    }
    let host = PortalDocument.hostPath(ofExported: exported, name: components[1])
    var hostPath = host?.path
    for component in rest { hostPath = hostPath?.appending(component) }
    storage = Storage(
      Fields(
        path: real, documentID: String(decoding: components[0], as: UTF8.self), appID: appID, kind: kind,
        exportedPath: exported, hostPath: hostPath, hostPathSource: host?.source ?? .unknown))
  }

  /// The host path of `portalPath`, a path at or below ``exportedPath``; `nil` when the
  /// host path is unknown or `portalPath` is elsewhere.
  package func hostPath(of portalPath: FilePath) -> FilePath? {
    guard let hostRoot = hostRootPath else { return nil }
    guard let rest = PortalDocument.components(of: portalPath.lexicallyNormalized, below: exportedPath) else {
      return nil
    }
    var result = hostRoot
    for component in rest { result = result.appending(component) }
    return result
  }

  /// Where the host path `host` is seen through the portal: below ``exportedPath`` when
  /// `host` is inside what was exported, else `nil`.
  package func portalPath(ofHost host: FilePath) -> FilePath? {
    guard let hostRoot = hostRootPath,
      let rest = PortalDocument.components(of: host.lexicallyNormalized, below: hostRoot)
    else { return nil }
    var result = exportedPath
    for component in rest { result = result.appending(component) }
    return result
  }

  /// The host path of ``exportedPath``.
  private var hostRootPath: FilePath? {
    guard let hostPath else { return nil }
    let depth = path.components.count - exportedPath.components.count
    var root = hostPath
    for _ in 0..<depth { root = root.removingLastComponent }
    return root
  }

  /// The components of `path` after `base`, or `nil` when `path` is not `base` or below it.
  private static func components(of path: FilePath, below base: FilePath) -> ArraySlice<[UInt8]>? {
    let baseComponents = base.components
    let all = path.components
    guard path.isAbsolute == base.isAbsolute, all.count >= baseComponents.count,
      Array(all.prefix(baseComponents.count)) == baseComponents
    else { return nil }
    return all.dropFirst(baseComponents.count)
  }

  /// The exported entry's host path, from the portal's attribute; `nil` when the portal
  /// offers none. A value that is not an absolute path ending in the entry's name is not
  /// believed.
  private static func hostPath(ofExported exported: FilePath, name: [UInt8]) -> (
    path: FilePath, source: HostPathSource
  )? {
    // `nil` when the portal offers none, as documented: an unreadable value is none.
    let value = try? ExtendedAttributes.value(hostPathAttribute, of: .path(exported, followSymlinks: false))
    guard var bytes = value else { return nil }
    while bytes.last == 0 { bytes.removeLast() }
    guard let path = FilePath(bytes: bytes), path.isAbsolute, path.lastComponent == name else { return nil }
    return (path.lexicallyNormalized, .attribute)
  }

  /// `path` with its symbolic links resolved; for a path that does not exist yet, its
  /// folder's resolved path and its name.
  private static func realPath(_ path: FilePath) -> FilePath? {
    // Not resolved: tried as a path not made yet; `nil` when its folder cannot be resolved.
    if let real = try? TargetSnapshot.canonicalPath(path) { return real }
    guard let folder = try? TargetSnapshot.canonicalPath(path.absolute.removingLastComponent),  // as above
      !path.lastComponent.isEmpty
    else { return nil }
    return folder.appending(path.lastComponent)
  }
}

extension PortalDocument {
  /// `portalRefusesAttributes` for `path`, inside this single-file export.
  package static func refusesAttributes(_ portal: PortalDocument, path: FilePath, saving: Bool) -> DocbmError
  {
    let instead =
      saving
      ? "a save by a new version would lose its key and attributes. Save in place instead (not crash-safe), or have the user export the folder that holds it"
      : "it has no key and cannot be given one here. Have the user export the folder that holds it through the portal (a folder export takes attributes), or give it its key outside the sandbox"
    return DocbmError(
      .portalRefusesAttributes, path: path,
      message:
        "\(path) is a single file exported through the Documents portal (document \(portal.documentID)), which refuses to set extended attributes on it: \(instead)"
    )
  }

  /// `portalHostPathUnknown` for `path`.
  package static func hostPathUnknown(_ portal: PortalDocument, path: FilePath) -> DocbmError {
    DocbmError(
      .portalHostPathUnknown, path: path,
      message:
        "\(path) is reached through the Documents portal (document \(portal.documentID)), which does not say where it really is (no \(hostPathAttribute) attribute), so a bookmark made here would hold a path that exists only while this portal runs; open the file from a folder the app sees directly, or use a newer portal"
    )
  }
}
