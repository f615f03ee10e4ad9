import DocbmSystem

/// The rule that says a save would overwrite a read-only document, shared by the
/// rename-based save and the save in place.
///
/// A document is read-only when its mode gives no one write permission (`chmod a-w`: even
/// root is stopped, as Vim stops it), or when its mode and ACL give none to the saver's
/// effective ids. A rename-based save needs only the folder's write permission, so without
/// this rule it would replace such a document silently.
enum WriteProtection {
  /// Whether `file`, whose status is `status`, is read-only to the caller. When the kernel
  /// cannot answer, the save's own steps decide.
  static func isReadOnly(_ file: FileDescriptor, status: FileStatus) -> Bool {
    if status.permissions & 0o222 == 0 { return true }
    // An error other than EACCES says nothing about the permissions: the save's own steps
    // report it if it matters.
    return (try? file.permitsWriting()) == false
  }

  /// The refusal: `readOnlyDocument`, at the step that inspects the document.
  static func refusal(_ destination: FilePath, status: FileStatus) -> DocbmError {
    let mode = "0" + String(status.permissions & 0o7777, radix: 8)
    let why =
      status.permissions & 0o222 == 0
      ? "its mode (\(mode)) lets no one write it"
      : "its mode (\(mode), owner \(status.owner), group \(status.group)) does not let user \(ProcessCredentials.effectiveUser) write it"
    return DocbmError(
      .readOnlyDocument, path: destination,
      message:
        "\(destination) is read-only: \(why). To save anyway, keeping its mode, save again allowing a read-only document, or save a copy elsewhere; \(destination) is unchanged",
      step: .inspectDocument)
  }
}
