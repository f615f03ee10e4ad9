import DocbmSystem
public import DocumentBookmarks

/// A check a store makes of each target before it adds it, so that an app's rules ("only
/// project folders", "not the whole disk") hold for every way a path reaches the store.
///
/// ```swift
/// let projects = BookmarkStore<String, Project>(
///   file: projectsFile,
///   policy: StorePolicy(validators: [.directoryOnly, .notTooBroad, .noOverlap]))
/// ```
///
/// `add(target:…)`, `add(targets:)` and `add(bookmark:…)` run a store's validators, in
/// order, before anything is bookmarked or written; the first that refuses ends the add with
/// ``BookmarkStoreError/refused(validator:path:reason:)``. A target that does not exist is
/// not judged: the add fails with `notFound` as it would without validators. Path-only
/// records (`add(pathOnly:…)`) are not checked, since their path need not exist yet.
///
/// The validators judge the object a path leads to, and the bookmark made after records
/// one: when they differ (the path was swapped in between, a folder replaced by a link to
/// `/`), the add is refused with the validator name ``sameTarget`` and nothing is added.
public struct StoreValidator: Sendable {
  /// What a validator judges: the target as given and as it will be bookmarked.
  public struct Candidate: Sendable {
    /// The path as given, made absolute and normalized (a final symbolic link not followed).
    public let path: FilePath
    /// The path with every symbolic link resolved: what the bookmark will record.
    public let resolvedPath: FilePath
    /// What the resolved path is.
    public let kind: TargetKind
    /// Whether the path as given is a symbolic link.
    public let isSymbolicLink: Bool
    /// The last known paths of the store's records, as this process last loaded them.
    public let storedPaths: [FilePath]
  }

  /// The validator's name, used in the refusal.
  public let name: String

  /// The name a refusal gives when the target changed between the validators' judgement
  /// and its bookmark: the bookmark would record an object no validator judged.
  public static let sameTarget = "sameTarget"
  let judge: @Sendable (Candidate) -> String?

  /// A validator of the app's own: `judge` returns why `candidate` is refused, or `nil` to
  /// let it in.
  public init(name: String, _ judge: @escaping @Sendable (_ candidate: Candidate) -> String?) {
    self.name = name
    self.judge = judge
  }

  /// Only folders (a project folder, a library root).
  public static let directoryOnly = StoreValidator(name: "directoryOnly") { candidate in
    candidate.kind == .folder ? nil : "it is not a folder"
  }

  /// Only regular files.
  public static let fileOnly = StoreValidator(name: "fileOnly") { candidate in
    candidate.kind == .file ? nil : "it is not a regular file"
  }

  /// Not a folder so broad that it holds a whole system or a whole home: `/`, a top-level
  /// folder (`/usr`, `/home`, `/media`, …), `$HOME` or a folder above it. A disk's mount
  /// point below those (`/media/ann/Photos`) and any folder inside the home pass.
  public static let notTooBroad = StoreValidator(name: "notTooBroad") { candidate in
    let home = ProcessEnvironment.value("HOME").map { FilePath($0) }.flatMap { $0.isAbsolute ? $0 : nil }
    return tooBroad(candidate.resolvedPath, home: home)
  }

  /// ``notTooBroad`` with `home` as the home folder instead of `$HOME`.
  public static func notTooBroad(home: FilePath) -> StoreValidator {
    StoreValidator(name: "notTooBroad") { candidate in tooBroad(candidate.resolvedPath, home: home) }
  }

  /// Why `path` is too broad, or `nil`.
  private static func tooBroad(_ path: FilePath, home: FilePath?) -> String? {
    if path.components.count <= 1 {
      return path.components.isEmpty ? "it is the root folder" : "it is a top-level folder"
    }
    guard let home else { return nil }
    // A home folder that cannot be resolved is compared as it reads.
    let normalizedHome = (try? SymbolicLink.canonicalPath(home)) ?? home.lexicallyNormalized
    if normalizedHome == path { return "it is the home folder" }
    return normalizedHome.isBelow(path) ? "it holds the home folder" : nil
  }

  /// Not inside a stored target, and not holding one: a store of project folders never
  /// holds a project and a folder of it, nor a folder and its parent. (The same target
  /// again is a duplicate, which ``StorePolicy/duplicates`` decides.)
  public static let noOverlap = StoreValidator(name: "noOverlap") { candidate in
    for stored in candidate.storedPaths where stored != candidate.resolvedPath {
      if candidate.resolvedPath.isBelow(stored) {
        return "it is inside \(stored), which the store holds"
      }
      if stored.isBelow(candidate.resolvedPath) {
        return "it holds \(stored), which the store holds"
      }
    }
    return nil
  }

  /// Not a symbolic link: the store records what a link leads to, which may surprise a
  /// user who picked the link.
  public static let noSymbolicLink = StoreValidator(name: "noSymbolicLink") { candidate in
    candidate.isSymbolicLink ? "it is a symbolic link (to \(candidate.resolvedPath))" : nil
  }
}
