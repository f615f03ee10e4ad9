/// The subcommands of `docbm`.
enum CommandName: String, CaseIterable, Sendable {
  case bookmark, resolve, decode, inspect, save, demo, help

  /// The usage line, without the leading `docbm`.
  var usage: String {
    switch self {
    case .bookmark: "bookmark [--json] DOCUMENT TARGET"
    case .resolve: "resolve [--json] DOCUMENT BOOKMARK"
    case .decode: "decode [--json] BOOKMARK"
    case .inspect: "inspect [--json] DOCUMENT"
    case .save: "save [--json] [--from FILE] [--split-hard-links] DOCUMENT"
    case .demo: "demo"
    case .help: "help [SUBCOMMAND]"
    }
  }

  /// One line for the command list.
  var abstract: String {
    switch self {
    case .bookmark: "Make a bookmark anchored on a document and print its text form."
    case .resolve: "Verify a bookmark against its document and print its target's path."
    case .decode: "Show a bookmark's fields without verifying them."
    case .inspect: "Show a document's key fingerprint and extended attributes."
    case .save: "Replace a document with new contents, keeping its key and attributes."
    case .demo: "Show document-scoped bookmarks at work in a scratch folder."
    case .help: "Show help for docbm or one of its subcommands."
    }
  }

  /// The full help text's body.
  var discussion: String {
    switch self {
    case .bookmark:
      """
      ARGUMENTS:
        DOCUMENT    The document (a file or a folder) that anchors the bookmark. Its key is
                    created in the user.docbm.key attribute if it has none.
        TARGET      The file or folder to bookmark. A symbolic link is followed.

      OPTIONS:
        --json      Print a JSON object (docs/cli.md) instead of the text form.
      """
    case .resolve:
      """
      ARGUMENTS:
        DOCUMENT    The document whose key signed the bookmark.
        BOOKMARK    The bookmark's text form, or - to read it from standard input.

      OPTIONS:
        --json      Print a JSON object (docs/cli.md).

      When the bookmark is stale, the reasons and a refreshed bookmark are printed too.
      Exit status: 0 resolved, 1 not resolved (the error code says why).
      """
    case .decode:
      """
      ARGUMENTS:
        BOOKMARK    The bookmark's text form, or - to read it from standard input.

      OPTIONS:
        --json      Print a JSON object (docs/cli.md).

      Nothing is verified: the fields are shown as recorded, marked UNVERIFIED.
      """
    case .inspect:
      """
      ARGUMENTS:
        DOCUMENT    The document to inspect.

      OPTIONS:
        --json      Print a JSON object (docs/cli.md).

      The key itself is never printed, only its fingerprint.
      """
    case .save:
      """
      ARGUMENTS:
        DOCUMENT    The document to replace (created if it does not exist). A symbolic link
                    is followed: the link stays, its target is replaced.

      OPTIONS:
        --from FILE          Read the new contents from FILE instead of standard input.
        --split-hard-links   Save even when the document has other hard links (they keep
                             the old version). Without it such a save is refused.
        --json               Print a JSON object (docs/cli.md).

      The new version gets the document's key, other extended attributes, owner, mode and
      ACLs, is flushed, and is renamed over the document: an xattr-keeping sponge. On
      failure the document is untouched. Exit status: 0 saved, 1 not saved.
      """
    case .demo:
      """
      Makes a scratch project, anchors bookmarks to files and a folder on a document,
      renames and moves the targets and the whole project, and resolves everything again.
      """
    case .help:
      """
      ARGUMENTS:
        SUBCOMMAND  The subcommand to describe.
      """
    }
  }
}
