/// Faults injected into resolution, for testing an app's unhappy paths: a resolve in the
/// current task (or, with a process-wide fault, of a document inside the fault's folder)
/// fails as if the target were missing, its disk unplugged, the document's key lost or the
/// device failing, or waits at a gate until the test lets it go on.
///
/// The public face of this is `withResolutionFault(_:_:)` and
/// `withProcessWideResolutionFault(_:in:_:)` in DocumentBookmarksTesting.
package enum ResolutionFaults {
  /// One fault, applied to every resolve it reaches while it is installed.
  package final class Fault: Sendable {
    /// What a resolve reached by the fault does.
    package enum Action: Sendable {
      /// Fails with an error of this code.
      case fail(DocbmError.Code)
      /// Calls this (which returns when the test lets the resolve go on), then resolves.
      case hold(@Sendable () -> Void)
    }

    package let action: Action
    /// Only bookmarks whose recorded target is inside this folder (absolute, normalized);
    /// `nil`: every bookmark.
    package let targets: FilePath?

    package init(_ action: Action, targets: FilePath? = nil) {
      self.action = action
      self.targets = targets.map { $0.absolute.lexicallyNormalized }
    }
  }

  @TaskLocal package static var injected: Fault?

  /// The process-wide faults, each for the resolves against documents inside its folder.
  package static let processWide = ProcessWideFaults<Fault>()

  /// Applies the fault that reaches a resolve of `bookmark` against `document`, if any:
  /// throws its error, or waits at its gate and returns.
  static func apply(to bookmark: Bookmark, on document: AnchoredDocument) throws(DocbmError) {
    guard let fault = injected ?? processWide.fault(for: document.path) else { return }
    // A bookmark that does not decode meets only faults for every target.
    let contents = try? bookmark.decodeUnverified()
    if let folder = fault.targets {
      guard let target = contents?.absolutePath.lexicallyNormalized,
        target == folder || target.isBelow(folder)
      else { return }
    }
    switch fault.action {
    case .hold(let wait): wait()
    case .fail(let code): throw error(code, bookmark: bookmark, contents: contents, document: document)
    }
  }

  /// The error a real failure of `code` would give, its message saying it was injected.
  private static func error(
    _ code: DocbmError.Code, bookmark: Bookmark, contents: BookmarkContents?, document: AnchoredDocument
  ) -> DocbmError {
    let target = contents?.absolutePath
    let injected = "(a fault injected for a test)"
    let kind = contents?.kind.rawValue ?? "target"
    switch code {
    case .keyMissing:
      let real = document.keyMissing(bookmark.keyFingerprint)
      return DocbmError(.keyMissing, path: real.path, message: "\(real.message) \(injected)")
    case .missing:
      return DocbmError(
        .missing, path: target,
        message: "the \(kind) last seen at \(target.map(\.description) ?? "?") is gone \(injected)",
        lastKnownPath: target)
    case .volumeUnavailable:
      return DocbmError(
        .volumeUnavailable, path: target,
        message: "the filesystem that held \(target.map(\.description) ?? "?") is not mounted \(injected)",
        lastKnownPath: target)
    case .ioError:
      return DocbmError(
        .ioError, path: target,
        message:
          "the \(kind) last seen at \(target.map(\.description) ?? "?") could not be looked for: input/output error \(injected)",
        systemCall: "statx", errno: 5, lastKnownPath: target)
    default:
      return DocbmError(code, path: target ?? document.path, message: "\(code.rawValue) \(injected)")
    }
  }
}
