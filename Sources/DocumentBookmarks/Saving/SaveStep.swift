/// The steps of a safe save, in the order they run. A failed save names its step.
///
/// The order and the reasons for it are in docs/design.md ("Saving"). New steps may be
/// added in later versions: a `switch` over them needs a `default`.
public enum SaveStep: String, Hashable, Sendable, Codable, CaseIterable {
  /// Finding the document, its folder, and what to keep of it.
  case inspectDocument
  /// Checking the folder is writable, sweeping leftovers, naming the new version's entry.
  case prepareTemporary
  /// The caller's writer producing the new contents.
  case write
  /// Opening what the writer wrote.
  case openWritten
  /// Giving the new version the document's owner and group.
  case changeOwner
  /// Copying the extended attributes, the key among them.
  case copyAttributes
  /// Giving the new version the document's permission bits.
  case changeMode
  /// Copying the access (and, for folders, default) ACL.
  case copyACL
  /// Flushing the new version to the device.
  case syncFile
  /// Renaming (or, for a folder, exchanging) the new version into place.
  case swap
  /// Flushing the folder, so the rename itself is durable.
  case syncFolder
}
